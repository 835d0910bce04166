import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { allMigrations, createPostgreSQLStores } from "@axiom-lattice/pg-stores";
import { type TestDatabase, createTestDatabase, migratedTemplate } from "@axiom-lattice/testing";
import { afterAll, beforeAll } from "vitest";
import { buildGateway, loadConfig } from "../src";
import { type GatewayContext, createGatewayContext } from "../src/context/gatewayContext";
import { createGatewayLogger } from "../src/server";
import { useDocumentedResponses } from "./documentedResponses";

/** The migrated schema PostgreSQL test databases here are copied from, built once. */
const migratedSchema = migratedTemplate(allMigrations, async (url) => (await createPostgreSQLStores(url)).dispose());

/**
 * A database already at the latest migration, for tests of what runs on it. Tests of migrating itself
 * (a gateway's first start) take `createTestDatabase`'s empty one.
 */
export const createMigratedTestDatabase = (prefix?: string): Promise<TestDatabase> => createTestDatabase(prefix, migratedSchema);

/**
 * A gateway on in-memory stores for one describe block, with JSON request helpers. Every answer it
 * gives is checked against its OpenAPI document: each test fails on an undocumented one.
 */
export function useGateway(
  setup: (gateway: TestGateway) => Promise<void> = async () => {},
  /** Environment of the gateway (read when it starts): a DATABASE_URL selects the PostgreSQL stores. */
  env: () => Record<string, string> = () => ({}),
): TestGateway {
  const gateway = {} as TestGateway;
  const checkResponses = useDocumentedResponses();
  beforeAll(async () => {
    Object.assign(gateway, await buildTestGateway(env()));
    checkResponses(gateway.app);
    await setup(gateway);
  });
  afterAll(async () => {
    // Each within its own bound: a close that hangs (seen once in CI, in mcpServer's) names itself.
    await settlesWithin(gateway.app.close(), 25_000, "the HTTP server to close (a connection still open?)");
    await settlesWithin(gateway.context.close(), 25_000, "the gateway context to close (a run not handed back?)");
  });
  gateway.post = (url, payload, headers = {}) =>
    gateway.app.inject({ method: "POST", url, headers: { "content-type": "application/json", ...headers }, payload: JSON.stringify(payload) });
  gateway.get = (url, headers = {}) => gateway.app.inject({ method: "GET", url, headers });
  gateway.del = (url, headers = {}) => gateway.app.inject({ method: "DELETE", url, headers });
  return gateway;
}

/**
 * A gateway served through `inject`, built as `start()` builds one: the logger first, so the context
 * logs through it too. `started` also runs startup recovery and the background work, as a listening
 * gateway has them. Closing is the caller's: the app, then the context.
 */
export async function buildTestGateway(
  env: Record<string, string>,
  { started = false, prepare }: { started?: boolean; prepare?: (context: GatewayContext) => void } = {},
): Promise<{ app: FastifyInstance; context: GatewayContext }> {
  const config = loadConfig({ LOG_LEVEL: "silent", ...env });
  const logger = createGatewayLogger(config);
  const context = await createGatewayContext(config, logger);
  // Before the routes are built: what they take from the context is then the prepared one.
  prepare?.(context);
  const app = await buildGateway(config, { context, logger });
  if (started) {
    await context.recover();
    await context.startBackground();
  }
  return { app, context };
}

/**
 * For a describe block run on `stores`: a throw-away database when they are PostgreSQL, dropped after
 * the block. Answers the environment that selects them, for {@link useGateway}.
 */
export function useStoreEnv(stores: string): () => Record<string, string> {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    if (stores === "postgresql") database = await createMigratedTestDatabase();
  });
  afterAll(() => database?.drop());
  return (): Record<string, string> => (database ? { DATABASE_URL: database.url } : {});
}

export interface TestGateway {
  app: FastifyInstance;
  /** The stores and agents the gateway serves, for looking behind the API. */
  context: GatewayContext;
  post(url: string, payload: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  get(url: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  del(url: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
}

/** `promise`, or a rejection naming `what` once `ms` passed first. */
export async function settlesWithin<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Waited ${ms} ms for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
