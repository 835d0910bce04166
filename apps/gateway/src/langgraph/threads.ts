import { RecordExistsError, TTL_MAX_MINUTES, boundedJson, jsonContains } from "@axiom-lattice/core";
import { ANY_ASSISTANT, type Thread, type ThreadFilter } from "@axiom-lattice/protocols";
import { randomUUID } from "node:crypto";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { principalOf, tenantOf } from "../auth/authentication";
import type { LanggraphServices } from "./langgraphServices";
import { stateGraphOf, threadGraphId } from "./graphAssistants";
import { HttpError } from "../http/errors";
import { idSchema, noContent } from "../http/ids";
import { mayUseThread, requireThread, threadScope } from "../shared/lookups";
import { bodyErrors, inputErrors } from "./errors";
import { checkpointObject, checkpointRefShape, requireCheckpoint, stateAddressOf } from "./checkpointRefs";
import { paginationQuery } from "./searchResults";
import { threadStateView, toThreadState } from "./stateView";
import { THREAD_STATUSES, type ThreadView, isThreadBusy, threadView, toThreadView } from "./threadView";
import { applySupersteps, checkStateUpdate, checkSupersteps, stateUpdateNode, stateValues, supersteps } from "./threadSupersteps";

const jsonObject = boundedJson(z.record(z.string().max(256), z.unknown()));

/** LangGraph's thread TTL, as the SDK sends it (a number of minutes becomes `{ ttl, strategy: "delete" }`). */
const ttlSchema = z
  .strictObject({
    ttl: z.number().positive().max(TTL_MAX_MINUTES).describe("Minutes: the thread is deleted this long after it was last used (created, updated, its state written, a run created)"),
    strategy: z.enum(["delete", "keep_latest"]).default("delete").describe("delete: the thread with its runs, checkpoints and events; keep_latest is not supported (NOT_SUPPORTED)"),
  })
  .nullable()
  .optional();

/** The TTL's minutes, if one is given; `keep_latest` is refused. */
const ttlMinutesOf = (ttl: z.output<typeof ttlSchema>): number | undefined => {
  if (ttl?.strategy === "keep_latest") throw new HttpError("NOT_SUPPORTED", "ttl.strategy keep_latest is not supported by this gateway: only delete");
  return ttl?.ttl;
};

const createSchema = z.strictObject({
  thread_id: idSchema.optional().describe("Chosen by the client, unique within the tenant; generated when absent"),
  metadata: jsonObject.optional(),
  if_exists: z.enum(["raise", "do_nothing"]).default("raise").describe("raise: 409 when the id is taken; do_nothing: answer the existing thread, unchanged"),
  ttl: ttlSchema,
  supersteps,
});

const patchSchema = z.strictObject({
  metadata: jsonObject.optional().describe("Merged into the stored metadata (top-level keys)"),
  ttl: ttlSchema.describe("Replaces the thread's TTL, counted from now"),
});

// The store orders by these; `status` and `state_updated_at` are read from each thread's run state, not stored.
const STORE_SORT = { thread_id: "id", created_at: "createdAt", updated_at: "updatedAt" } as const;
const SELECT_FIELDS = Object.keys(threadView.shape) as [keyof ThreadView, ...(keyof ThreadView)[]];

const searchSchema = z.strictObject({
  metadata: jsonObject.optional().describe("Only threads whose metadata contains this object"),
  ids: z.array(idSchema).max(1000).optional(),
  status: z.enum(THREAD_STATUSES).optional().describe("Read from each thread's queue and checkpoints: the search reads threads until the page is full"),
  values: jsonObject.optional().describe("Only threads whose state values contain this object (read like status)"),
  ...paginationQuery,
  sort_by: z.enum(["thread_id", "created_at", "updated_at"]).default("created_at"),
  sort_order: z.enum(["asc", "desc"]).default("desc"),
  select: z.array(z.enum(SELECT_FIELDS)).min(1).optional().describe("Only these fields of each thread"),
});

const countSchema = searchSchema.pick({ metadata: true, status: true, values: true });

/** What a search or count reads from each thread's state, not from the store. */
type StateFilter = Pick<z.output<typeof searchSchema>, "status" | "values">;

const updateStateSchema = z.strictObject({
  values: stateValues,
  as_node: stateUpdateNode.optional().describe("Write as if this node had returned the values"),
  ...checkpointRefShape,
});

const writtenCheckpoint = z.object({ thread_id: z.string(), checkpoint_ns: z.string(), checkpoint_id: z.string() });

const historySchema = z.strictObject({
  limit: z.number().int().min(1).max(1000).default(10),
  before: z.looseObject({ configurable: z.looseObject({ checkpoint_id: z.string().min(1).max(128) }) }).optional().describe("Only checkpoints older than this config's"),
  metadata: jsonObject.optional().describe("Only checkpoints whose metadata holds these values"),
  checkpoint: checkpointObject.optional().describe("A subgraph's checkpoints (`checkpoint_ns`, as a state's task names it) instead of the root graph's"),
});

const stateAtSchema = z.strictObject({
  checkpoint: checkpointObject.describe("The checkpoint (`checkpoint_id`), a subgraph's latest state (`checkpoint_ns`), or both"),
  subgraphs: z.boolean().optional().describe("true: each subgraph task's state too (its `state`); else where to read it (its `checkpoint`)"),
});

const threadParams = z.object({ thread_id: idSchema });
const checkpointParams = z.object({ thread_id: idSchema, checkpoint_id: z.string().min(1).max(128) });
const stateQuery = z.object({ subgraphs: z.enum(["true", "false"]).optional().describe("true: each subgraph task's state too (its `state`); else where to read it (its `checkpoint`)") });

/** How many threads a status or values search reads at once. */
const SCAN_PAGE = 100;

const tags = ["langgraph"];

/** The thread's config, which a deployed graph made by a factory is made from to read or write its state. */
const graphConfigOf = (thread: Thread) => (thread.config ? { graphConfig: thread.config } : {});

/**
 * The LangGraph API's threads: the gateway's threads, read with their status and state. A thread it
 * creates belongs to no assistant ({@link ANY_ASSISTANT}); one created by `/api` is served too.
 */
export const langgraphThreadRoutes: FastifyPluginAsyncZod<Pick<LanggraphServices, "stores" | "agents" | "graphs">> = async (app, gateway) => {
  const { threads, langGraph } = gateway.stores;
  const view = (thread: Thread) => toThreadView(gateway, thread);

  /**
   * Matches in the filter's order, `wanted` at most: a status or values filter reads threads page after
   * page until it has them. Whether a thread is busy is read from its queue alone, so a status filter
   * leaves out the threads that cannot match before their state is read; states are read for no more
   * candidates at once than matches are still wanted (a poll for one busy thread reads one state).
   */
  const scan = async (tenantId: string, filter: ThreadFilter, { status, values }: StateFilter, wanted: number): Promise<ThreadView[]> => {
    const matches: ThreadView[] = [];
    for (let read = 0; matches.length < wanted; read += SCAN_PAGE) {
      const batch = await langGraph.searchThreads(tenantId, { ...filter, limit: SCAN_PAGE, offset: read });
      const busy = status === undefined ? [] : await Promise.all(batch.map((thread) => isThreadBusy(gateway, thread)));
      const candidates = status === undefined ? batch : batch.filter((_, index) => busy[index] === (status === "busy"));
      for (let next = 0; next < candidates.length && matches.length < wanted; ) {
        const slice = candidates.slice(next, (next += Math.min(SCAN_PAGE, wanted - matches.length)));
        for (const candidate of await Promise.all(slice.map(view))) {
          if ((status === undefined || candidate.status === status) && (values === undefined || jsonContains(candidate.values, values))) matches.push(candidate);
        }
      }
      if (batch.length < SCAN_PAGE) break;
    }
    return matches;
  };

  /** A page of matches. */
  const search = async (tenantId: string, body: z.output<typeof searchSchema>): Promise<ThreadView[]> => {
    const filter: ThreadFilter = { metadata: body.metadata, ids: body.ids, sortBy: STORE_SORT[body.sort_by], sortOrder: body.sort_order };
    const { status, values, limit, offset } = body;
    if (status === undefined && values === undefined) return Promise.all((await langGraph.searchThreads(tenantId, { ...filter, limit, offset })).map(view));
    return (await scan(tenantId, filter, body, offset + limit)).slice(offset, offset + limit);
  };

  app.post(
    "/threads",
    {
      schema: {
        tags,
        summary: "Create a thread (LangGraph API); it belongs to no assistant",
        description: "With `supersteps`, the thread is created with their updates written into its state; should one fail, no thread is left.",
        body: createSchema,
        response: { 200: threadView, ...bodyErrors("ALREADY_EXISTS", "NOT_SUPPORTED") },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const { thread_id: id = randomUUID(), metadata, if_exists, ttl, supersteps: steps } = request.body;
      const ttlMinutes = ttlMinutesOf(ttl);
      if (steps) checkSupersteps(steps, stateGraphOf(gateway.graphs, { metadata: metadata ?? {} }));
      if (if_exists === "do_nothing") {
        const existing = await threads.getThread(tenantId, id);
        // Another assistant's thread, to a credential restricted away from it: taken, shown nothing of it.
        if (existing && !mayUseThread(principalOf(request), existing)) throw new RecordExistsError("thread", tenantId, id);
        if (existing) return view(existing);
      }
      const thread = await threads.createThread(tenantId, { id, assistantId: ANY_ASSISTANT, metadata, ttlMinutes });
      if (steps) await applySupersteps(gateway, thread, steps);
      return view(thread);
    },
  );

  app.post(
    "/threads/search",
    {
      schema: {
        tags,
        summary: "Search the tenant's threads (LangGraph API)",
        body: searchSchema,
        response: { 200: z.array(threadView.partial()), ...bodyErrors() },
      },
    },
    async (request) => {
      const page = await search(tenantOf(request), request.body);
      const select = request.body.select;
      return select ? page.map((thread) => Object.fromEntries(select.map((field) => [field, thread[field]]))) : page;
    },
  );

  app.post(
    "/threads/count",
    {
      schema: {
        tags,
        summary: "Count the tenant's threads that match (LangGraph API)",
        description: "Counted by reading the matching threads (with their status and values when filtered by them).",
        body: countSchema,
        response: { 200: z.number().int(), ...bodyErrors() },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const { metadata, status, values } = request.body;
      if (status !== undefined || values !== undefined) return (await scan(tenantId, { metadata }, request.body, Number.POSITIVE_INFINITY)).length;
      let counted = 0;
      for (let read = 0; ; read += SCAN_PAGE) {
        const batch = await langGraph.searchThreads(tenantId, { metadata, limit: SCAN_PAGE, offset: read });
        counted += batch.length;
        if (batch.length < SCAN_PAGE) return counted;
      }
    },
  );

  app.get(
    "/threads/:thread_id",
    { schema: { tags, summary: "Read a thread with its status and state (LangGraph API)", params: threadParams, response: { 200: threadView, ...inputErrors("NOT_FOUND") } } },
    async (request) => view(await requireThread(gateway, principalOf(request), request.params.thread_id)),
  );

  app.patch(
    "/threads/:thread_id",
    {
      schema: { tags, summary: "Change a thread's metadata or TTL (LangGraph API)", params: threadParams, body: patchSchema, response: { 200: threadView, ...bodyErrors("NOT_FOUND", "NOT_SUPPORTED") } },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const { thread_id: id } = request.params;
      const { metadata } = request.body;
      const ttlMinutes = ttlMinutesOf(request.body.ttl);
      await requireThread(gateway, principalOf(request), id);
      const thread =
        metadata === undefined && ttlMinutes === undefined ? await threads.getThread(tenantId, id) : await threads.updateThread(tenantId, id, metadata ?? {}, { ttlMinutes });
      if (!thread) throw new HttpError("NOT_FOUND", `Thread ${id} not found`);
      return view(thread);
    },
  );

  app.delete(
    "/threads/:thread_id",
    {
      schema: {
        tags,
        summary: "Delete a thread with its state, queued runs and run history (LangGraph API)",
        description: "Answers `409 THREAD_BUSY` while a run of the thread is in progress.",
        params: threadParams,
        response: { 204: noContent, ...inputErrors("NOT_FOUND", "THREAD_BUSY") },
      },
    },
    async (request, reply) => {
      const thread = await requireThread(gateway, principalOf(request), request.params.thread_id);
      await gateway.agents.deleteThread(threadScope(thread));
      return reply.status(204).send();
    },
  );

  app.get(
    "/threads/:thread_id/state",
    {
      schema: {
        tags,
        summary: "The thread's latest state (LangGraph API)",
        params: threadParams,
        querystring: stateQuery,
        response: { 200: threadStateView, ...inputErrors("NOT_FOUND") },
      },
    },
    async (request) => {
      const thread = await requireThread(gateway, principalOf(request), request.params.thread_id);
      return toThreadState(thread.id, await gateway.agents.getAgent(threadScope(thread)).stateSnapshot({ subgraphs: request.query.subgraphs === "true", ...graphConfigOf(thread) }));
    },
  );

  app.get(
    "/threads/:thread_id/state/:checkpoint_id",
    {
      schema: {
        tags,
        summary: "The thread's state at one of its checkpoints (LangGraph API)",
        params: checkpointParams,
        querystring: stateQuery,
        response: { 200: threadStateView, ...inputErrors("NOT_FOUND") },
      },
    },
    async (request) => {
      const thread = await requireThread(gateway, principalOf(request), request.params.thread_id);
      return toThreadState(thread.id, await requireCheckpoint(gateway.agents.getAgent(threadScope(thread)), thread.id, { checkpointId: request.params.checkpoint_id, subgraphs: request.query.subgraphs === "true", ...graphConfigOf(thread) }));
    },
  );

  app.post(
    "/threads/:thread_id/state/checkpoint",
    {
      schema: {
        tags,
        summary: "The thread's state at a checkpoint, or a subgraph's (LangGraph API)",
        params: threadParams,
        body: stateAtSchema,
        response: { 200: threadStateView, ...bodyErrors("NOT_FOUND") },
      },
    },
    async (request) => {
      const thread = await requireThread(gateway, principalOf(request), request.params.thread_id);
      return toThreadState(thread.id, await requireCheckpoint(gateway.agents.getAgent(threadScope(thread)), thread.id, { ...stateAddressOf(request.body), subgraphs: request.body.subgraphs === true, ...graphConfigOf(thread) }));
    },
  );

  app.post(
    "/threads/:thread_id/state",
    {
      schema: {
        tags,
        summary: "Write values into the thread's state between runs (LangGraph API)",
        description:
          "Answers `409 THREAD_BUSY` while a run of the thread is in progress: the update never interleaves with a run. With `checkpoint_id`, the values are written over that earlier checkpoint: the thread goes on from the new one (a fork).",
        params: threadParams,
        body: updateStateSchema,
        response: {
          200: z
            .object({ checkpoint: writtenCheckpoint, configurable: writtenCheckpoint })
            .describe("The new checkpoint, as LangGraph Platform answers it (`checkpoint`) and as the JS SDK's types read it (`configurable`)"),
          ...bodyErrors("NOT_FOUND", "THREAD_BUSY"),
        },
      },
    },
    async (request) => {
      const thread = await requireThread(gateway, principalOf(request), request.params.thread_id);
      const { values, as_node } = request.body;
      checkStateUpdate(stateGraphOf(gateway.graphs, thread), values, as_node);
      // A run queued but not yet started holds no lease: the update would slip in before it.
      if (await isThreadBusy(gateway, thread)) throw new HttpError("THREAD_BUSY", "Thread is busy: a run is queued or in progress; update its state once it ended");
      const at = stateAddressOf(request.body);
      if (at.checkpointId !== undefined || at.checkpointNs !== undefined) await requireCheckpoint(gateway.agents.getAgent(threadScope(thread)), thread.id, { ...at, ...graphConfigOf(thread) });
      const checkpointId = await gateway.agents.updateThreadState(threadScope(thread), {
        values,
        ...(as_node === undefined ? {} : { asNode: as_node }),
        ...at,
        graphId: threadGraphId(thread),
        ...graphConfigOf(thread),
      });
      // A use of the thread: its TTL, if it has one, restarts.
      if (thread.ttlMinutes !== undefined) await threads.touchThread(thread.tenantId, thread.id);
      const written = { thread_id: thread.id, checkpoint_ns: at.checkpointNs ?? "", checkpoint_id: checkpointId };
      return { checkpoint: written, configurable: written };
    },
  );

  app.post(
    "/threads/:thread_id/history",
    {
      schema: {
        tags,
        summary: "The thread's past states, newest first (LangGraph API)",
        params: threadParams,
        body: historySchema,
        response: { 200: z.array(threadStateView), ...bodyErrors("NOT_FOUND") },
      },
    },
    async (request) => {
      const thread = await requireThread(gateway, principalOf(request), request.params.thread_id);
      const { limit, before, metadata, checkpoint } = request.body;
      const { checkpointNs } = stateAddressOf({ checkpoint });
      const history = await gateway.agents.getAgent(threadScope(thread)).stateHistory({
        limit,
        before: before?.configurable.checkpoint_id,
        metadata,
        ...(checkpointNs === undefined ? {} : { checkpointNs }),
        ...graphConfigOf(thread),
      });
      return history.map((snapshot) => toThreadState(thread.id, snapshot));
    },
  );
};
