import { langGraphReadModelContract, runTargetReadModelContract, unitOfWorkContract } from "@axiom-lattice/testing";
import { describe, expect, it } from "vitest";
import { createInMemoryStores } from "../../src";

// The bundle's unit of work writes through the bundle's own task store and outbox.
unitOfWorkContract("in-memory bundle", async () => {
  const { unitOfWork, tasks, outbox } = createInMemoryStores();
  return { unitOfWork, tasks, reader: { tasks, outbox } };
});

// The bundle's LangGraph read model reads the bundle's own thread and queue stores.
langGraphReadModelContract("in-memory bundle", {
  async open() {
    const { langGraph, threads, queue } = createInMemoryStores();
    return { readModel: langGraph, threads, queue };
  },
});

// The bundle's run target read model reads the bundle's own assistant and thread stores, and its queue judges adds by them.
runTargetReadModelContract("in-memory bundle", {
  async open() {
    const { runTargets, assistants, threads, queue } = createInMemoryStores();
    return { readModel: runTargets, assistants, threads, queue };
  },
});

describe("createInMemoryStores", () => {
  it("wires the stores to each other: rooms belong to its projects, its room messages to its rooms", async () => {
    const { projects, rooms, roomMessages } = createInMemoryStores();
    await projects.createProject("tenant", { id: "p", name: "P" });
    await rooms.createRoom("tenant", "p", { id: "r", name: "R" });
    expect(await roomMessages.appendMessage({ tenantId: "tenant", projectId: "p", roomId: "r" }, { authorType: "user", authorId: "u", content: "hi" })).toMatchObject({ created: true });
    // Another bundle has no such project: its room store answers as for a missing one.
    expect(await createInMemoryStores().rooms.createRoom("tenant", "p", { id: "r", name: "R" })).toBeNull();
  });
});
