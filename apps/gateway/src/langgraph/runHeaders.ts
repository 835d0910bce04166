import type { FastifyReply } from "fastify";

/**
 * The headers LangGraph clients read from a run's answer, exposed to browsers by CORS: where the run
 * is (`Content-Location`, which the SDK's `onRunCreated` reads), where its stream resumes
 * (`Location`, which the SDK reconnects to with `Last-Event-ID`), and a search's pagination.
 */
export const LANGGRAPH_EXPOSED_HEADERS = ["content-location", "location", "x-pagination-next", "x-pagination-total"];

/**
 * A run: where clients read it, and (for a stream) where they resume following it; under its thread,
 * or, named without one (`threadId` undefined, as a stateless run is), under `/runs`.
 */
export function locateRun(reply: FastifyReply, threadId: string | undefined, runId: string, { resumable = false } = {}): void {
  const run = threadId === undefined ? `/runs/${runId}` : `/threads/${threadId}/runs/${runId}`;
  reply.header("content-location", run);
  if (resumable) reply.header("location", `${run}/stream`);
}
