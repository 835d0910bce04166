import { extname } from "node:path";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { GenerativeUi } from "../graphs/generativeUi";
import { HttpError } from "../http/errors";
import { inputErrors } from "./errors";

const tags = ["langgraph"];

const uiName = z.string().regex(/^[A-Za-z0-9._-]{1,128}$/);
const CONTENT_TYPES: Record<string, string> = { ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8" };

/** Hosts a page loads a component from over plain HTTP; elsewhere the page's own scheme. */
const isLocalHost = (host: string) => /^(localhost|127\.0\.0\.1)(:\d+)?$/.test(host);

/**
 * The deployment's generative UI components (`ui` in its `langgraph.json`), as LangGraph Platform
 * serves them to `LoadExternalComponent`: `POST /ui/{name}` answers the HTML that loads one component
 * (its stylesheets and its script, which renders it into the page's shadow root), and
 * `GET /ui/{name}/{file}` the built files. They are the operator's frontend, as the playground's files
 * are: served without a principal, to pages on any origin.
 */
export const langgraphUiRoutes: FastifyPluginAsyncZod<{ ui: GenerativeUi }> = async (app, { ui }) => {
  app.post(
    "/ui/:name",
    {
      schema: {
        tags,
        summary: "The HTML that loads one of a UI's components (LangGraph API)",
        params: z.object({ name: uiName }),
        body: z.looseObject({ name: z.string().min(1).max(256).describe("The component, as the UI module exports it") }),
        response: { 200: { description: "Its stylesheets and script tags", content: { "text/html": { schema: z.string() } } }, ...inputErrors("NOT_FOUND") },
      },
    },
    async (request, reply) => {
      const files = ui.filesOf(request.params.name);
      if (files.length === 0) throw new HttpError("NOT_FOUND", `UI not found for agent "${request.params.name}"`);
      const host = request.headers.host ?? "localhost";
      const base = `${isLocalHost(host) ? "http:" : ""}//${host}/ui/${request.params.name}`;
      const markup = files.filter(({ basename }) => extname(basename) === ".css").map(({ basename }) => `<link rel="stylesheet" href="${base}/${basename}" />`);
      const script = files.find(({ basename }) => extname(basename) === ".js");
      const global = `__LGUI_${request.params.name.replace(/[^a-zA-Z0-9]/g, "_")}`;
      if (script) markup.push(`<script src="${base}/${script.basename}" onload='${global}.render(${JSON.stringify(request.body.name)}, "{{shadowRootId}}")'></script>`);
      return reply.type("text/html").send(markup.join("\n"));
    },
  );

  app.get(
    "/ui/:name/:file",
    {
      schema: {
        tags,
        summary: "A built file of a UI (LangGraph API)",
        params: z.object({ name: uiName, file: z.string().min(1).max(256) }),
        response: {
          200: { description: "The file", content: { "text/javascript": { schema: z.string() }, "text/css": { schema: z.string() } } },
          ...inputErrors("NOT_FOUND"),
        },
      },
    },
    async (request, reply) => {
      const file = ui.filesOf(request.params.name).find(({ basename }) => basename === request.params.file);
      if (!file) throw new HttpError("NOT_FOUND", `File ${request.params.file} of UI "${request.params.name}" not found`);
      // Pages on other origins (Studio, a chat app) load it with a script tag.
      reply.header("cross-origin-resource-policy", "cross-origin");
      return reply.type(CONTENT_TYPES[extname(file.basename)] ?? "application/octet-stream").send(file.contents.toString("utf8"));
    },
  );
};
