import { ROOM_MESSAGE_MAX_CHARS } from "@axiom-lattice/core";
import type { ProjectRoomMessage, ProjectRoomScope } from "@axiom-lattice/protocols";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { principalOf, tenantOf } from "../auth/authentication";
import { HttpError } from "../http/errors";
import { pageBody, pageQuery, pageView } from "../http/pageWire";
import { type SseSettingsSource, gatewaySseOptions, openSseStream } from "../http/sse";
import type { TenantStreams } from "../http/tenantStreams";
import { BODY_CODES, INPUT_CODES, apiErrors } from "../openapi/errorResponses";
import { followRoom, resumePointOf } from "../rooms/followRoom";
import type { ProjectRoomEventBroker } from "../rooms/projectRoomEventBroker";
import { messageCreatedEvent } from "../rooms/roomEvent";
import { roomMessageView, roomView, toRoomMessageView, toRoomView } from "../rooms/roomViews";
import { idSchema } from "../http/ids";
import type { GatewayStores } from "../stores/gatewayStores";

export interface RoomRoutesOptions extends SseSettingsSource {
  stores: Pick<GatewayStores, "projects" | "rooms" | "roomMessages">;
  roomEvents: ProjectRoomEventBroker;
  streams: TenantStreams;
}

const projectParams = z.object({ projectId: idSchema });
const roomParams = z.object({ projectId: idSchema, roomId: idSchema });

const createRoomSchema = z.strictObject({
  id: idSchema.optional().describe("Chosen by the client, unique within the project; generated when absent"),
  name: z.string().trim().min(1).max(200),
});

const postMessageSchema = z.strictObject({
  content: z.string().min(1).max(ROOM_MESSAGE_MAX_CHARS),
});

const postMessageHeaders = z.looseObject({
  "idempotency-key": z
    .string()
    .regex(/^[\x21-\x7e]{1,200}$/, "must be 1-200 printable ASCII characters")
    .optional()
    .describe("Retries with the same key store the message once and answer it again (200 instead of 201)"),
});

const eventsHeaders = z.looseObject({
  "last-event-id": z
    .string()
    .max(512)
    .optional()
    .describe("The id of the last event received (a message's sequence, or `0` for the whole history): the stream replays the messages after it, on any replica"),
});

const roomEventStream = z.string().describe(
  "Server-sent events `data: {\"id\", \"type\", \"scope\": {\"tenant_id\", \"project_id\", \"room_id\"}, \"data\", \"created_at\"}`: " +
    "`message.created` (`data` is the message, as `GET …/messages` answers it), with `id: <the message's sequence>`, every message once and in sequence order; " +
    "and `task.status` (`data` is the lifecycle event of a task of the project, as `GET /api/tasks/events` sends it), live only, without an id line. " +
    "Also without an id line: `{\"type\":\"stream.replay_incomplete\",\"data\":{\"last_event_id\"}}` first when `Last-Event-ID` names no message of the room (read the history), " +
    "`{\"type\":\"stream.end\",\"data\":{\"reason\"}}` last when the server ends the stream (`slow_subscriber`, `broker_closed`, `history_unavailable`, …). Comment lines are heartbeats.",
);

const tags = ["rooms"];

/** Rooms of a tenant's projects: create and list, post and page messages, follow events live (SSE). */
export const roomRoutes: FastifyPluginAsyncZod<RoomRoutesOptions> = async (app, options) => {
  const { projects, rooms, roomMessages } = options.stores;
  const { roomEvents } = options;

  const projectNotFound = (id: string) => new HttpError("NOT_FOUND", `Project ${id} not found`);
  /** The room, or 404: another tenant's room is as absent as one that never was. */
  const requireRoom = async (scope: ProjectRoomScope) => {
    const room = await rooms.getRoom(scope.tenantId, scope.projectId, scope.roomId);
    if (!room) throw new HttpError("NOT_FOUND", `Room ${scope.roomId} not found in project ${scope.projectId}`);
    return room;
  };
  const scopeOf = (tenantId: string, params: z.output<typeof roomParams>): ProjectRoomScope => ({ tenantId, ...params });
  // Room streams never end by themselves: closing the server ends them (clients reconnect elsewhere),
  // or it would wait for them until the shutdown timeout.
  app.addHook("preClose", async () => roomEvents.close());

  app.post(
    "/api/projects/:projectId/rooms",
    {
      schema: {
        tags,
        summary: "Create a room in a project",
        params: projectParams,
        body: createRoomSchema,
        response: { 201: roomView, ...apiErrors(...BODY_CODES, "NOT_FOUND", "ALREADY_EXISTS") },
      },
    },
    async (request, reply) => {
      const room = await rooms.createRoom(tenantOf(request), request.params.projectId, request.body);
      if (!room) throw projectNotFound(request.params.projectId);
      return reply.status(201).send(toRoomView(room));
    },
  );

  app.get(
    "/api/projects/:projectId/rooms",
    {
      schema: {
        tags,
        summary: "List a project's rooms, in creation order, a page at a time",
        params: projectParams,
        querystring: z.strictObject(pageQuery),
        response: { 200: pageView("rooms", roomView), ...apiErrors(...INPUT_CODES, "NOT_FOUND", "INVALID_CURSOR") },
      },
    },
    async (request) => {
      const tenant = tenantOf(request);
      // An empty list would not tell a project without rooms from no project at all.
      if (!(await projects.getProject(tenant, request.params.projectId))) throw projectNotFound(request.params.projectId);
      return pageBody("rooms", await rooms.listRooms(tenant, request.params.projectId, request.query), toRoomView);
    },
  );

  app.post(
    "/api/projects/:projectId/rooms/:roomId/messages",
    {
      schema: {
        tags,
        summary: "Post a message to a room; its subscribers receive `message.created`",
        description:
          "Send an `Idempotency-Key` header to make retries safe: the first post with a key stores the message (201), every later one answers it again (200) " +
          "and stores nothing; a later post with the key and another content is refused (409 `IDEMPOTENCY_KEY_REUSED`).",
        params: roomParams,
        headers: postMessageHeaders,
        body: postMessageSchema,
        response: {
          201: roomMessageView.describe("Stored"),
          200: roomMessageView.describe("Stored before, under this idempotency key"),
          ...apiErrors(...BODY_CODES, "NOT_FOUND", "IDEMPOTENCY_KEY_REUSED"),
        },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const scope = scopeOf(principal.tenantId, request.params);
      const idempotencyKey = request.headers["idempotency-key"];
      const authorId = principal.subject ?? "anonymous";
      const appended = await roomMessages.appendMessage(scope, {
        authorType: "user",
        authorId,
        content: request.body.content,
        ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
      });
      if (!appended) throw new HttpError("NOT_FOUND", `Room ${scope.roomId} not found in project ${scope.projectId}`);
      const { message, created } = appended;
      if (message.content !== request.body.content || message.authorId !== authorId) {
        throw new HttpError("IDEMPOTENCY_KEY_REUSED", `Idempotency-Key ${idempotencyKey} was used for another message in this room`);
      }
      publishMessageCreated(message);
      return reply.status(created ? 201 : 200).send(toRoomMessageView(message));
    },
  );

  /**
   * Tells the room's subscribers. The message id is the fact's key: a retry, or a peer's copy of this
   * event, is delivered once (a retry also publishes, in case the first attempt stopped before it).
   */
  const publishMessageCreated = (message: ProjectRoomMessage) => roomEvents.publishEvent(messageCreatedEvent(message), message.id);

  app.get(
    "/api/projects/:projectId/rooms/:roomId/messages",
    {
      schema: {
        tags,
        summary: "Read a room's history, oldest first, a page at a time",
        params: roomParams,
        querystring: z.strictObject(pageQuery),
        response: { 200: pageView("messages", roomMessageView), ...apiErrors(...INPUT_CODES, "NOT_FOUND", "INVALID_CURSOR") },
      },
    },
    async (request) => {
      const scope = scopeOf(tenantOf(request), request.params);
      await requireRoom(scope);
      return pageBody("messages", await roomMessages.listMessages(scope, request.query), toRoomMessageView);
    },
  );

  app.get(
    "/api/projects/:projectId/rooms/:roomId/events",
    {
      schema: {
        tags,
        summary: "Follow a room's events live (SSE); with Last-Event-ID, replay what followed it first",
        description:
          "Events are published by the replica that stored their fact and mirrored to every replica's subscribers. " +
          "With `Last-Event-ID` (a message's sequence), any replica replays the messages after it from the history, then follows live. " +
          "An id that names no message of the room (a `task.status` event's, or one from before this version) starts with `stream.replay_incomplete`: " +
          "read the history (`GET …/messages`) for what you missed.",
        params: roomParams,
        headers: eventsHeaders,
        response: { 200: { description: "The room's events", content: { "text/event-stream": { schema: roomEventStream } } }, ...apiErrors(...INPUT_CODES, "NOT_FOUND", "TOO_MANY_STREAMS") },
      },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const scope = scopeOf(tenantId, request.params);
      const lastEventId = request.headers["last-event-id"];
      const resumePoint = lastEventId === undefined ? undefined : resumePointOf(lastEventId);
      if (lastEventId !== undefined && resumePoint === undefined) {
        throw new HttpError("INVALID_REQUEST", `Invalid Last-Event-ID header: expected an event id as the stream sent it, got ${JSON.stringify(lastEventId.slice(0, 100))}`);
      }
      await requireRoom(scope);
      const place = options.streams.take(tenantId);
      // Placed before the head is sent: once a client has it, every later post reaches its stream.
      const follower = await followRoom(roomEvents, roomMessages, scope, resumePoint).catch((error: unknown) => {
        place();
        throw error;
      });
      const sse = openSseStream(reply, gatewaySseOptions(options, place));
      if (!follower.replayComplete) sse.send(undefined, { type: "stream.replay_incomplete", data: { last_event_id: lastEventId } });
      follower.start({
        // Waiting for the client to take each event is what makes a stalled one a slow subscriber.
        send: async (id, serialized) => {
          if (sse.sendSerialized(id, serialized)) await sse.drained();
        },
        end: (reason) => {
          sse.send(undefined, { type: "stream.end", data: { reason } });
          sse.end();
        },
      });
      reply.raw.on("close", () => follower.close());
      if (sse.closed) follower.close();
    },
  );
};
