import { type SseEvent, type SseFollower, followPostedSse } from "@axiom-lattice/testing";
import type { Pool } from "pg";
import { tokenFor } from "./auth";
import { eventually } from "./client";
import { ASSISTANT } from "./workloads";

/** A run's stream as a client reads it live: `mode: "stream"`, or `resume_stream` from a position. */
export interface RunStream {
  /** Where it resumed from: events after this index only. */
  after: number;
  /** The replica that served it (`x-axiom-replica`). */
  replicaId: string;
  follower: SseFollower;
}

/** A message the scripted model streams one word every `msPerWord` ms, `words` words (plus its prefix). */
export const dripping = (msPerWord: number, words: number) => `/drip ${msPerWord} ${Array.from({ length: words }, (_, i) => `w${i}`).join(" ")}`;

const authorized = async () => ({ authorization: `Bearer ${await tokenFor("default")}` });

function opened(follower: SseFollower, after: number): RunStream {
  return { after, replicaId: follower.headers.get("x-axiom-replica") ?? "", follower };
}

/** Posts `text` to the thread with `mode: "stream"` and follows the answer. */
export async function streamRun(url: string, threadId: string, messageId: string, text: string): Promise<RunStream> {
  const body = { assistant_id: ASSISTANT, thread_id: threadId, message: text, message_id: messageId, mode: "stream" };
  return opened(await followPostedSse(`${url}/api/runs`, body, await authorized()), -1);
}

/**
 * Follows the message with `resume_stream`: from the start, after `after` (in the body), or after a
 * `Last-Event-ID` (`lastEventId`); `headers` add to the request (an affinity header, say).
 */
export async function resumeRun(
  url: string,
  run: { threadId: string; messageId: string; after?: number; lastEventId?: string },
  headers: Record<string, string> = {},
): Promise<RunStream> {
  const body = { assistant_id: ASSISTANT, thread_id: run.threadId, ...(run.lastEventId === undefined ? { message_id: run.messageId } : {}), ...(run.after === undefined ? {} : { after: run.after }) };
  const position: Record<string, string> = run.lastEventId === undefined ? {} : { "last-event-id": run.lastEventId };
  const follower = await followPostedSse(`${url}/api/runs/resume_stream`, body, { ...(await authorized()), ...position, ...headers });
  return opened(follower, run.lastEventId === undefined ? (run.after ?? -1) : indexOf({ id: run.lastEventId }));
}

/**
 * Opens `resume_stream` through the balancer until one lands on a replica other than `owner` (the
 * others are closed): a follower that reads the run from the log.
 */
export async function resumeElsewhere(url: string, run: { threadId: string; messageId: string }, owner: string): Promise<RunStream> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const stream = await resumeRun(url, run);
    if (stream.replicaId !== owner) return stream;
    await stream.follower.close();
  }
  throw new Error(`20 resume_stream requests all landed on ${owner}: the balancer does not spread them`);
}

/** An event's index, from its SSE id `<message id>:<index>`. */
export const indexOf = (event: Pick<SseEvent, "id">) => Number(event.id!.slice(event.id!.lastIndexOf(":") + 1));

/** An event as the log holds it, to compare what a stream carried with what was logged. */
export interface LoggedEvent {
  index: number;
  type: string;
  data: unknown;
}

export const asLogged = (event: SseEvent): LoggedEvent => ({ index: indexOf(event), type: event.type, data: event.data });

/** The message's run event log, as an operator reads it. */
export async function runLog(pool: Pool, messageId: string): Promise<LoggedEvent[]> {
  const { rows } = await pool.query<LoggedEvent>(
    "SELECT event_index AS index, type, data FROM lattice_run_events WHERE message_id = $1 ORDER BY event_index",
    [messageId],
  );
  return rows;
}

/** The message's log once it holds its final event (logged just after the run completed). */
export async function finishedRunLog(pool: Pool, messageId: string): Promise<LoggedEvent[]> {
  return eventually(
    async () => {
      const logged = await runLog(pool, messageId);
      return logged.at(-1)?.type === "message_completed" ? logged : undefined;
    },
    60_000,
    `the run of ${messageId} logged to its end`,
  );
}

/** The replica running the message now (its claim's), once one does. */
export async function runningReplica(pool: Pool, messageId: string): Promise<string> {
  return eventually(
    async () => {
      const { rows } = await pool.query<{ replica_id: string | null }>("SELECT replica_id FROM lattice_thread_message_queue WHERE id = $1 AND status = 'processing'", [
        messageId,
      ]);
      return rows[0]?.replica_id ?? undefined;
    },
    10_000,
    `${messageId} running`,
  );
}

/** The text of the message's answer as the stream carried it: the tokens of its last attempt. */
export function answerOf(events: SseEvent[]): string {
  const resumed = events.map((event) => event.type).lastIndexOf("run_resumed");
  return events
    .slice(resumed + 1)
    .filter((event) => event.type === "message_chunk")
    .map((event) => (event.data as { content: string }).content)
    .join("");
}
