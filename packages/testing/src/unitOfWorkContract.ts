import type { OutboxStore, TaskItem, TaskStore, UnitOfWork } from "@axiom-lattice/protocols";
import { beforeAll, describe, expect, it } from "vitest";
import { eventually } from "./eventually";
import { fresh } from "./fresh";

export interface UnitOfWorkStores {
  unitOfWork: UnitOfWork;
  /** Where the tests create their tasks (outside any unit of work). */
  tasks: TaskStore;
  /** A peer's view of the same data: for PostgreSQL, stores on a pool of their own. */
  reader: { tasks: TaskStore; outbox: OutboxStore };
}

const TOPIC = "unit_of_work_contract";
const REPLICA = "contract-writer";

/** A gate a test opens: what awaits `passed` waits until `open()`. */
function gate(): { passed: Promise<void>; open(): void } {
  let open!: () => void;
  const passed = new Promise<void>((resolve) => (open = resolve));
  return { passed, open };
}

/**
 * The {@link UnitOfWork} contract: a task write and an outbox append made in one unit of work are
 * both visible to a peer or neither is. `open` is called once per suite; every test works on tasks
 * of its own and reads the outbox from the start.
 */
export function unitOfWorkContract(name: string, open: () => Promise<UnitOfWorkStores>): void {
  describe(`UnitOfWork contract: ${name}`, () => {
    let stores: UnitOfWorkStores;
    beforeAll(async () => {
      stores = await open();
    });

    const createTask = (tenant: string) => stores.tasks.createTask(tenant, { ownerType: "user", ownerId: "u", title: "t", priority: 0 });
    /** The contract's events the peer can read now, by the task they announce. */
    const announced = async (): Promise<Set<string>> => {
      const events = await stores.reader.outbox.listAfter(null, 10_000);
      return new Set(events.filter((event) => event.topic === TOPIC).map((event) => (event.payload as { taskId: string }).taskId));
    };
    const completedSeenBy = async (task: TaskItem) => (await stores.reader.tasks.getTask(task.tenantId, task.id))?.status === "completed";
    /** The write and the append of one unit of work: the task completed, and announced. */
    const completeAndAnnounce = async (tx: Parameters<Parameters<UnitOfWork["inTransaction"]>[0]>[0], task: TaskItem) => {
      const written = await tx.tasks.updateIfStatusIn(task.tenantId, task.id, ["pending"], { status: "completed" });
      await tx.outbox.append({ topic: TOPIC, payload: { taskId: task.id }, originReplicaId: REPLICA });
      return written;
    };

    it("commits the write and the append together when the work resolves, and returns its result", async () => {
      const task = await createTask(fresh("tenant"));
      const written = await stores.unitOfWork.inTransaction((tx) => completeAndAnnounce(tx, task));
      expect(written).toMatchObject({ id: task.id, status: "completed" });
      expect(await completedSeenBy(task)).toBe(true);
      await eventually("the event to be readable", async () => (await announced()).has(task.id));
    });

    it("keeps neither the write nor the append when the work throws, and rethrows", async () => {
      const task = await createTask(fresh("tenant"));
      const failure = new Error("work failed after both");
      await expect(
        stores.unitOfWork.inTransaction(async (tx) => {
          await completeAndAnnounce(tx, task);
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect(await stores.reader.tasks.getTask(task.tenantId, task.id)).toEqual(task);
      // A later unit of work commits: an event of the failed one would be readable by then.
      const later = await createTask(fresh("tenant"));
      await stores.unitOfWork.inTransaction((tx) => completeAndAnnounce(tx, later));
      await eventually("the later event to be readable", async () => (await announced()).has(later.id));
      expect((await announced()).has(task.id)).toBe(false);
    });

    it("shows a peer neither the write nor the append while the work is open", async () => {
      const task = await createTask(fresh("tenant"));
      const written = gate();
      const release = gate();
      const work = stores.unitOfWork.inTransaction(async (tx) => {
        await completeAndAnnounce(tx, task);
        written.open();
        await release.passed;
      });
      await written.passed;
      expect(await stores.reader.tasks.getTask(task.tenantId, task.id)).toEqual(task);
      expect((await announced()).has(task.id)).toBe(false);
      release.open();
      await work;
      expect(await completedSeenBy(task)).toBe(true);
      await eventually("the event to be readable", async () => (await announced()).has(task.id));
    });

    it("never shows a racing peer an event whose write it cannot see, nor anything of a unit that threw", async () => {
      const tenant = fresh("tenant");
      const tasks = await Promise.all(Array.from({ length: 24 }, () => createTask(tenant)));
      const throws = (index: number) => index % 3 === 2;
      let done = false;
      const works = Promise.allSettled(
        tasks.map((task, index) =>
          stores.unitOfWork.inTransaction(async (tx) => {
            await completeAndAnnounce(tx, task);
            if (throws(index)) throw new Error("rolled back");
          }),
        ),
      ).finally(() => (done = true));
      let reads = 0;
      // Events first, then tasks: an event read before its task must find the task written.
      while (!done || reads < 2) {
        const events = await announced();
        const seen = await Promise.all(tasks.map(completedSeenBy));
        tasks.forEach((task, index) => {
          if (events.has(task.id)) expect(seen[index], `task ${index} announced but not written`).toBe(true);
          if (throws(index)) expect(seen[index] || events.has(task.id), `task ${index}'s rolled-back work seen`).toBe(false);
        });
        reads += 1;
      }
      const outcomes = await works;
      expect(outcomes.map((outcome) => outcome.status)).toEqual(tasks.map((_, index) => (throws(index) ? "rejected" : "fulfilled")));
      const kept = tasks.filter((_, index) => !throws(index)).map((task) => task.id);
      await eventually("every committed event to be readable", async () => {
        const events = await announced();
        return kept.every((id) => events.has(id));
      });
      expect((await Promise.all(tasks.map(completedSeenBy))).filter(Boolean)).toHaveLength(kept.length);
    });
  });
}
