import type { Scope } from "./principal";

/**
 * The scope every `/api` route needs, by method and route pattern. A route missing here is refused
 * to everyone (and a test fails), so no new route can go out unclassified.
 */
export const ROUTE_SCOPES: Readonly<Record<string, Scope>> = {
  "GET /api/assistants": "read",
  "GET /api/assistants/:id": "read",
  "POST /api/assistants": "write",
  "PATCH /api/assistants/:id": "write",
  "DELETE /api/assistants/:id": "write",
  // Providers hold API keys and name the URLs the gateway calls: changing them is an admin's job.
  "GET /api/model-providers": "read",
  "GET /api/model-providers/:id": "read",
  "POST /api/model-providers": "admin",
  "PATCH /api/model-providers/:id": "admin",
  "DELETE /api/model-providers/:id": "admin",
  "GET /api/projects": "read",
  "GET /api/projects/:id": "read",
  "GET /api/projects/:id/bots": "read",
  "POST /api/projects": "write",
  "PATCH /api/projects/:id": "write",
  "DELETE /api/projects/:id": "write",
  "PUT /api/projects/:id/bots/:assistantId": "write",
  "DELETE /api/projects/:id/bots/:assistantId": "write",
  "GET /api/projects/:projectId/rooms": "read",
  "GET /api/projects/:projectId/rooms/:roomId/messages": "read",
  "GET /api/projects/:projectId/rooms/:roomId/events": "read",
  "POST /api/projects/:projectId/rooms": "write",
  "POST /api/projects/:projectId/rooms/:roomId/messages": "write",
  "POST /api/tasks/:id/dispatch": "write",
  "POST /api/tasks/:id/cancel": "write",
  "POST /api/tasks/:id/resume": "write",
  "GET /api/tasks": "read",
  "GET /api/tasks/events": "read",
  "GET /api/tasks/:id": "read",
  "GET /api/tasks/:id/result": "read",
  "GET /api/tasks/:id/runs": "read",
  "POST /api/tasks": "write",
  "PATCH /api/tasks/:id": "write",
  "DELETE /api/tasks/:id": "write",
  "GET /api/threads": "read",
  "GET /api/threads/:id": "read",
  "GET /api/threads/:id/state": "read",
  "GET /api/threads/:id/queue": "read",
  "GET /api/threads/:id/runs": "read",
  "POST /api/threads": "write",
  "DELETE /api/threads/:id": "write",
  "POST /api/runs": "write",
  "POST /api/runs/resume_stream": "read",
  "POST /api/runs/abort": "write",
  "POST /api/runs/recover": "admin",
  "GET /api/schedules": "read",
  "GET /api/schedules/:id": "read",
  "POST /api/schedules": "write",
  "DELETE /api/schedules/:id": "write",
  "POST /api/schedules/:id/pause": "write",
  "POST /api/schedules/:id/resume": "write",
  // A tenant's MCP servers are shared by all its assistants, and stdio ones run a command here.
  "GET /api/mcp-configs": "read",
  "GET /api/mcp-configs/:key": "read",
  "GET /api/mcp-configs/:key/tools": "read",
  "POST /api/mcp-configs": "admin",
  "PATCH /api/mcp-configs/:key": "admin",
  "DELETE /api/mcp-configs/:key": "admin",
  "POST /api/mcp-configs/:key/connect": "admin",
  "POST /api/mcp-configs/:key/disconnect": "admin",
  // Switching a tool off stops it for every assistant of the tenant: an admin's kill switch.
  "GET /api/plugins": "read",
  "PATCH /api/plugins/:name": "admin",
  // Cluster-wide: every tenant's replicas and lease counts.
  "GET /api/cluster": "admin",
};

/** The scope a request to `method url-pattern` needs; `undefined` for a route nobody classified. */
export const routeScope = (method: string, url: string): Scope | undefined => ROUTE_SCOPES[`${method === "HEAD" ? "GET" : method} ${url}`];
