/** Where LangGraph Platform tells the SDK its own address: a `new Client()` made without `apiUrl` calls it. */
const PLATFORM_URL = Symbol.for("langgraph_api:url");

/**
 * Points an SDK `Client` made without an `apiUrl`, in a deployed graph or the operator's routes, at
 * this gateway, as the platform points it at itself. It calls the gateway over HTTP, as any client:
 * with authentication on, it must send a key.
 */
export function exposeLoopbackUrl(url: string): void {
  (globalThis as Record<symbol, unknown>)[PLATFORM_URL] = url;
}

/** This gateway's own address, once it listens. */
export function loopbackUrl(): string | undefined {
  return (globalThis as Record<symbol, unknown>)[PLATFORM_URL] as string | undefined;
}

/** A path of this gateway's own (`/custom/webhook`), as the platform takes a relative webhook. */
export const isOwnPath = (url: string) => url.startsWith("/") && !url.startsWith("//");
