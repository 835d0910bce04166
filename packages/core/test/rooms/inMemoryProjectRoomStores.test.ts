import { projectRoomMessageStoreContract, projectRoomStoreContract } from "@axiom-lattice/testing";
import { expect, it } from "vitest";
import { InMemoryProjectRoomMessageStore, InMemoryProjectRoomStore, InMemoryProjectStore, getStoreLattice } from "../../src";

const inMemoryStores = async () => {
  const projects = new InMemoryProjectStore();
  const rooms = new InMemoryProjectRoomStore(projects);
  return { projects, rooms, messages: new InMemoryProjectRoomMessageStore(rooms) };
};

projectRoomStoreContract("in-memory", inMemoryStores);
projectRoomMessageStoreContract("in-memory", inMemoryStores);

it("are the default room stores, over the default projects", async () => {
  expect(getStoreLattice("default", "projectRoom")).toBeInstanceOf(InMemoryProjectRoomStore);
  expect(getStoreLattice("default", "projectRoomMessage")).toBeInstanceOf(InMemoryProjectRoomMessageStore);
  await getStoreLattice("default", "project").createProject("t", { id: "p", name: "P" });
  await getStoreLattice("default", "projectRoom").createRoom("t", "p", { id: "r", name: "R" });
  const scope = { tenantId: "t", projectId: "p", roomId: "r" };
  expect(await getStoreLattice("default", "projectRoomMessage").appendMessage(scope, { authorType: "system", authorId: "s", content: "hi" })).toMatchObject({ created: true });
});
