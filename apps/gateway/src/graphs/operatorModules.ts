import { pathToFileURL } from "node:url";
import type { NamespacedUnregister } from "tsx/esm/api";
import type { ModuleExport } from "./langgraphConfig";

let loader: Promise<NamespacedUnregister> | undefined;

/**
 * tsx's loader, registered once. Imported as ES module whichever way the gateway was loaded: its
 * CommonJS build cannot register the loader.
 */
const tsxLoader = (): Promise<NamespacedUnregister> =>
  (loader ??= import("tsx/esm/api").then(({ register }) => register({ namespace: "axiom-lattice-deployment" })));

/**
 * Imports a module of the operator's deployment as the LangGraph CLI does: through tsx, so `.ts`,
 * `.mts`, `.cts` and `.tsx` load beside `.js`, `.mjs` and `.cjs`. Its imports resolve from its own
 * folder: a graph built on another copy of `@langchain/langgraph` than the gateway's keeps its own.
 * One tsx namespace for the whole deployment, so its files share one copy of each package they import
 * (one registry of zod schemas, say), and the gateway's own modules are left alone.
 */
export async function importOperatorModule(file: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(file).href;
  return (await (await tsxLoader()).import(url, url)) as Record<string, unknown>;
}

/** The named export of an operator's module; throws when the module has no such export. */
export async function importExport({ file, exportName }: ModuleExport): Promise<unknown> {
  const module = await importOperatorModule(file);
  if (!(exportName in module) || module[exportName] === undefined) {
    const named = Object.keys(module).filter((name) => name !== "__esModule");
    throw new Error(`exports no "${exportName}"${named.length > 0 ? ` (it exports ${named.join(", ")})` : ""}`);
  }
  return module[exportName];
}

/** A package as the module at `file` imports it (the graph's own copy), or undefined when it cannot. */
export async function importBeside(file: string, specifier: string): Promise<Record<string, unknown> | undefined> {
  try {
    return (await (await tsxLoader()).import(specifier, pathToFileURL(file).href)) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
