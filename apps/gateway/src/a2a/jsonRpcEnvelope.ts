import { isV1JsonRpcMethod } from "@a2a-js/sdk/compat/v0_3";
import type { Scope } from "../auth/principal";

/** JSON-RPC's own codes for requests it cannot even read (the SDK's handlers answer the rest). */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const VERSION_NOT_SUPPORTED = -32009;

export type A2aVersion = "1.0" | "0.3";

/** A JSON-RPC error answer; `id` is the request's when it could be read. */
export const jsonRpcError = (id: unknown, code: number, message: string) => ({ jsonrpc: "2.0" as const, id: validId(id) ? id : null, error: { code, message } });

const validId = (id: unknown): id is string | number => typeof id === "string" || (typeof id === "number" && Number.isInteger(id));

/** A request the SDK's handlers are given: one JSON-RPC 2.0 call, its method named. */
export interface JsonRpcCall {
  jsonrpc: "2.0";
  method: string;
  id?: unknown;
  params?: unknown;
}

/**
 * Reads a JSON-RPC body, or says why it cannot be one: not JSON (parse error), a batch (A2A names no
 * batches: one call per request, so a batch is refused whole and nothing in it runs), or not a call.
 */
export function readCall(body: string): JsonRpcCall | ReturnType<typeof jsonRpcError> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return jsonRpcError(null, PARSE_ERROR, "Parse error: the body is not JSON");
  }
  if (Array.isArray(parsed)) return jsonRpcError(null, INVALID_REQUEST, "Invalid Request: batches are not supported; send one JSON-RPC call per HTTP request");
  if (typeof parsed !== "object" || parsed === null) return jsonRpcError(null, INVALID_REQUEST, "Invalid Request: expected a JSON-RPC 2.0 call object");
  const call = parsed as Record<string, unknown>;
  if (call.jsonrpc !== "2.0" || typeof call.method !== "string" || call.method === "") {
    return jsonRpcError(call.id, INVALID_REQUEST, 'Invalid Request: a call needs "jsonrpc": "2.0" and a "method"');
  }
  return call as unknown as JsonRpcCall;
}

/**
 * The protocol version a call speaks: its `A2A-Version` header's, or, without one, the version whose
 * method it names (0.3 clients send no header; a hand-written 1.0 call may not either).
 */
export function versionOf(header: string | undefined, method: string): A2aVersion | undefined {
  if (header === undefined || header === "") return isV1JsonRpcMethod(method) ? "1.0" : "0.3";
  const major = header.trim().replace(/^(\d+\.\d+)(\.\d+)?$/, "$1");
  return major === "1.0" || major === "0.3" ? major : undefined;
}

const WRITES = new Set([
  "SendMessage",
  "SendStreamingMessage",
  "CancelTask",
  "CreateTaskPushNotificationConfig",
  "DeleteTaskPushNotificationConfig",
  "message/send",
  "message/stream",
  "tasks/cancel",
  "tasks/pushNotificationConfig/set",
  "tasks/pushNotificationConfig/delete",
]);

const RUN_STARTS = new Set(["SendMessage", "SendStreamingMessage", "message/send", "message/stream"]);

const STREAMS = new Set(["SendStreamingMessage", "SubscribeToTask", "message/stream", "tasks/resubscribe"]);

/** The scope a method needs: starting or cancelling work is a write, everything else reads. */
export const scopeOfMethod = (method: string): Scope => (WRITES.has(method) ? "write" : "read");

/** Whether a body is a call that may start a run (a message sent): what the tenants' run rate limit counts. */
export function startsRun(body: unknown): boolean {
  if (typeof body !== "string") return false;
  const call = readCall(body);
  return !("error" in call) && RUN_STARTS.has(call.method);
}

/** Whether a method answers with a stream (server-sent events) rather than one JSON answer. */
export const streamsAnswer = (method: string): boolean => STREAMS.has(method);

/** 0.3's `tasks/resubscribe` answers in a stream even when it fails at once (as 0.3 clients read it). */
export const alwaysStreams = (version: A2aVersion, method: string): boolean => version === "0.3" && method === "tasks/resubscribe";

