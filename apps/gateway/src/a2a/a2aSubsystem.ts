import type { FastifyPluginAsync } from "fastify";
import type { Subsystem } from "../context/subsystem";
import { type A2aRoutesOptions, a2aRoutes } from "./a2aRoutes";

export interface A2aSubsystem extends Subsystem {
  /** The A2A routes (agent cards, JSON-RPC), bound to what they run on; `server.ts` registers them. */
  a2aRoutes: FastifyPluginAsync;
}

/**
 * Every assistant as an A2A agent: a dialect over the engine's threads and runs, with nothing of its
 * own to start, stop or hear (a task is a run: the runtime and the stores carry it across replicas).
 */
export function a2aSubsystem(options: A2aRoutesOptions): A2aSubsystem {
  return {
    name: "a2a",
    a2aRoutes: async (app) => {
      await app.register(a2aRoutes, options);
    },
  };
}
