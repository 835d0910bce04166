import type { Assistant } from "@axiom-lattice/protocols";
import type { AgentCard, SecurityScheme } from "@a2a-js/sdk";
import type { FastifyRequest } from "fastify";
import { API_KEY_HEADER } from "../auth/authentication";
import { GATEWAY_VERSION } from "../version";

const INPUT_MODES = ["text/plain", "application/json"];
const OUTPUT_MODES = ["text/plain"];

/** The protocol versions every assistant's endpoint speaks over JSON-RPC, newest first. */
export const A2A_VERSIONS = ["1.0", "0.3"] as const;

const firstValue = (header: string | string[] | undefined) => (Array.isArray(header) ? header[0] : header)?.split(",")[0].trim() || undefined;

/**
 * Where clients reach this gateway: the configured public URL, else what the request came to as a
 * proxy in front forwarded it (`X-Forwarded-Proto`/`-Host`), else its own `Host`. A forged header
 * only misleads the one who forged it: the card goes back to that caller.
 */
export function publicBaseUrl(request: FastifyRequest, configured: string | undefined): string {
  if (configured !== undefined) return configured.replace(/\/+$/, "");
  const proto = firstValue(request.headers["x-forwarded-proto"]) ?? request.protocol;
  const host = firstValue(request.headers["x-forwarded-host"]) ?? request.host;
  return `${proto}://${host}`;
}

export const a2aEndpoint = (baseUrl: string, assistantId: string) => `${baseUrl}/a2a/${encodeURIComponent(assistantId)}`;

const SECURITY_SCHEMES: Record<string, SecurityScheme> = {
  bearer: { scheme: { $case: "httpAuthSecurityScheme", value: { scheme: "Bearer", bearerFormat: "JWT or API key", description: "An operator's token or an API key" } } },
  apiKey: { scheme: { $case: "apiKeySecurityScheme", value: { location: "header", name: API_KEY_HEADER, description: "An API key" } } },
};

/**
 * The assistant as an A2A agent: one skill (what it is for), text in and out, streaming and push
 * notifications, and the two ways a credential is presented. The same for every caller of the tenant: nothing in it depends
 * on who asks.
 */
export function agentCardOf(assistant: Assistant, baseUrl: string): AgentCard {
  const url = a2aEndpoint(baseUrl, assistant.id);
  const description = assistant.description || `The assistant ${assistant.name}`;
  return {
    name: assistant.name,
    description,
    supportedInterfaces: A2A_VERSIONS.map((protocolVersion) => ({ url, protocolBinding: "JSONRPC", tenant: "", protocolVersion })),
    provider: { organization: "axiom-lattice", url: baseUrl },
    version: GATEWAY_VERSION,
    capabilities: { streaming: true, pushNotifications: true, extensions: [], extendedAgentCard: false },
    securitySchemes: SECURITY_SCHEMES,
    securityRequirements: Object.keys(SECURITY_SCHEMES).map((name) => ({ schemes: { [name]: { list: [] } } })),
    defaultInputModes: INPUT_MODES,
    defaultOutputModes: OUTPUT_MODES,
    skills: [
      {
        id: assistant.id,
        name: assistant.name,
        description,
        tags: [assistant.graph, ...assistant.tools],
        examples: [],
        inputModes: INPUT_MODES,
        outputModes: OUTPUT_MODES,
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

/** A security scheme as JSON carries a protobuf `oneof`: under its case's name. */
const schemeJson = ({ scheme }: SecurityScheme) => (scheme ? { [scheme.$case]: scheme.value } : {});

/** The card as A2A 1.0 clients read it (the protocol's JSON form). */
export function v1CardJson(card: AgentCard): Record<string, unknown> {
  return { ...card, securitySchemes: Object.fromEntries(Object.entries(card.securitySchemes).map(([name, scheme]) => [name, schemeJson(scheme)])), signatures: undefined };
}

/** The card as A2A 0.3 clients read it: one URL, its version, and the security schemes in OpenAPI's form. */
export function v03CardJson(card: AgentCard): Record<string, unknown> {
  const [v1] = card.supportedInterfaces;
  return {
    protocolVersion: "0.3.0",
    name: card.name,
    description: card.description,
    url: v1.url,
    preferredTransport: "JSONRPC",
    additionalInterfaces: [{ url: v1.url, transport: "JSONRPC" }],
    provider: card.provider,
    version: card.version,
    capabilities: { streaming: card.capabilities?.streaming, pushNotifications: card.capabilities?.pushNotifications },
    securitySchemes: {
      bearer: { type: "http", scheme: "bearer", description: "An operator's token or an API key" },
      apiKey: { type: "apiKey", in: "header", name: API_KEY_HEADER, description: "An API key" },
    },
    security: [{ bearer: [] }, { apiKey: [] }],
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map(({ id, name, description, tags, inputModes, outputModes }) => ({ id, name, description, tags, inputModes, outputModes })),
  };
}
