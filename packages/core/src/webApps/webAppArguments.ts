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
import { z } from "zod";
import { fieldRules as rules } from "../validation/fieldRules";
import { definedFields, parseStoreArgument } from "../validation/parseStoreArgument";

// Checks shared by every WebAppStore, so bad input is refused alike and before any write.

/** A web app as a store writes it: every field of the answer's but the derived ones, and the preview key. */
export type ValidWebApp = Omit<WebApp, "tenantId" | "hasSecret" | "createdAt" | "updatedAt"> & { previewSecret: string };

export type ValidWebAppUpdate = Omit<UpdateWebAppRequest, "appearance"> & { appearance?: NonNullable<UpdateWebAppRequest["appearance"]> };

const ACCENT_COLOR = /^#(?:[0-9a-fA-F]{3}){1,2}$/;

// The browser's embed protocol reads quick prompts with `readQuickPrompt` (protocols, no zod there):
// the rule is that one, so a stored prompt is one the page shows. Refused whole when one is invalid:
// an operator's configuration is never half-kept.
const quickPrompt = z.custom<QuickPrompt>((entry) => readQuickPrompt(entry) !== null, "must have exactly a label (1-40 characters) and a text (1-500)");
const quicks = z
  .array(quickPrompt, { error: `must be an array of at most ${MAX_QUICK_PROMPTS} quick prompts` })
  .max(MAX_QUICK_PROMPTS, `must be an array of at most ${MAX_QUICK_PROMPTS} quick prompts`)
  .transform((entries) => entries.map((entry) => readQuickPrompt(entry) as QuickPrompt));
const accentColor = z.string({ error: "must be a hex colour, #rgb or #rrggbb" }).regex(ACCENT_COLOR, "must be a hex colour, #rgb or #rrggbb");

function isOrigin(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.origin === text;
  } catch {
    return false;
  }
}

/** An origin exactly as browsers send it: `http(s)://host[:port]`, nothing after. */
const webAppOrigin = rules.text.refine(isOrigin, "must be an http(s) origin such as https://shop.example.com");
const origins = z.array(webAppOrigin, { error: "must be an array of origins" }).transform((list) => [...new Set(list)]);
const status = z.enum(WEB_APP_STATUSES, { error: `must be one of ${WEB_APP_STATUSES.join(", ")}` });
const identityMode = z.enum(WEB_APP_IDENTITY_MODES, { error: `must be one of ${WEB_APP_IDENTITY_MODES.join(", ")}` });

export const validateWebAppOrigin = (value: unknown): string => parseStoreArgument(webAppOrigin, value, "Web app allowed origin");

const createSchema = z.object(
  {
    id: rules.text,
    assistantId: rules.text,
    name: rules.text,
    status: status.default("draft"),
    appearance: z
      .object({ title: rules.text.optional(), welcome: rules.text.optional(), accentColor: accentColor.optional(), quicks: quicks.default([]) }, { error: "must be an object" })
      .default({ quicks: [] }),
    allowedOrigins: origins.default([]),
    identityMode: identityMode.default("signed"),
    previewSecret: rules.text,
  },
  { error: "must be an object" },
);

// In an update's appearance, `null` removes a field.
const updateSchema = z
  .object(
    {
      assistantId: rules.text,
      name: rules.text,
      status,
      allowedOrigins: origins,
      identityMode,
      appearance: z
        .object({ title: rules.text.nullable(), welcome: rules.text.nullable(), accentColor: accentColor.nullable(), quicks }, { error: "must be an object" })
        .partial(),
    },
    { error: "must be an object" },
  )
  .partial();

export function validateCreateWebApp(request: CreateWebAppRequest): ValidWebApp {
  const valid = parseStoreArgument(createSchema, request, "Web app");
  return { ...valid, appearance: definedFields(valid.appearance) };
}

export function validateUpdateWebApp(request: UpdateWebAppRequest): ValidWebAppUpdate {
  const valid = definedFields(parseStoreArgument(updateSchema, request, "Web app update"));
  return valid.appearance ? { ...valid, appearance: definedFields(valid.appearance) } : valid;
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

export const requireWebAppId = (webAppId: unknown): string => parseStoreArgument(rules.text, webAppId, "Web app id");

const userId = z.string({ error: `must match ${WEB_APP_USER_ID_PATTERN.source}` }).regex(WEB_APP_USER_ID_PATTERN, `must match ${WEB_APP_USER_ID_PATTERN.source}`);

export const requireWebAppUserId = (value: unknown): string => parseStoreArgument(userId, value, "Web app user id");

const secretGrace = z.object({ secret: rules.text, previousValidUntil: rules.date });

export const requireSecretGrace = (secret: unknown, previousValidUntil: unknown): { secret: string; previousValidUntil: Date } =>
  parseStoreArgument(secretGrace, { secret, previousValidUntil }, "Web app secret rotation");
