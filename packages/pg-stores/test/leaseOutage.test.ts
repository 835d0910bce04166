import { LeaseLostError, withLease } from "@axiom-lattice/core";
import { TcpProxy, createTestDatabase, recordingLogger, type TestDatabase } from "@axiom-lattice/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PostgreSQLStores, createPostgreSQLStores } from "../src";

// The lease store reached through a proxy the test partitions: renewals then fail (time out) rather
// than being refused, and the work under the lease must stop by the time the lease would expire.
let db: TestDatabase;
let proxy: TcpProxy;
let pg: PostgreSQLStores;

const TTL_MS = 1_500;
// Keeps the expected renewal failures off the test output.
const { logger } = recordingLogger();

beforeAll(async () => {
  db = await createTestDatabase("lattice_lease_outage");
  proxy = await TcpProxy.forUrl(db.url);
  pg = await createPostgreSQLStores(proxy.url(db.url), { poolConfig: { connectionTimeoutMillis: 300, statement_timeout: 300 }, logger });
});

afterAll(async () => {
  proxy?.resume();
  await pg?.dispose();
  await proxy?.close();
  await db?.drop();
});

describe("a lease whose renewals fail (database partitioned)", () => {
  it("is treated as lost by its expiry: the work under it is told to stop", { timeout: 20_000 }, async () => {
    let pausedAt = 0;
    const outcome = await withLease(pg.lease, "thread:outage", "replica-a", async ({ signal }) => {
      proxy.pause();
      pausedAt = Date.now();
      // The work runs until its lease signal says otherwise.
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
      return { stoppedAfterMs: Date.now() - pausedAt, reason: signal.reason as unknown };
    }, { logger, ttlMs: TTL_MS });

    expect(outcome.reason).toBeInstanceOf(LeaseLostError);
    expect(outcome.reason).toMatchObject({ message: expect.stringContaining("not renewed before expiry") });
    // Never after the store's own expiry (counted from before the last confirmed renewal).
    expect(outcome.stoppedAfterMs).toBeLessThanOrEqual(TTL_MS + 50);
  });
});
