// Concurrency proofs of the task store's compare-and-set and fencing on one PostgreSQL database:
// stores on separate pools (separate connections, as separate replicas have) race on one task.
import type { TaskItem } from "@axiom-lattice/protocols";
import { createTestDatabase, type TestDatabase } from "@axiom-lattice/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PostgreSQLTaskStore } from "../src";

const RACERS = 4;
const TENANT = "tenant-races";

let database: TestDatabase;
let stores: PostgreSQLTaskStore[];

beforeAll(async () => {
  database = await createTestDatabase("lattice_task_races");
  stores = Array.from({ length: RACERS }, () => new PostgreSQLTaskStore({ poolConfig: { connectionString: database.url, max: 2 } }));
  // One migrates; the others find the schema in place.
  await stores[0]!.initialize();
  await Promise.all(stores.map((store) => store.initialize()));
});

afterAll(async () => {
  await Promise.all((stores ?? []).map((store) => store.dispose()));
  await database?.drop();
});

it("lets exactly one racer win each round of updateIfSnapshot from one snapshot", async () => {
  const rounds = 60;
  const created = await stores[0]!.createTask(TENANT, { id: "snapshot-race", ownerType: "agent", ownerId: "a", title: "start", priority: 0 });
  let snapshot = { status: created.status, updatedAt: created.updatedAt };
  for (let round = 0; round < rounds; round += 1) {
    const outcomes = await Promise.all(
      stores.map((store, racer) => store.updateIfSnapshot(TENANT, "snapshot-race", snapshot, { title: `round ${round} racer ${racer}`, priority: round })),
    );
    const winners = outcomes.filter((task): task is TaskItem => task !== null);
    expect(winners, `round ${round}`).toHaveLength(1);
    const stored = await stores[0]!.getTask(TENANT, "snapshot-race");
    expect(stored).toEqual(winners[0]);
    snapshot = { status: stored!.status, updatedAt: stored!.updatedAt };
  }
});

it("never lets a write under an older token land after one under a newer token", async () => {
  await stores[0]!.createTask(TENANT, { id: "fenced-race", ownerType: "agent", ownerId: "a", title: "start", priority: 0 });
  // Tokens across a digit boundary ("9" > "10" as text), one writer each, every writer on every pool.
  const tokens = ["8", "9", "10", "11", "12", "13", "99", "100"];
  const writesEach = 25;
  const accepted: TaskItem[] = [];
  let refused = 0;
  await Promise.all(
    tokens.map(async (token, writer) => {
      const store = stores[writer % RACERS]!;
      // Staggered starts, so holders of older tokens keep writing while newer ones arrive.
      await new Promise((resolve) => setTimeout(resolve, writer * 3));
      for (let write = 0; write < writesEach; write += 1) {
        try {
          const task = await store.updateTask(TENANT, "fenced-race", { title: `token ${token}`, metadata: { token, write } }, { fencingToken: token });
          if (task) accepted.push(task);
        } catch (error) {
          expect(error).toMatchObject({ code: "LEASE_LOST", token });
          refused += 1;
        }
      }
    }),
  );
  // Each accepted write is its own token's, and in the order they were stored tokens never decrease.
  const inOrder = [...accepted].sort((a, b) => a.updatedAt.getTime() - b.updatedAt.getTime());
  for (const task of inOrder) expect(task.title).toBe(`token ${task.fencingToken}`);
  const storedTokens = inOrder.map((task) => BigInt(task.fencingToken!));
  for (let index = 1; index < storedTokens.length; index += 1) expect(storedTokens[index]! >= storedTokens[index - 1]!, `write ${index}`).toBe(true);
  expect(new Set(inOrder.map((task) => task.updatedAt.getTime())).size).toBe(inOrder.length);
  const final = await stores[0]!.getTask(TENANT, "fenced-race");
  expect(final).toMatchObject({ title: "token 100", fencingToken: "100" });
  expect(final).toEqual(inOrder.at(-1));
  // The race did interleave: some writes were fenced out.
  expect(refused).toBeGreaterThan(0);
  expect(accepted.length + refused).toBe(tokens.length * writesEach);
});
