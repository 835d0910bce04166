// A dispatcher killed between its task write and the write's event, on both store kinds: no peer
// ever sees the dispatch's stamp without its admission (or lifecycle) event, nor an event without the
// stamp. On PostgreSQL the kill terminates the dispatcher's connection in the middle of its transaction
// (pg_terminate_backend), so not even its rollback reaches the server.
import { EXECUTION_REQUESTED_AT_KEY, TaskDispatcher } from "@axiom-lattice/agent";
import {
  InMemoryLeaseStore,
  InMemoryMessageQueueStore,
  InMemoryOutboxStore,
  InMemoryProjectStore,
  InMemoryTaskStore,
  InMemoryUnitOfWork,
  type MessageQueueStore,
  ProjectTaskAdmissionNotifier,
  ProjectTaskExecutionMutex,
  TaskLifecycleNotifier,
} from "@axiom-lattice/core";
import { createPostgreSQLStores } from "@axiom-lattice/pg-stores";
import {
  type AppendOutboxEventInput,
  type LeaseStore,
  type OutboxStore,
  PROJECT_TASK_ADMISSION_TOPIC,
  type ProjectStore,
  TASK_LIFECYCLE_TOPIC,
  type TaskStore,
  type UnitOfWork,
} from "@axiom-lattice/protocols";
import { SimulatedCrash, type TestDatabase, eventually } from "@axiom-lattice/testing";
import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { createMigratedTestDatabase } from "./support";

const TENANT = "t-kill";
const DISPATCHER = "doomed-dispatcher";
const logger = pino({ level: "silent" });

interface StoreSet {
  tasks: TaskStore;
  projects: ProjectStore;
  outbox: OutboxStore;
  lease: LeaseStore;
  queue: MessageQueueStore;
  unitOfWork: UnitOfWork;
}

interface Kind {
  /** The dispatcher's stores. */
  writer: StoreSet;
  /** Another replica's view of the same data. */
  peer: Pick<StoreSet, "tasks" | "outbox">;
  /** Ends the dispatcher's transaction in flight as its process's death would; how many it ended, where there are connections. */
  cutTransaction(): Promise<number | undefined>;
}

let database: TestDatabase | undefined;
const disposals: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const dispose of disposals) await dispose();
  await database?.drop();
});

const kinds: Record<string, () => Promise<Kind>> = {
  memory: async () => {
    const lease = new InMemoryLeaseStore();
    const tasks = new InMemoryTaskStore({ fences: lease });
    const outbox = new InMemoryOutboxStore();
    const writer = { tasks, outbox, projects: new InMemoryProjectStore(), lease, queue: new InMemoryMessageQueueStore({ fences: lease }), unitOfWork: new InMemoryUnitOfWork({ tasks, outbox }) };
    // A process that dies takes its staged writes with it: the work's throw discards them.
    return { writer, peer: writer, cutTransaction: async () => undefined };
  },
  postgresql: async () => {
    database = await createMigratedTestDatabase("lattice_dispatch_kill");
    const url = database.url;
    const [pg, peer] = [
      await createPostgreSQLStores(url, { poolConfig: { application_name: DISPATCHER }, logger }),
      await createPostgreSQLStores(url, { poolConfig: { application_name: "peer" }, logger }),
    ];
    disposals.push(() => pg.dispose(), () => peer.dispose());
    return {
      writer: { tasks: pg.tasks, projects: pg.projects, outbox: pg.outbox, lease: pg.lease, queue: pg.queue, unitOfWork: pg.unitOfWork },
      peer: { tasks: peer.tasks, outbox: peer.outbox },
      cutTransaction: async () => {
        // The dispatcher's connection that waits inside its open transaction: the one the kill aims at.
        const { rowCount } = await peer.pool.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1 AND state = 'idle in transaction'",
          [DISPATCHER],
        );
        return rowCount ?? 0;
      },
    };
  },
};

describe.each(Object.keys(kinds))("a dispatcher killed between its task write and the event, on %s stores", (kind) => {
  it("leaves peers seeing neither the stamp nor the event", async () => {
    const { writer, peer, cutTransaction } = await kinds[kind]();
    await writer.projects.createProject(TENANT, { id: "p", name: "p" });
    await writer.projects.addBot(TENANT, "p", "bot");
    const task = await writer.tasks.createTask(TENANT, { id: "doomed", title: "doomed", ownerType: "agent", ownerId: "bot", projectId: "p", priority: 0, status: "failed" });

    // The process dies the moment the dispatch first appends an event, wherever that append is made:
    // its stores refuse everything from then on, and its transaction in flight is cut.
    const crash = new SimulatedCrash();
    const cuts: Array<number | undefined> = [];
    const dieBeforeAppend = async () => {
      cuts.push(await cutTransaction());
      crash.kill();
      throw new Error("replica killed");
    };
    const outbox = crash.wrap(writer.outbox);
    const killingOutbox: OutboxStore = Object.assign(Object.create(outbox) as OutboxStore, {
      append: async (input: AppendOutboxEventInput) => {
        await dieBeforeAppend();
        return outbox.append(input);
      },
    });
    const unitOfWork: UnitOfWork = {
      inTransaction: (fn) =>
        crash.wrap(writer.unitOfWork).inTransaction((tx) =>
          fn({
            ...tx,
            outbox: {
              append: async (input) => {
                await dieBeforeAppend();
                await tx.outbox.append(input);
              },
            },
          }),
        ),
    };
    const leases = crash.wrap(writer.lease);
    const doomed = new TaskDispatcher({
      tasks: crash.wrap(writer.tasks),
      projects: crash.wrap(writer.projects),
      unitOfWork,
      leases,
      machine: new ProjectTaskExecutionMutex({ leaseStore: leases, replicaId: DISPATCHER, ttlMs: 1_000, logger }),
      admissions: new ProjectTaskAdmissionNotifier({ outbox: killingOutbox, replicaId: DISPATCHER, logger }),
      lifecycle: new TaskLifecycleNotifier({ outbox: killingOutbox, replicaId: DISPATCHER, logger }),
      runs: { queue: crash.wrap(writer.queue), wake: () => {} },
      replicaId: DISPATCHER,
      logger,
    });

    const answer = await doomed.dispatch(TENANT, task.id).then(
      () => "answered",
      () => "died",
    );

    // A later event committed by the peer is readable once every event before it is: by then an event
    // of the dead dispatcher's would be too.
    const marker = await peer.outbox.append({ topic: "marker", payload: {}, originReplicaId: "peer" });
    await eventually("the marker to be readable", async () => (await peer.outbox.listAfter(null, 1_000)).some((event) => event.id === marker.id));
    const events = (await peer.outbox.listAfter(null, 1_000)).filter((event) => [TASK_LIFECYCLE_TOPIC, PROJECT_TASK_ADMISSION_TOPIC].includes(event.topic));
    const seen = await peer.tasks.getTask(TENANT, task.id);
    const stamped = typeof seen?.context?.[EXECUTION_REQUESTED_AT_KEY] === "string";
    expect({ stamped, events: events.map((event) => event.topic) }).toEqual({ stamped: false, events: [] });
    expect(seen).toEqual(task);
    // The kill was aimed: the dispatch died at its first append, inside its open transaction.
    expect({ answer, cuts }).toEqual({ answer: "died", cuts: [kind === "postgresql" ? 1 : undefined] });
  });
});
