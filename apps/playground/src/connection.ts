/**
 * Where the page finds the gateway and who it is there. The page needs no build-time setting: it is
 * served at `<gateway>/playground/` and talks to the gateway it came from, under whatever prefix a
 * proxy put before it.
 */
export const API_URL = new URL("..", window.location.href).href.replace(/\/$/, "");

/** A bearer token (authentication on) and a tenant (`x-tenant-id`, authentication off); both optional. */
export interface Credentials {
  token: string;
  tenant: string;
}

// Kept for the tab only: a reload keeps them, closing the tab forgets the token.
const STORAGE_KEY = "axiom-playground:credentials";

export function savedCredentials(): Credentials {
  const saved = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? "{}") as Partial<Credentials>;
  return { token: saved.token ?? "", tenant: saved.tenant ?? "" };
}

export function saveCredentials(credentials: Credentials): void {
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(credentials));
}

/** How the gateway tells tenants apart: by the bearer token (authentication on), or by the `x-tenant-id` a request names. */
export type Authentication = "bearer" | "none";

/**
 * What the gateway's root says of its authentication. A gateway that does not say (one from before it
 * did, or a root a proxy hides) is taken to read `x-tenant-id`, as the page always assumed.
 */
export async function gatewayAuthentication(): Promise<Authentication> {
  try {
    const root = (await (await fetch(`${API_URL}/`)).json()) as { authentication?: unknown };
    return root.authentication === "bearer" ? "bearer" : "none";
  } catch {
    return "none";
  }
}

/** The SDK client's `apiKey` (sent as `x-api-key`) and headers for these credentials; no tenant where the token decides it. */
export function clientOptions({ token, tenant }: Credentials, authentication: Authentication): { apiKey: string | null; defaultHeaders: Record<string, string> } {
  const named = authentication === "none" ? tenant.trim() : "";
  return { apiKey: token.trim() || null, defaultHeaders: named ? { "x-tenant-id": named } : {} };
}

/** The page's address keeps the assistant and the thread, so a reload (or a shared link) opens the same conversation. */
export function readLocation(): { assistantId?: string; threadId?: string } {
  const params = new URLSearchParams(window.location.search);
  return { assistantId: params.get("assistant") ?? undefined, threadId: params.get("thread") ?? undefined };
}

export function writeLocation(changes: { assistantId?: string | null; threadId?: string | null }): void {
  const url = new URL(window.location.href);
  for (const [param, value] of [["assistant", changes.assistantId], ["thread", changes.threadId]] as const) {
    if (value === null) url.searchParams.delete(param);
    else if (value !== undefined) url.searchParams.set(param, value);
  }
  window.history.replaceState(null, "", url);
}
