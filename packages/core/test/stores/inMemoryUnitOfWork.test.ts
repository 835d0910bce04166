import { unitOfWorkContract } from "@axiom-lattice/testing";
import { InMemoryOutboxStore, InMemoryTaskStore, InMemoryUnitOfWork } from "../../src";

unitOfWorkContract("in-memory", async () => {
  const tasks = new InMemoryTaskStore();
  const outbox = new InMemoryOutboxStore();
  return { unitOfWork: new InMemoryUnitOfWork({ tasks, outbox }), tasks, reader: { tasks, outbox } };
});
