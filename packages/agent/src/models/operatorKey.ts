/** OpenAI's API: where the built-in `openai` provider answers when a config names no base URL. */
export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";

const OPENAI_ORIGIN = new URL(OPENAI_DEFAULT_BASE_URL).origin;

/**
 * The operator's own key (the gateway reads OPENAI_API_KEY) for a call to `baseUrl`, when the config
 * names no key: only OpenAI's API is sent it. A base URL is the tenant's to point anywhere, a server
 * of their own included, which would receive the operator's key.
 */
export function operatorKeyFor(baseUrl: string | undefined, operatorKey: string | undefined): string | undefined {
  if (!operatorKey || baseUrl === undefined) return operatorKey;
  return URL.canParse(baseUrl) && new URL(baseUrl).origin === OPENAI_ORIGIN ? operatorKey : undefined;
}
