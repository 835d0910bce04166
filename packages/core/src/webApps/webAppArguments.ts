import {
  type CreateWebAppRequest,
  type QuickPrompt,
  type UpdateWebAppRequest,
  type WebApp,
  WEB_APP_IDENTITY_MODES,
  WEB_APP_STATUSES,
  WEB_APP_USER_ID_PATTERN,
  type WebAppAppearance,
  MAX_QUICK_PROMPTS,
  readQuickPrompt,
} from "@axiom-lattice/protocols";
import { StoreArgumentError, optionalText, requireObject, requireText } from "../stores/storeArguments";

// Checks shared by every WebAppStore, so bad input is refused alike and before any write.

/** A web app as a store writes it: every field of the answer's but the derived ones, and the preview key. */
export type ValidWebApp = Omit<WebApp, "tenantId" | "hasSecret" | "createdAt" | "updatedAt"> & { previewSecret: string };

export type ValidWebAppUpdate = Omit<UpdateWebAppRequest, "appearance"> & { appearance?: NonNullable<UpdateWebAppRequest["appearance"]> };

const ACCENT_COLOR = /^#(?:[0-9a-fA-F]{3}){1,2}$/;

function oneOf<T extends string>(value: unknown, allowed: readonly T[], what: string): T {
  if (!allowed.includes(value as T)) throw new StoreArgumentError(`${what} must be one of ${allowed.join(", ")}, got ${String(value)}`);
  return value as T;
}

/** Quick prompts are refused whole when one is invalid: an operator's configuration is never half-kept. */
function validateQuicks(value: unknown): QuickPrompt[] {
  if (!Array.isArray(value) || value.length > MAX_QUICK_PROMPTS) throw new StoreArgumentError(`Web app quicks must be an array of at most ${MAX_QUICK_PROMPTS} quick prompts`);
  return value.map((entry, index) => {
    const quick = readQuickPrompt(entry);
    if (!quick) throw new StoreArgumentError(`Web app quicks[${index}] must have exactly a label (1-40 characters) and a text (1-500)`);
    return quick;
  });
}

function validateAccentColor(value: unknown): string {
  if (typeof value !== "string" || !ACCENT_COLOR.test(value)) throw new StoreArgumentError("Web app accentColor must be a hex colour, #rgb or #rrggbb");
  return value;
}

/** An origin exactly as browsers send it: `http(s)://host[:port]`, nothing after. */
export function validateWebAppOrigin(value: unknown): string {
  const text = requireText(value, "Web app allowed origin");
  let origin: string | undefined;
  try {
    const url = new URL(text);
    if (url.protocol === "http:" || url.protocol === "https:") origin = url.origin;
  } catch {
    // Reported below, as any other malformed origin.
  }
  if (origin !== text) throw new StoreArgumentError(`Web app allowed origin must be an http(s) origin such as https://shop.example.com, got ${JSON.stringify(text)}`);
  return text;
}

const validateOrigins = (value: unknown): string[] => {
  if (!Array.isArray(value)) throw new StoreArgumentError("Web app allowedOrigins must be an array of origins");
  return [...new Set(value.map(validateWebAppOrigin))];
};

export function validateCreateWebApp(request: CreateWebAppRequest): ValidWebApp {
  const checked = requireObject(request, "Web app");
  const appearance = requireObject(checked.appearance ?? {}, "Web app appearance");
  const valid: ValidWebApp = {
    id: requireWebAppId(checked.id),
    assistantId: requireText(checked.assistantId, "Web app assistantId"),
    name: requireText(checked.name, "Web app name"),
    status: oneOf(checked.status ?? "draft", WEB_APP_STATUSES, "Web app status"),
    appearance: { quicks: validateQuicks(appearance.quicks ?? []) },
    allowedOrigins: validateOrigins(checked.allowedOrigins ?? []),
    identityMode: oneOf(checked.identityMode ?? "signed", WEB_APP_IDENTITY_MODES, "Web app identityMode"),
    previewSecret: requireText(checked.previewSecret, "Web app previewSecret"),
  };
  const title = optionalText(appearance.title, "Web app title");
  const welcome = optionalText(appearance.welcome, "Web app welcome");
  if (title !== undefined) valid.appearance.title = title;
  if (welcome !== undefined) valid.appearance.welcome = welcome;
  if (appearance.accentColor !== undefined) valid.appearance.accentColor = validateAccentColor(appearance.accentColor);
  return valid;
}

export function validateUpdateWebApp(request: UpdateWebAppRequest): ValidWebAppUpdate {
  const checked = requireObject(request, "Web app update");
  const update: ValidWebAppUpdate = {};
  if (checked.assistantId !== undefined) update.assistantId = requireText(checked.assistantId, "Web app assistantId");
  if (checked.name !== undefined) update.name = requireText(checked.name, "Web app name");
  if (checked.status !== undefined) update.status = oneOf(checked.status, WEB_APP_STATUSES, "Web app status");
  if (checked.allowedOrigins !== undefined) update.allowedOrigins = validateOrigins(checked.allowedOrigins);
  if (checked.identityMode !== undefined) update.identityMode = oneOf(checked.identityMode, WEB_APP_IDENTITY_MODES, "Web app identityMode");
  if (checked.appearance !== undefined) {
    const appearance = requireObject(checked.appearance, "Web app appearance");
    const nullable = (value: unknown, check: (value: unknown) => string) => (value === null ? null : check(value));
    update.appearance = {};
    if (appearance.title !== undefined) update.appearance.title = nullable(appearance.title, (value) => requireText(value, "Web app title"));
    if (appearance.welcome !== undefined) update.appearance.welcome = nullable(appearance.welcome, (value) => requireText(value, "Web app welcome"));
    if (appearance.accentColor !== undefined) update.appearance.accentColor = nullable(appearance.accentColor, validateAccentColor);
    if (appearance.quicks !== undefined) update.appearance.quicks = validateQuicks(appearance.quicks);
  }
  return update;
}

/** An update's appearance applied over the stored one: `null` removes a field. */
export function updatedAppearance(stored: WebAppAppearance, update: ValidWebAppUpdate["appearance"]): WebAppAppearance {
  const next: WebAppAppearance = { ...stored };
  for (const [field, value] of Object.entries(update ?? {})) {
    if (value === null) delete next[field as "title" | "welcome" | "accentColor"];
    else Object.assign(next, { [field]: value });
  }
  return next;
}

export const requireWebAppId = (webAppId: unknown): string => requireText(webAppId, "Web app id");

export function requireWebAppUserId(userId: unknown): string {
  if (typeof userId !== "string" || !WEB_APP_USER_ID_PATTERN.test(userId)) {
    throw new StoreArgumentError(`Web app user id must match ${WEB_APP_USER_ID_PATTERN.source}`);
  }
  return userId;
}

export function requireSecretGrace(secret: unknown, previousValidUntil: unknown): { secret: string; previousValidUntil: Date } {
  if (!(previousValidUntil instanceof Date) || Number.isNaN(previousValidUntil.getTime())) throw new StoreArgumentError("previousValidUntil must be a valid Date");
  return { secret: requireText(secret, "Web app secret"), previousValidUntil };
}
