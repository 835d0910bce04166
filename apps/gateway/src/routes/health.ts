import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { setTimeout as delay } from "node:timers/promises";
import { READINESS_TIMEOUT_MS } from "../defaults";
import { HttpError } from "../http/errors";
import { errorResponses } from "../openapi/errorResponses";

/** A check `/ready` runs; it throws (or rejects) when the dependency is not usable. */
export type ReadinessCheck = { name: string; check: () => Promise<void> };

/** The check, failed when it has not answered within {@link READINESS_TIMEOUT_MS} (a partitioned database never answers). */
async function promptly(check: () => Promise<void>): Promise<void> {
  const abandoned = new AbortController();
  const timeout = delay(READINESS_TIMEOUT_MS, undefined, { signal: abandoned.signal }).then(() => {
    throw new Error(`no answer within ${READINESS_TIMEOUT_MS} ms`);
  });
  try {
    await Promise.race([check(), timeout]);
  } finally {
    abandoned.abort();
    timeout.catch(() => undefined);
  }
}

const tags = ["health"];

export const healthRoutes: FastifyPluginAsyncZod<{ readiness: ReadinessCheck[] }> = async (app, { readiness }) => {
  app.get(
    "/health",
    { schema: { tags, summary: "Liveness: the process answers", response: { 200: z.object({ status: z.literal("ok") }) } } },
    async () => ({ status: "ok" as const }),
  );

  app.get(
    "/ready",
    {
      schema: {
        tags,
        summary: "Readiness: the stores (PostgreSQL) are usable",
        response: {
          200: z.object({ status: z.literal("ready") }),
          ...errorResponses(["NOT_READY", "INTERNAL_ERROR"], { failures: z.record(z.string(), z.string()).optional().describe("Why each failing check failed") }),
        },
      },
    },
    async () => {
      const failures: Record<string, string> = {};
      await Promise.all(
        readiness.map(async ({ name, check }) => {
          try {
            await promptly(check);
          } catch (error) {
            failures[name] = error instanceof Error ? error.message : String(error);
          }
        }),
      );
      if (Object.keys(failures).length > 0) {
        throw new HttpError("NOT_READY", "Dependencies are not ready", { failures });
      }
      return { status: "ready" as const };
    },
  );
};
