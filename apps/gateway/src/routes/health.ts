import type { FastifyPluginAsync } from "fastify";

/** A check `/ready` runs; it throws (or rejects) when the dependency is not usable. */
export type ReadinessCheck = { name: string; check: () => Promise<void> };

export const healthRoutes: FastifyPluginAsync<{ readiness: ReadinessCheck[] }> = async (app, { readiness }) => {
  app.get("/health", async () => ({ status: "ok" }));

  app.get("/ready", async (_request, reply) => {
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
      return reply.status(503).send({ success: false, code: "NOT_READY", error: "Dependencies are not ready", failures });
    }
    return { status: "ready" };
  });
};
