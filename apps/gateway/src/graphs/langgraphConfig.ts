import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { parseEnv } from "node:util";
import { z } from "zod";
import { ConfigError } from "../configError";

const VARIABLE = "AXIOM_LANGGRAPH_CONFIG";

/** Where an export lives: `./path/to/file.mts:exportName` (the default export when no name is given). */
export interface ModuleExport {
  /** Absolute. */
  file: string;
  exportName: string;
}

/** An operator's `langgraph.json`, read as the LangGraph CLI reads it. */
export interface LanggraphDeployment {
  /** The file itself. */
  path: string;
  /** Graph id → where its graph (compiled, to compile, or a factory) is exported. */
  graphs: Record<string, ModuleExport>;
  /** The environment its graphs read; the operator's own environment wins over it. */
  env: Record<string, string>;
  /** Custom routes mounted beside the API: a Hono app, or anything with a `fetch(Request)`. */
  httpApp?: ModuleExport;
  /** Generative UI components: name → the module exporting them (bundled when the gateway starts, served under `/ui`). */
  ui: Record<string, string>;
  /** How they are bundled: `shared` modules left to the page, as React is. */
  uiConfig?: { shared?: string[] };
  /** Read and reported. */
  nodeVersion?: string;
  dependencies: string[];
}

const graphId = z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, "graph ids are 1–128 letters, digits, '.', '_' or '-'");
const exportSpec = z.string().min(1).regex(/^[^:]+(:[A-Za-z_$][\w$]*)?$/, "must be ./path/to/file:exportName");

const schema = z.looseObject({
  graphs: z.record(graphId, z.union([exportSpec, z.looseObject({ path: exportSpec })])).refine((graphs) => Object.keys(graphs).length > 0, "names no graph"),
  env: z.union([z.record(z.string(), z.string()), z.string().min(1)]).optional(),
  http: z.looseObject({ app: exportSpec.optional() }).optional(),
  ui: z.record(z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, "names are 1–128 letters, digits, '.', '_' or '-'"), z.string().min(1)).optional(),
  ui_config: z.looseObject({ shared: z.array(z.string()).optional() }).optional(),
  node_version: z.string().optional(),
  dependencies: z.array(z.string()).optional(),
});

/**
 * Reads the operator's `langgraph.json`: every path in it is relative to its folder. A file that is
 * missing, not JSON or not in the LangGraph CLI's format stops the gateway with one line naming it.
 */
export async function readLanggraphDeployment(path: string): Promise<LanggraphDeployment> {
  const file = resolve(path);
  const dir = dirname(file);
  const raw = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    throw new ConfigError(VARIABLE, `cannot read ${file}: ${error.code ?? error.message}`);
  });
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw new ConfigError(VARIABLE, `${file} is not JSON: ${(error as Error).message}`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    throw new ConfigError(VARIABLE, `${file}: ${issue.path.join(".") || "the file"} ${issue.message}`);
  }
  const config = parsed.data;
  const graphs = Object.fromEntries(Object.entries(config.graphs).map(([id, spec]) => [id, moduleExportOf(dir, typeof spec === "string" ? spec : spec.path)]));
  return {
    path: file,
    graphs,
    env: await envOf(dir, config.env),
    ...(config.http?.app ? { httpApp: moduleExportOf(dir, config.http.app) } : {}),
    ui: config.ui ?? {},
    ...(config.ui_config ? { uiConfig: { ...(config.ui_config.shared ? { shared: config.ui_config.shared } : {}) } } : {}),
    ...(config.node_version ? { nodeVersion: config.node_version } : {}),
    dependencies: config.dependencies ?? [],
  };
}

function moduleExportOf(dir: string, spec: string): ModuleExport {
  const [path, exportName = "default"] = spec.split(":");
  return { file: resolve(dir, path), exportName };
}

/** `env`: an object, or the path of a `.env` file. */
async function envOf(dir: string, env: Record<string, string> | string | undefined): Promise<Record<string, string>> {
  if (env === undefined) return {};
  if (typeof env !== "string") return env;
  const file = resolve(dir, env);
  const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    throw new ConfigError(VARIABLE, `cannot read its env file ${file}: ${error.code ?? error.message}`);
  });
  return parseEnv(text) as Record<string, string>;
}
