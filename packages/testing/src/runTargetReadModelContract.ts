import type { AssistantStore, RunTargetReadModel, ThreadStore } from "@axiom-lattice/protocols";
import { beforeAll, describe, expect, it } from "vitest";
import { fresh } from "./fresh";

export interface RunTargetReadModelHarness {
  /** A read model and the assistant and thread stores whose data it reads (one database, or one process's stores). */
  open(): Promise<{ readModel: RunTargetReadModel; assistants: AssistantStore; threads: ThreadStore }>;
}

/**
 * The {@link RunTargetReadModel} contract. Every implementation runs this same suite, so their
 * semantics cannot drift; what it reads is written through the assistant and thread stores.
 */
export function runTargetReadModelContract(name: string, harness: RunTargetReadModelHarness): void {
  describe(`RunTargetReadModel contract: ${name}`, () => {
    let readModel: RunTargetReadModel;
    let assistants: AssistantStore;
    let threads: ThreadStore;
    beforeAll(async () => {
      ({ readModel, assistants, threads } = await harness.open());
    });

    it("finds the assistant and the thread each as its store has them, whichever is missing", async () => {
      const tenant = fresh("tenant");
      const { id: assistantId } = await assistants.createAssistant(tenant, { name: "A", model: { provider: "scripted" } });
      await threads.createThread(tenant, { id: "t", assistantId, metadata: { n: 1 } });
      await threads.updateThread(tenant, "t", { seen: true }, { ttlMinutes: 5, config: { configurable: { a: 1 } } });
      const stored = await threads.getThread(tenant, "t");

      expect(await readModel.findRunTarget(tenant, assistantId, "t")).toEqual({ assistantFound: true, thread: stored });
      expect(await readModel.findRunTarget(tenant, "no-assistant", "t")).toEqual({ assistantFound: false, thread: stored });
      expect(await readModel.findRunTarget(tenant, assistantId, "no-thread")).toEqual({ assistantFound: true, thread: null });
      expect(await readModel.findRunTarget(tenant, "no-assistant", "no-thread")).toEqual({ assistantFound: false, thread: null });

      expect(await assistants.deleteAssistant(tenant, assistantId)).toBe(true);
      expect(await readModel.findRunTarget(tenant, assistantId, "t")).toEqual({ assistantFound: false, thread: stored });
    });

    it("finds nothing of another tenant's", async () => {
      const [tenant, other] = [fresh("tenant"), fresh("tenant")];
      const { id: assistantId } = await assistants.createAssistant(tenant, { name: "A", model: { provider: "scripted" } });
      await threads.createThread(tenant, { id: "t", assistantId });
      expect(await readModel.findRunTarget(other, assistantId, "t")).toEqual({ assistantFound: false, thread: null });
    });

    it("refuses bad arguments with INVALID_STORE_ARGUMENT", async () => {
      for (const [tenant, assistantId, threadId] of [
        ["", "a", "t"],
        ["tenant", "", "t"],
        ["tenant", "a", ""],
        ["tenant", "a", "t\u0000"],
      ]) {
        await expect(readModel.findRunTarget(tenant, assistantId, threadId)).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
      }
    });
  });
}
