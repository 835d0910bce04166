import type { FastifyReply } from "fastify";

/**
 * The headers LangGraph clients read from a run's answer, exposed to browsers by CORS: where the run
 * is (`Content-Location`, which the SDK's `onRunCreated` reads), where its stream resumes
 * (`Location`, which the SDK reconnects to with `Last-Event-ID`), and a search's pagination.
 */
export const LANGGRAPH_EXPOSED_HEADERS = ["content-location", "location", "x-pagination-next", "x-pagination-total"];

/** A thread's run: where clients read it, and (for a stream) where they resume following it. */
export function locateRun(reply: FastifyReply, threadId: string, runId: string, { resumable = false } = {}): void {
  reply.header("content-location", `/threads/${threadId}/runs/${runId}`);
  if (resumable) reply.header("location", `/threads/${threadId}/runs/${runId}/stream`);
}
