import { projectRoomMessageStoreContract, projectRoomStoreContract } from "@axiom-lattice/testing";
import { InMemoryProjectRoomMessageStore, InMemoryProjectRoomStore, InMemoryProjectStore } from "../../src";

const inMemoryStores = async () => {
  const projects = new InMemoryProjectStore();
  const rooms = new InMemoryProjectRoomStore(projects);
  return { projects, rooms, messages: new InMemoryProjectRoomMessageStore(rooms) };
};

projectRoomStoreContract("in-memory", inMemoryStores);
projectRoomMessageStoreContract("in-memory", inMemoryStores);
