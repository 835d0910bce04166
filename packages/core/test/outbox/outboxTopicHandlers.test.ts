import { MCP_CONFIG_CHANGED_TOPIC, type McpConfigChangedEvent, PLUGIN_CATALOG_CHANGED_TOPIC, SCHEDULE_CHANGED_TOPIC } from "@axiom-lattice/protocols";
import { eventually, recordingLogger } from "@axiom-lattice/testing";
import { afterEach, describe, expect, it } from "vitest";
import { InMemoryOutboxStore, OutboxArgumentError, OutboxPoller, outboxHandlersOf } from "../../src";

const pollers: OutboxPoller[] = [];
afterEach(async () => {
  await Promise.all(pollers.splice(0).map((poller) => poller.stop()));
});

describe("outboxHandlersOf", () => {
  it("hands a topic's handler only payloads its parser accepts; the poller logs the others and goes on", async () => {
    const store = new InMemoryOutboxStore();
    const { logger, entries } = recordingLogger();
    const reconciled: McpConfigChangedEvent[] = [];
    const poller = new OutboxPoller({
      store,
      owner: "self",
      logger,
      wakeups: null,
      handlers: outboxHandlersOf({ [MCP_CONFIG_CHANGED_TOPIC]: (event) => void reconciled.push(event) }),
    });
    pollers.push(poller);
    await poller.start();
    // As a peer's JSON may be: an untyped topic lets any payload through to the store.
    const topic: string = MCP_CONFIG_CHANGED_TOPIC;
    await store.append({ topic, payload: { tenantId: "t" }, originReplicaId: "peer" });
    await store.append({ topic, payload: "text", originReplicaId: "peer" });
    // A row of the removed `assistant-changed` topic, as an older replica may have left: ignored.
    await store.append({ topic: "assistant-changed", payload: { tenantId: "t" }, originReplicaId: "peer" });
    await store.append({ topic: MCP_CONFIG_CHANGED_TOPIC, payload: { tenantId: "t", serverKey: "calc" }, originReplicaId: "peer" });
    poller.wake();
    await eventually("the well-formed event to arrive", () => reconciled.length === 1);
    expect(reconciled).toEqual([{ tenantId: "t", serverKey: "calc" }]);
    expect(poller.stats()).toMatchObject({ delivered: 1, failed: 2, ignored: 1 });
    const refusals = entries.filter((entry) => entry.level === "warn" && (entry.fields as { topic?: string }).topic === MCP_CONFIG_CHANGED_TOPIC);
    expect(refusals).toHaveLength(2);
  });

  it("joins the areas' handlers and refuses two handlers of one topic", () => {
    const handlers = outboxHandlersOf({ [PLUGIN_CATALOG_CHANGED_TOPIC]: () => {} }, { [SCHEDULE_CHANGED_TOPIC]: () => {} });
    expect(Object.keys(handlers).sort()).toEqual([PLUGIN_CATALOG_CHANGED_TOPIC, SCHEDULE_CHANGED_TOPIC]);
    expect(() => outboxHandlersOf({ [SCHEDULE_CHANGED_TOPIC]: () => {} }, { [SCHEDULE_CHANGED_TOPIC]: () => {} })).toThrow(OutboxArgumentError);
  });

  it("types a known topic's payload at append (checked by the typecheck)", async () => {
    const store = new InMemoryOutboxStore();
    // @ts-expect-error: an MCP change names its server
    await store.append({ topic: MCP_CONFIG_CHANGED_TOPIC, payload: { tenantId: "t" }, originReplicaId: "self" });
    // @ts-expect-error: a schedule change names a task, not a tenant
    await store.append({ topic: SCHEDULE_CHANGED_TOPIC, payload: { tenantId: "t" }, originReplicaId: "self" });
    expect(await store.listAfter(null, 10)).toHaveLength(2);
  });
});
