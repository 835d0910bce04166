import type { Pool } from "pg";
import { call, expectOk } from "./client";
import type { AcceptedMessage } from "./messageFeeds";
import { ASSISTANT } from "./workloads";

/** A message's row in the queue; a completed one is its run record. Times in ms (database clock). */
export interface QueueRow {
  id: string;
  status: string;
  runStatus: string;
  replicaId: string | null;
  startedMs: number | null;
  finishedMs: number | null;
  error: string | null;
}

export interface StateMessage {
  id?: string;
  type: string;
  content: string;
}

export interface AuditCounts {
  accepted: number;
  answeredOnce: number;
  lost: number;
  dup: number;
  outOfOrder: number;
  overlaps: number;
}

export interface ThreadAudit {
  threadId: string;
  counts: AuditCounts;
  /** One line per thing wrong, naming the message. */
  findings: string[];
  rows: QueueRow[];
  messages: StateMessage[];
}

/** The thread's queue rows (SQL: every run record, with microsecond times, none left off) and its state (HTTP). */
export async function readThread(pool: Pool, url: string, threadId: string): Promise<{ rows: QueueRow[]; messages: StateMessage[] }> {
  const [{ rows }, state] = await Promise.all([
    pool.query<QueueRow>(
      `SELECT id, status, run_status AS "runStatus", replica_id AS "replicaId",
              extract(epoch FROM started_at)::float8 * 1000 AS "startedMs",
              extract(epoch FROM finished_at)::float8 * 1000 AS "finishedMs",
              error
         FROM lattice_thread_message_queue
        WHERE thread_id = $1 AND tenant_id = 'default' AND assistant_id = $2
        ORDER BY sequence`,
      [threadId, ASSISTANT],
    ),
    expectOk<{ messages: StateMessage[] }>(call(url, "GET", `/api/threads/${threadId}/state`)),
  ]);
  return { rows, messages: state.messages };
}

interface Turn {
  question: StateMessage;
  /** Every message after the question, up to the next question. */
  replies: StateMessage[];
}

/**
 * Judges one thread against what its clients were told: every accepted message asked once and
 * answered once (`echo: <text>`, right after it), run once with success, all in acceptance order, and
 * no two runs at the same time.
 */
export function auditThread(threadId: string, accepted: AcceptedMessage[], rows: QueueRow[], messages: StateMessage[]): ThreadAudit {
  const counts: AuditCounts = { accepted: accepted.length, answeredOnce: 0, lost: 0, dup: 0, outOfOrder: 0, overlaps: 0 };
  const findings: string[] = [];
  const acceptedAt = new Map(accepted.map((message, index) => [message.messageId, index]));
  const runs = rows.filter((row) => row.status === "completed");

  const turns: Turn[] = [];
  for (const message of messages) {
    if (message.type === "human") turns.push({ question: message, replies: [] });
    else if (turns.length > 0) turns[turns.length - 1].replies.push(message);
    else findings.push(`dup: ${message.type} message before any question: ${message.content}`);
  }
  for (const { question } of turns) {
    if (question.id !== undefined && acceptedAt.has(question.id)) continue;
    findings.push(`dup: a question that was never accepted: ${question.id} "${question.content}"`);
  }
  counts.dup += findings.length;

  for (const message of accepted) {
    const { lost, dup } = judgeMessage(message, turns, rows, runs);
    const label = `${message.messageId} "${message.text}"`;
    if (lost.length > 0) {
      counts.lost++;
      findings.push(`lost: ${label}: ${lost.join("; ")}`);
    }
    if (dup.length > 0) {
      counts.dup++;
      findings.push(`dup: ${label}: ${dup.join("; ")}`);
    }
    if (lost.length === 0 && dup.length === 0) counts.answeredOnce++;
  }

  const byStart = [...runs].sort((a, b) => (a.startedMs ?? 0) - (b.startedMs ?? 0));
  const lateRuns = overtaken(byStart.map((run) => run.id), acceptedAt);
  const lateQuestions = overtaken(turns.map((turn) => turn.question.id ?? ""), acceptedAt);
  for (const [id, overtaker] of lateRuns) findings.push(`out of order: ${id} ran after ${overtaker}, which was accepted later`);
  for (const [id, overtaker] of lateQuestions) findings.push(`out of order: ${id} stands after ${overtaker} in the conversation`);
  counts.outOfOrder = new Set([...lateRuns.keys(), ...lateQuestions.keys()]).size;

  const overlaps = overlappingRuns(byStart);
  counts.overlaps = overlaps.length;
  findings.push(...overlaps);
  return { threadId, counts, findings, rows, messages };
}

/** Why an accepted message counts as lost, and as duplicated (both empty: answered once). */
function judgeMessage(message: AcceptedMessage, turns: Turn[], rows: QueueRow[], runs: QueueRow[]): { lost: string[]; dup: string[] } {
  const answer = `echo: ${message.text}`;
  const copies = turns.filter((turn) => turn.question.id === message.messageId);
  const replies = copies.flatMap((turn) => turn.replies);
  const answers = replies.filter((reply) => reply.type === "ai" && reply.content === answer).length;
  const records = runs.filter((run) => run.id === message.messageId);

  const lost: string[] = [];
  if (copies.length === 0) lost.push("not in the conversation");
  else if (answers === 0) lost.push(`no answer (replies: ${JSON.stringify(replies.map((reply) => reply.content))})`);
  if (records.length === 0) lost.push(`no run record (queue status ${rows.find((row) => row.id === message.messageId)?.status ?? "absent"})`);
  for (const run of records.filter((record) => record.runStatus !== "success")) lost.push(`run ${run.runStatus}: ${run.error}`);

  const dup: string[] = [];
  if (copies.length > 1) dup.push(`asked ${copies.length} times`);
  if (answers > 1 || replies.length > copies.length) dup.push(`${replies.length} replies, ${answers} of them its answer`);
  if (records.length > 1) dup.push(`${records.length} run records`);
  return { lost, dup };
}

/** Every pair of runs (sorted by start) where the later one started before the earlier one finished. */
function overlappingRuns(byStart: QueueRow[]): string[] {
  const overlaps: string[] = [];
  for (let i = 0; i < byStart.length; i++) {
    for (const later of byStart.slice(i + 1)) {
      if ((later.startedMs ?? 0) < (byStart[i].finishedMs ?? 0)) {
        overlaps.push(`overlap: ${later.id} (${later.replicaId}) started before ${byStart[i].id} (${byStart[i].replicaId}) finished`);
      }
    }
  }
  return overlaps;
}

/**
 * The messages that come after one accepted later than themselves, in `sequence` (ids; unknown ones
 * skipped): each mapped to the latest-accepted message that overtook it.
 */
function overtaken(sequence: string[], acceptedAt: Map<string, number>): Map<string, string> {
  const late = new Map<string, string>();
  let latest: string | undefined;
  for (const id of sequence) {
    const index = acceptedAt.get(id);
    if (index === undefined) continue;
    if (latest !== undefined && acceptedAt.get(latest)! > index) late.set(id, latest);
    else latest = id;
  }
  return late;
}

/** Adds up thread audits. */
export function totalCounts(audits: ThreadAudit[]): AuditCounts {
  const total: AuditCounts = { accepted: 0, answeredOnce: 0, lost: 0, dup: 0, outOfOrder: 0, overlaps: 0 };
  for (const { counts } of audits) {
    for (const key of Object.keys(total) as Array<keyof AuditCounts>) total[key] += counts[key];
  }
  return total;
}

/** A thread's findings, run records and conversation, for a failure report; times from `originMs` on. */
export function describeThread({ threadId, findings, rows, messages }: ThreadAudit, originMs: number): string {
  const at = (ms: number | null) => (ms === null ? "-" : `+${((ms - originMs) / 1000).toFixed(3)}s`);
  return [
    `===== thread ${threadId}`,
    ...findings.map((finding) => `  ! ${finding}`),
    "  runs (queue order): id status/run_status replica started finished error",
    ...rows.map((row) => `    ${row.id} ${row.status}/${row.runStatus} ${row.replicaId} ${at(row.startedMs)} ${at(row.finishedMs)} ${row.error ?? ""}`),
    "  conversation:",
    ...messages.map((message) => `    ${message.type} ${message.id ?? ""}: ${message.content}`),
  ].join("\n");
}
