/**
 * Every stable `code` an axiom-lattice error carries, to HTTP clients and to library callers alike.
 * Each code has one meaning. Error classes declare theirs against this union and the gateway maps
 * each to an HTTP status in a table checked against it, so a code without a status fails to compile.
 */
export type ErrorCode =
  // The request itself (gateway).
  | "INVALID_REQUEST"
  | "INVALID_JSON"
  | "INVALID_TENANT"
  | "UNAUTHENTICATED"
  | "TOKEN_EXPIRED"
  | "TENANT_MISMATCH"
  | "FORBIDDEN"
  | "RATE_LIMITED"
  | "TOO_MANY_STREAMS"
  | "TOO_MANY_SUBMISSIONS"
  | "PAYLOAD_TOO_LARGE"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "CLIENT_ERROR"
  | "NOT_FOUND"
  | "AFFINITY_MISS"
  | "NOT_READY"
  | "INTERNAL_ERROR"
  // A part of the LangGraph API the gateway does not implement (a field value, a stream mode).
  | "NOT_SUPPORTED"
  // The database cannot be reached or is not serving (restart, failover, partition): retry later.
  | "DATABASE_UNAVAILABLE"
  // Stores: arguments no store may act on, and records that exist already.
  | "INVALID_STORE_ARGUMENT"
  // A page cursor no list of this kind returned (forged, truncated, or another list's).
  | "INVALID_CURSOR"
  | "ALREADY_EXISTS"
  // The message queue.
  | "QUEUE_FULL"
  | "DUPLICATE_MESSAGE"
  // Project rooms: an idempotency key sent again with another message.
  | "IDEMPOTENCY_KEY_REUSED"
  // Leases and the outbox: misuse by the calling code, or work that lost its lease.
  | "INVALID_LEASE_ARGUMENT"
  | "LEASE_ACQUIRE_TIMEOUT"
  | "LEASE_LOST"
  | "MUTEX_REENTRY"
  | "INVALID_OUTBOX_ARGUMENT"
  | "INVALID_OUTBOX_PAYLOAD"
  | "INVALID_OUTBOX_CURSOR"
  // Schedules.
  | "INVALID_CRON"
  | "INVALID_TIMEZONE"
  | "INVALID_SCHEDULE"
  | "EXECUTE_AT_IN_PAST"
  | "UNKNOWN_TASK_TYPE"
  | "SCHEDULE_NOT_FOUND"
  | "INVALID_SCHEDULE_STATE"
  // Agents and runs.
  | "ASSISTANT_NOT_FOUND"
  | "GRAPH_NOT_FOUND"
  | "THREAD_BUSY"
  | "RUN_IN_PROGRESS"
  | "NOTHING_TO_RESUME"
  | "GRAPH_RECURSION_LIMIT"
  | "INVALID_RUN_INPUT"
  | "INVALID_DIRECTIVE"
  | "UNKNOWN_MODEL_PROVIDER"
  // An assistant's model provider, or its model in the provider's catalogue, is switched off.
  | "MODEL_DISABLED"
  | "UNKNOWN_TOOL"
  | "TOOL_DISABLED"
  | "INVALID_BASE_URL"
  | "BASE_URL_NOT_ALLOWED"
  | "MCP_COMMAND_NOT_ALLOWED"
  | "SECRETS_REQUIRED"
  // A model provider's API failed a run (carried in the run's error chunk and record).
  | "UPSTREAM_UNREACHABLE"
  | "UPSTREAM_AUTH_FAILED"
  | "UPSTREAM_TIMEOUT"
  | "UPSTREAM_RATE_LIMITED"
  | "UPSTREAM_INVALID_RESPONSE"
  // The model API redirected the call to an address the egress policy refuses.
  | "UPSTREAM_REDIRECT_BLOCKED"
  // MCP servers: one could not be reached, or did not answer within its timeout.
  | "MCP_SERVER_UNAVAILABLE"
  // Tasks.
  | "INVALID_TASK_STATE"
  | "TASK_NOT_DISPATCHABLE"
  | "TASK_BUSY"
  // A project task's machine is held (by a pass, or a replica that died holding it) past a request's wait.
  | "TASK_MACHINE_BUSY"
  | "NOT_A_PROJECT_MEMBER";
