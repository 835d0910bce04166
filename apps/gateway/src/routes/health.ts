import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { answerWithin } from "../answerWithin";
import { REPLICA_ROLES, type ReplicaRole } from "@axiom-lattice/protocols";
import { READINESS_TIMEOUT_MS } from "../defaults";
import { HttpError } from "../http/errors";
import { errorResponses } from "../openapi/errorResponses";
import type { ReadinessCheck } from "../stores/gatewayStores";
import { GATEWAY_VERSION } from "../version";

const tags = ["health"];

export const healthRoutes: FastifyPluginAsyncZod<{ role: ReplicaRole; readiness: ReadinessCheck[] }> = async (app, { role, readiness }) => {
  app.get(
    "/health",
    {
      schema: {
        tags,
        summary: "Liveness: the process answers, what this replica does, and which gateway version it runs",
        response: {
          200: z.object({
            status: z.literal("ok"),
            role: z.enum(REPLICA_ROLES).describe("AXIOM_ROLE: all, api (serves the API, runs nothing) or worker (runs messages)"),
            version: z.string().describe("The @axiom-lattice/gateway version (a rolling upgrade shows which replicas run which)"),
          }),
        },
      },
    },
    async () => ({ status: "ok" as const, role, version: GATEWAY_VERSION }),
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
            // A partitioned database never answers: the probe must, within a second.
            await answerWithin(READINESS_TIMEOUT_MS, check());
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
