import type { AddMessageParams, AssistantStore, MessageQueueStore, RunTargetReadModel, ThreadStore } from "@axiom-lattice/protocols";
import { beforeAll, describe, expect, it } from "vitest";
import { fresh } from "./fresh";

export interface RunTargetReadModelHarness {
  /**
   * A read model, the assistant and thread stores whose data it reads, and a queue store whose adds
   * with `requireTarget` judge the same data (one database, or one process's stores).
   */
  open(): Promise<{ readModel: RunTargetReadModel; assistants: AssistantStore; threads: ThreadStore; queue: MessageQueueStore }>;
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
    let queue: MessageQueueStore;
    beforeAll(async () => {
      ({ readModel, assistants, threads, queue } = await harness.open());
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

    it("lets a queue add with requireTarget through only to the tenant's assistant and its thread, refusing the assistant first and adding nothing", async () => {
      const [tenant, other] = [fresh("tenant"), fresh("tenant")];
      const { id: assistantId } = await assistants.createAssistant(tenant, { name: "A", model: { provider: "scripted" } });
      const { id: otherAssistant } = await assistants.createAssistant(tenant, { name: "B", model: { provider: "scripted" } });
      await threads.createThread(tenant, { id: "t", assistantId });
      await threads.createThread(tenant, { id: "of-b", assistantId: otherAssistant });
      const add = (tenantId: string, assistant: string, threadId: string): AddMessageParams => ({
        threadId,
        scope: { tenantId, assistantId: assistant },
        content: { text: "hi" },
        requireTarget: true,
      });
      const refusals: [AddMessageParams, string][] = [
        [add(tenant, "no-assistant", "t"), "Assistant no-assistant not found"],
        [add(tenant, "no-assistant", "no-thread"), "Assistant no-assistant not found"],
        [add(tenant, assistantId, "no-thread"), `Thread no-thread not found for assistant ${assistantId}`],
        [add(tenant, assistantId, "of-b"), `Thread of-b not found for assistant ${assistantId}`],
        [add(other, assistantId, "t"), `Assistant ${assistantId} not found`],
      ];
      for (const [params, message] of refusals) {
        const refused = { name: "RunTargetNotFoundError", code: "NOT_FOUND", message };
        await expect(queue.addMessage(params)).rejects.toMatchObject(refused);
        await expect(queue.addMessageAtHead(params)).rejects.toMatchObject(refused);
        await expect(queue.addMessageIfCapacity({ ...params, capacity: 1 })).rejects.toMatchObject(refused);
        expect(await queue.getQueueSize({ threadId: params.threadId, ...params.scope })).toBe(0);
      }

      const added = await queue.addMessage(add(tenant, assistantId, "t"));
      expect(added).toMatchObject({ threadId: "t", tenantId: tenant, assistantId, status: "pending", content: { text: "hi" } });
      expect(await queue.addMessageAtHead(add(tenant, assistantId, "t"))).toMatchObject({ threadId: "t" });
      expect(await queue.getQueueSize({ threadId: "t", tenantId: tenant, assistantId })).toBe(2);

      expect(await assistants.deleteAssistant(tenant, assistantId)).toBe(true);
      await expect(queue.addMessage(add(tenant, assistantId, "t"))).rejects.toMatchObject({ code: "NOT_FOUND", message: `Assistant ${assistantId} not found` });
      expect(await queue.getQueueSize({ threadId: "t", tenantId: tenant, assistantId })).toBe(2);
    });

    it("refuses a queue add's requireTarget that is not a boolean, or names no tenant or assistant, with INVALID_STORE_ARGUMENT", async () => {
      const base = { threadId: "t", content: "hi" };
      for (const params of [
        { ...base, scope: { tenantId: "tenant", assistantId: "a" }, requireTarget: "yes" },
        { ...base, scope: { assistantId: "a" }, requireTarget: true },
        { ...base, scope: { tenantId: "tenant" }, requireTarget: true },
      ]) {
        await expect(queue.addMessage(params as AddMessageParams)).rejects.toMatchObject({ code: "INVALID_STORE_ARGUMENT" });
      }
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
