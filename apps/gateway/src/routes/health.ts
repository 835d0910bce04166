import type { FastifyPluginAsync } from "fastify";
import { HttpError } from "../http/errors";

/** A check `/ready` runs; it throws (or rejects) when the dependency is not usable. */
export type ReadinessCheck = { name: string; check: () => Promise<void> };

export const healthRoutes: FastifyPluginAsync<{ readiness: ReadinessCheck[] }> = async (app, { readiness }) => {
  app.get("/health", async () => ({ status: "ok" }));

  app.get("/ready", async () => {
    const failures: Record<string, string> = {};
    await Promise.all(
      readiness.map(async ({ name, check }) => {
        try {
          await check();
        } catch (error) {
          failures[name] = error instanceof Error ? error.message : String(error);
        }
      }),
    );
    if (Object.keys(failures).length > 0) {
      throw new HttpError("NOT_READY", "Dependencies are not ready", { failures });
    }
    return { status: "ready" };
  });
};
