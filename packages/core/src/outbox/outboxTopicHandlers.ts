import { MCP_CONFIG_CHANGED_TOPIC, type OutboxEvent, type OutboxPayloads, type OutboxTopic, PLUGIN_CATALOG_CHANGED_TOPIC, PROJECT_TASK_ADMISSION_TOPIC, ROOM_EVENT_TOPIC, SCHEDULE_CHANGED_TOPIC, TASK_LIFECYCLE_TOPIC, WEB_APP_CHANGED_TOPIC } from "@axiom-lattice/protocols";
import { OutboxArgumentError, OutboxPayloadError } from "./outboxErrors";
import type { OutboxHandler } from "./outboxPoller";
import { isId, isOptionalString, isRecord } from "./payloadShapes";
import { isProjectTaskAdmissionEvent, isTaskLifecycleEvent } from "./taskPayloads";

/** Recognises a well-formed payload of one topic in a peer's JSON. */
export type OutboxPayloadParser<T extends OutboxTopic> = (payload: unknown) => payload is OutboxPayloads[T];

// Typed by the protocols' topic map: a topic without a parser, or a parser of another shape, does not compile.
const PARSERS: { readonly [T in OutboxTopic]: OutboxPayloadParser<T> } = {
  [TASK_LIFECYCLE_TOPIC]: isTaskLifecycleEvent,
  [PROJECT_TASK_ADMISSION_TOPIC]: isProjectTaskAdmissionEvent,
  [ROOM_EVENT_TOPIC]: (payload): payload is OutboxPayloads[typeof ROOM_EVENT_TOPIC] =>
    isRecord(payload) &&
    isRecord(payload.scope) &&
    isId(payload.scope.tenantId) &&
    isId(payload.scope.projectId) &&
    isId(payload.scope.roomId) &&
    typeof payload.serialized === "string" &&
    isOptionalString(payload.sourceKey) &&
    payload.sourceKey !== "",
  [MCP_CONFIG_CHANGED_TOPIC]: (payload): payload is OutboxPayloads[typeof MCP_CONFIG_CHANGED_TOPIC] =>
    isRecord(payload) && isId(payload.tenantId) && isId(payload.serverKey),
  [PLUGIN_CATALOG_CHANGED_TOPIC]: (payload): payload is OutboxPayloads[typeof PLUGIN_CATALOG_CHANGED_TOPIC] => isRecord(payload) && isId(payload.tenantId),
  [SCHEDULE_CHANGED_TOPIC]: (payload): payload is OutboxPayloads[typeof SCHEDULE_CHANGED_TOPIC] => isRecord(payload) && isId(payload.taskId),
  [WEB_APP_CHANGED_TOPIC]: (payload): payload is OutboxPayloads[typeof WEB_APP_CHANGED_TOPIC] => isRecord(payload) && isId(payload.tenantId) && isId(payload.webAppId),
};

/** Whether `payload` is a well-formed payload of `topic`. */
export function isOutboxPayload<T extends OutboxTopic>(topic: T, payload: unknown): payload is OutboxPayloads[T] {
  return PARSERS[topic](payload);
}

/** Handles one topic's parsed payloads from peers. Handlers must be idempotent: delivery is at-least-once. */
export type OutboxTopicHandler<T extends OutboxTopic> = (payload: OutboxPayloads[T], event: OutboxEvent) => void | Promise<void>;

/** The topics one area of a gateway handles (tasks, rooms, MCP, plugins, schedules). */
export type OutboxTopicHandlers = { readonly [T in OutboxTopic]?: OutboxTopicHandler<T> };

/**
 * The poller's handler table from each area's handlers. Every payload passes its topic's parser first:
 * a malformed one is refused with {@link OutboxPayloadError}, which the poller logs and skips, so it
 * reaches no handler. Two areas handling one topic is a wiring mistake, refused here.
 */
export function outboxHandlersOf(...areas: OutboxTopicHandlers[]): Record<string, OutboxHandler> {
  const handlers: Record<string, OutboxHandler> = {};
  for (const area of areas) {
    for (const topic of Object.keys(area) as OutboxTopic[]) {
      const handle = area[topic] as OutboxHandler | undefined;
      if (!handle) continue;
      if (Object.hasOwn(handlers, topic)) throw new OutboxArgumentError(`Two handlers for the outbox topic "${topic}"`);
      handlers[topic] = (payload, event) => {
        if (!isOutboxPayload(topic, payload)) throw new OutboxPayloadError(`Malformed "${topic}" payload from the outbox`);
        return handle(payload, event);
      };
    }
  }
  return handlers;
}
