import { randomBytes, randomUUID } from "node:crypto";
import { MAX_QUICK_LABEL_CHARS, MAX_QUICK_PROMPTS, MAX_QUICK_TEXT_CHARS, WEB_APP_IDENTITY_MODES, WEB_APP_STATUSES, WEB_APP_USER_ID_PATTERN, type WebApp, type WebAppIdentityMode, type WebAppStatus } from "@axiom-lattice/protocols";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { fieldRules as rules } from "@axiom-lattice/core";
import { z } from "zod";
import { tenantOf } from "../auth/authentication";
import { issuePreviewToken } from "../auth/webAppTokens";
import { WEB_APP_PREVIEW_TOKEN_TTL_S, WEB_APP_SECRET_GRACE_MS } from "../defaults";
import { HttpError } from "../http/errors";
import { idParams, idSchema, noContent } from "../http/ids";
import { pageBody, pageQuery, pageView } from "../http/pageWire";
import { BODY_CODES, INPUT_CODES, apiErrors } from "../openapi/errorResponses";
import { requireAssistant } from "../shared/lookups";
import type { GatewayStores } from "../stores/gatewayStores";
import type { WebAppRuntime } from "../webApps/webAppRuntime";

export interface WebAppOperatorRoutesOptions {
  stores: Pick<GatewayStores, "webApps" | "assistants">;
  /** Told of each change, so that every replica ends the streams of a web app that stopped serving. */
  runtime: Pick<WebAppRuntime, "changed">;
}

const quickSchema = z.strictObject({ label: z.string().min(1).max(MAX_QUICK_LABEL_CHARS), text: z.string().min(1).max(MAX_QUICK_TEXT_CHARS) });
const originSchema = z
  .url({ protocol: /^https?$/ })
  .max(2048)
  .regex(/^[^/]+\/\/[^/]+$/, "must be an origin: scheme://host[:port]");
const identitySchema = z.strictObject({
  mode: z
    .enum(WEB_APP_IDENTITY_MODES)
    .describe(
      '"signed": the host\'s backend signs each user\'s token with the web app\'s secret. "anonymous": the page takes a visitor token from the gateway (`POST /web-apps/{id}/visitors`) and keeps it; host-signed tokens are then refused. Switching closes the web app to the other kind\'s tokens at once',
    ),
});

const appearanceFields = {
  title: rules.text.max(200),
  welcome: rules.text.max(2000).describe("Shown before the first message"),
  quicks: z.array(quickSchema).max(MAX_QUICK_PROMPTS).describe(`At most ${MAX_QUICK_PROMPTS} quick prompts, each exactly { label (1-40 characters), text (1-500) }`),
  accent_color: z.string().regex(/^#(?:[0-9a-fA-F]{3}){1,2}$/, "must be a hex colour, #rgb or #rrggbb"),
};

const createSchema = z.strictObject({
  assistant_id: idSchema.describe("The assistant end users chat with"),
  name: rules.text.max(200),
  status: z.enum(WEB_APP_STATUSES).default("draft").describe("draft: only preview tokens open it; published: end users' tokens too; disabled: nobody"),
  appearance: z.strictObject({ ...appearanceFields, title: appearanceFields.title.optional(), welcome: appearanceFields.welcome.optional(), quicks: appearanceFields.quicks.optional(), accent_color: appearanceFields.accent_color.optional() }).optional(),
  allowed_origins: z.array(originSchema).max(50).optional().describe("Origins that may frame the embed page and talk to it"),
  identity: identitySchema.optional(),
});

const updateSchema = z.strictObject({
  assistant_id: createSchema.shape.assistant_id.optional(),
  name: createSchema.shape.name.optional(),
  status: z.enum(WEB_APP_STATUSES).optional(),
  appearance: z
    .strictObject({
      title: appearanceFields.title.nullable().optional().describe("null removes it"),
      welcome: appearanceFields.welcome.nullable().optional().describe("null removes it"),
      quicks: appearanceFields.quicks.optional().describe("Replaces them; [] clears them"),
      accent_color: appearanceFields.accent_color.nullable().optional().describe("null removes it"),
    })
    .optional()
    .describe("The fields given change; the others stay"),
  allowed_origins: createSchema.shape.allowed_origins,
  identity: identitySchema.optional(),
});

const previewSchema = z.strictObject({
  user_id: z.string().regex(WEB_APP_USER_ID_PATTERN).default("preview").describe("The end user the token acts as"),
  expires_in: z.number().int().min(60).max(86_400).default(WEB_APP_PREVIEW_TOKEN_TTL_S).describe("Seconds"),
});

const webAppView = z
  .object({
    id: z.string().describe("Generated, unique across tenants: the runtime paths name it"),
    tenant_id: z.string(),
    assistant_id: z.string(),
    name: z.string(),
    status: z.enum(WEB_APP_STATUSES),
    appearance: z.object({ title: z.string().optional(), welcome: z.string().optional(), quicks: z.array(quickSchema), accent_color: z.string().optional() }),
    allowed_origins: z.array(z.string()),
    identity: z.object({ mode: z.enum(WEB_APP_IDENTITY_MODES) }),
    has_secret: z.boolean().describe("Whether a signing secret was issued; end users' tokens verify only then"),
    created_at: z.date(),
    updated_at: z.date(),
  })
  .meta({ id: "WebApp" });

const toWebAppView = (webApp: WebApp): z.infer<typeof webAppView> => ({
  id: webApp.id,
  tenant_id: webApp.tenantId,
  assistant_id: webApp.assistantId,
  name: webApp.name,
  status: webApp.status,
  appearance: { title: webApp.appearance.title, welcome: webApp.appearance.welcome, quicks: webApp.appearance.quicks, accent_color: webApp.appearance.accentColor },
  allowed_origins: webApp.allowedOrigins,
  identity: { mode: webApp.identityMode },
  has_secret: webApp.hasSecret,
  created_at: webApp.createdAt,
  updated_at: webApp.updatedAt,
});

/** The store's fields of a create or update body's appearance (`null` kept: it removes the field). */
function appearanceOf<A extends { accent_color?: string | null }>(appearance: A | undefined): (Omit<A, "accent_color"> & { accentColor?: Exclude<A["accent_color"], undefined> }) | undefined {
  if (appearance === undefined) return undefined;
  const { accent_color, ...rest } = appearance;
  return { ...rest, ...(accent_color === undefined ? {} : { accentColor: accent_color as Exclude<A["accent_color"], undefined> }) };
}

/** The store's fields of a create or update body (`null` in the appearance kept: it removes the field). */
function webAppFieldsOf<A extends { accent_color?: string | null }>(body: {
  assistant_id?: string;
  name?: string;
  status?: WebAppStatus;
  appearance?: A;
  allowed_origins?: string[];
  identity?: { mode: WebAppIdentityMode };
}) {
  return {
    assistantId: body.assistant_id,
    name: body.name,
    status: body.status,
    appearance: appearanceOf(body.appearance),
    allowedOrigins: body.allowed_origins,
    identityMode: body.identity?.mode,
  };
}

/** A secret end users' tokens are signed with: 256 random bits. */
const newSecret = () => randomBytes(32).toString("base64url");

const tags = ["web apps"];
const GRACE_HOURS = WEB_APP_SECRET_GRACE_MS / 3_600_000;

/** The tenant's agent web apps: assistants published to end users, their secrets and preview tokens. */
export const webAppOperatorRoutes: FastifyPluginAsyncZod<WebAppOperatorRoutesOptions> = async (app, options) => {
  const { webApps } = options.stores;
  const { runtime } = options;
  const notFound = (id: string) => new HttpError("NOT_FOUND", `Web app ${id} not found`);

  app.post(
    "/api/web-apps",
    {
      schema: {
        tags,
        summary: "Publish an assistant as a web app (a draft unless told otherwise)",
        description: "The answer has no secret: issue one with `POST /api/web-apps/{id}/secret` before end users' tokens can verify.",
        body: createSchema,
        response: { 201: webAppView, ...apiErrors(...BODY_CODES, "NOT_FOUND") },
      },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const { body } = request;
      const fields = webAppFieldsOf(body);
      await requireAssistant(options, tenantId, body.assistant_id);
      const webApp = await webApps.createWebApp(tenantId, { ...fields, assistantId: body.assistant_id, name: body.name, id: `webapp-${randomUUID()}`, previewSecret: newSecret() });
      return reply.status(201).send(toWebAppView(webApp));
    },
  );

  app.get(
    "/api/web-apps",
    {
      schema: {
        tags,
        summary: "List the tenant's web apps, oldest first",
        querystring: z.strictObject(pageQuery),
        response: { 200: pageView("web_apps", webAppView), ...apiErrors(...INPUT_CODES, "INVALID_CURSOR") },
      },
    },
    async (request) => pageBody("web_apps", await webApps.listWebApps(tenantOf(request), request.query), toWebAppView),
  );

  app.get(
    "/api/web-apps/:id",
    { schema: { tags, summary: "Read a web app", params: idParams, response: { 200: webAppView, ...apiErrors(...INPUT_CODES, "NOT_FOUND") } } },
    async (request) => {
      const webApp = await webApps.getWebApp(tenantOf(request), request.params.id);
      if (!webApp) throw notFound(request.params.id);
      return toWebAppView(webApp);
    },
  );

  app.patch(
    "/api/web-apps/:id",
    {
      schema: {
        tags,
        summary: "Change a web app (the fields given): publish, disable, restyle",
        params: idParams,
        body: updateSchema,
        response: { 200: webAppView, ...apiErrors(...BODY_CODES, "NOT_FOUND") },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const { body } = request;
      const fields = webAppFieldsOf(body);
      if (body.assistant_id !== undefined) await requireAssistant(options, tenantId, body.assistant_id);
      const webApp = await webApps.updateWebApp(tenantId, request.params.id, fields);
      if (!webApp) throw notFound(request.params.id);
      await runtime.changed(tenantId, webApp.id);
      return toWebAppView(webApp);
    },
  );

  app.delete(
    "/api/web-apps/:id",
    {
      schema: {
        tags,
        summary: "Remove a web app",
        description: "Its end users' threads stay the tenant's (`/api/threads`); nobody reaches them through the web app any more.",
        params: idParams,
        response: { 204: noContent, ...apiErrors(...INPUT_CODES, "NOT_FOUND") },
      },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      if (!(await webApps.deleteWebApp(tenantId, request.params.id))) throw notFound(request.params.id);
      await runtime.changed(tenantId, request.params.id);
      return reply.status(204).send();
    },
  );

  app.post(
    "/api/web-apps/:id/secret",
    {
      schema: {
        tags,
        summary: "Issue a new signing secret for end users' tokens",
        description: `The answer shows the secret once; it is stored sealed. The secret it replaces still verifies tokens for ${GRACE_HOURS} hours, while the host's backend moves to the new one; a secret replaced before is forgotten at once.`,
        params: idParams,
        response: {
          200: z.object({
            secret: z.string().describe("HS256 key of end users' tokens: shown this once"),
            previous_secret_valid_until: z.date().nullable().describe("Until when the replaced secret still verifies tokens; null when none was replaced"),
          }),
          ...apiErrors(...INPUT_CODES, "NOT_FOUND"),
        },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const before = await webApps.getWebApp(tenantId, request.params.id);
      const secret = newSecret();
      const validUntil = new Date(Date.now() + WEB_APP_SECRET_GRACE_MS);
      if (!before || !(await webApps.rotateSecret(tenantId, request.params.id, secret, validUntil))) throw notFound(request.params.id);
      return { secret, previous_secret_valid_until: before.hasSecret ? validUntil : null };
    },
  );

  app.post(
    "/api/web-apps/:id/preview-token",
    {
      schema: {
        tags,
        summary: "Mint a token to try the web app as an end user, a draft too",
        params: idParams,
        body: previewSchema.prefault({}),
        response: { 200: z.object({ token: z.string(), user_id: z.string(), expires_at: z.date() }), ...apiErrors(...BODY_CODES, "NOT_FOUND") },
      },
    },
    async (request) => {
      const { id } = request.params;
      const found = await webApps.getWebAppWithKeys(id);
      if (!found || found.webApp.tenantId !== tenantOf(request)) throw notFound(id);
      const { user_id, expires_in } = request.body;
      const { token, expiresAt } = await issuePreviewToken(id, found.keys.previewSecret, user_id, expires_in);
      return { token, user_id, expires_at: expiresAt };
    },
  );
};
