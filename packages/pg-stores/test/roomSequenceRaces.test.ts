// Concurrency proof of a room's gap-free sequence on one PostgreSQL database: message stores on
// separate pools (separate connections, as separate replicas have) post and retry into one room.
import { createTestDatabase, type TestDatabase, walkPages } from "@axiom-lattice/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PostgreSQLProjectRoomMessageStore, PostgreSQLProjectRoomStore, PostgreSQLProjectStore } from "../src";

const RACERS = 4;
const SCOPE = { tenantId: "tenant-room-races", projectId: "p", roomId: "r" };

let database: TestDatabase;
let stores: PostgreSQLProjectRoomMessageStore[];

beforeAll(async () => {
  database = await createTestDatabase("lattice_room_races");
  const projects = new PostgreSQLProjectStore({ poolConfig: { connectionString: database.url, max: 1 } });
  const rooms = new PostgreSQLProjectRoomStore({ poolConfig: { connectionString: database.url, max: 1 } });
  await projects.createProject(SCOPE.tenantId, { id: SCOPE.projectId, name: "Races" });
  await rooms.createRoom(SCOPE.tenantId, SCOPE.projectId, { id: SCOPE.roomId, name: "Races" });
  await Promise.all([projects.dispose(), rooms.dispose()]);
  stores = Array.from({ length: RACERS }, () => new PostgreSQLProjectRoomMessageStore({ poolConfig: { connectionString: database.url, max: 3 } }));
});

afterAll(async () => {
  await Promise.all((stores ?? []).map((store) => store.dispose()));
  await database?.drop();
});

it("numbers every message of a room 1..N once, without a gap, while pools race posts and retries of one key", async () => {
  const rounds = 10;
  const keysPerRound = 5;
  for (let round = 0; round < rounds; round += 1) {
    // Every racer posts every key of the round: each key stores once, its other posts are retries.
    const outcomes = await Promise.all(
      stores.flatMap((store) =>
        Array.from({ length: keysPerRound }, (_, key) =>
          store.appendMessage(SCOPE, { authorType: "user", authorId: "ada", content: `r${round}k${key}`, idempotencyKey: `r${round}k${key}` }),
        ),
      ),
    );
    expect(outcomes.filter((outcome) => outcome!.created), `round ${round}`).toHaveLength(keysPerRound);
    for (let key = 0; key < keysPerRound; key += 1) {
      const answers = outcomes.filter((outcome) => outcome!.message.content === `r${round}k${key}`);
      expect(new Set(answers.map((outcome) => outcome!.message.sequence)).size, `round ${round} key ${key}`).toBe(1);
    }
  }
  const sequences = (await walkPages((page) => stores[0]!.listMessages(SCOPE, page), 200)).items.map((message) => message.sequence);
  expect(sequences).toEqual(Array.from({ length: rounds * keysPerRound }, (_, index) => index + 1));
  // 200 posts serialised on one room row: seconds on a loaded 2-core machine.
}, 60_000);
