import type { QuickPrompt } from "./stores/webApp";

// The postMessage protocol between a host page and the embedded web-app page. Pure checks, so the
// page, the host script and the gateway judge every message alike. Anything not exactly right is
// ignored (null), never half-read.

export const EMBED_SOURCE = "axiom-web-app-embed";
export const EMBED_VERSION = 1;

export const EMBED_MESSAGE_TYPES = ["axiom:hello", "axiom:identity", "axiom:send", "axiom:config"] as const;
export type EmbedMessageType = (typeof EMBED_MESSAGE_TYPES)[number];

/** Longest text `axiom:send` (and a run's message) may carry. */
export const MAX_EMBED_MESSAGE_CHARS = 32_768;
export const MAX_QUICK_PROMPTS = 6;
export const MAX_QUICK_LABEL_CHARS = 40;
export const MAX_QUICK_TEXT_CHARS = 500;
/** Longest web-app token `axiom:identity` may carry. */
export const MAX_EMBED_TOKEN_CHARS = 8 * 1024;

/** End-user ids, as a web-app token's `sub` names them. */
export const WEB_APP_USER_ID_PATTERN = /^[A-Za-z0-9._:@-]{1,128}$/;

export interface EmbedEnvelope<T extends EmbedMessageType = EmbedMessageType, P = unknown> {
  source: typeof EMBED_SOURCE;
  version: typeof EMBED_VERSION;
  type: T;
  payload: P;
}

/** What `axiom:config` keeps: each field only when it is valid. */
export interface EmbedConfig {
  welcome?: string;
  /** An empty array clears the quick prompts. */
  quicks?: QuickPrompt[];
}

export type EmbedMessage =
  | EmbedEnvelope<"axiom:hello", Record<string, never>>
  | EmbedEnvelope<"axiom:identity", { token: string }>
  | EmbedEnvelope<"axiom:send", { text: string }>
  | EmbedEnvelope<"axiom:config", EmbedConfig>;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const textWithin = (value: unknown, max: number): value is string => typeof value === "string" && value.length >= 1 && value.length <= max;

/** A quick prompt with exactly `label` (1-40 characters) and `text` (1-500), or null. */
export function readQuickPrompt(value: unknown): QuickPrompt | null {
  if (!isRecord(value)) return null;
  const keys = Object.keys(value);
  if (keys.length !== 2 || !keys.includes("label") || !keys.includes("text")) return null;
  const { label, text } = value;
  return textWithin(label, MAX_QUICK_LABEL_CHARS) && textWithin(text, MAX_QUICK_TEXT_CHARS) ? { label, text } : null;
}

/**
 * The quick prompts an array keeps: invalid entries skipped, at most 6. `[]` clears them (kept as
 * `[]`); an array of only invalid entries, or not an array, is ignored (null).
 */
export function readQuickPrompts(value: unknown): QuickPrompt[] | null {
  if (!Array.isArray(value)) return null;
  if (value.length === 0) return [];
  const valid = value.map(readQuickPrompt).filter((quick): quick is QuickPrompt => quick !== null);
  return valid.length === 0 ? null : valid.slice(0, MAX_QUICK_PROMPTS);
}

/** `axiom:config`'s payload, or null when neither a non-empty `welcome` nor usable `quicks` is left. */
export function readEmbedConfig(payload: unknown): EmbedConfig | null {
  if (!isRecord(payload)) return null;
  const config: EmbedConfig = {};
  if (typeof payload.welcome === "string" && payload.welcome.length > 0) config.welcome = payload.welcome;
  const quicks = readQuickPrompts(payload.quicks);
  if (quicks !== null) config.quicks = quicks;
  return config.welcome === undefined && config.quicks === undefined ? null : config;
}

/** The embed message `data` is, checked: the envelope, the type and its payload; null for anything else. */
export function readEmbedMessage(data: unknown): EmbedMessage | null {
  if (!isRecord(data) || data.source !== EMBED_SOURCE || data.version !== EMBED_VERSION) return null;
  const { payload } = data;
  switch (data.type) {
    case "axiom:hello":
      return { source: EMBED_SOURCE, version: EMBED_VERSION, type: "axiom:hello", payload: {} };
    case "axiom:identity":
      return isRecord(payload) && textWithin(payload.token, MAX_EMBED_TOKEN_CHARS)
        ? { source: EMBED_SOURCE, version: EMBED_VERSION, type: "axiom:identity", payload: { token: payload.token } }
        : null;
    case "axiom:send":
      return isRecord(payload) && textWithin(payload.text, MAX_EMBED_MESSAGE_CHARS)
        ? { source: EMBED_SOURCE, version: EMBED_VERSION, type: "axiom:send", payload: { text: payload.text } }
        : null;
    case "axiom:config": {
      const config = readEmbedConfig(payload);
      return config ? { source: EMBED_SOURCE, version: EMBED_VERSION, type: "axiom:config", payload: config } : null;
    }
    default:
      return null;
  }
}

/** An envelope of `type` around `payload`, as either side posts it. */
export const embedEnvelope = <T extends EmbedMessageType, P>(type: T, payload: P): EmbedEnvelope<T, P> => ({ source: EMBED_SOURCE, version: EMBED_VERSION, type, payload });
