import { createRequire } from "node:module";
import { extname, join } from "node:path";
import { Worker } from "node:worker_threads";
import type { TypeSchemas } from "./graphTypeSchemas";
import type { ModuleExport } from "./langgraphConfig";

/** How long one graph's extraction may take: its first run type-checks LangChain's types, 10–30 s on two busy cores. */
const TIMEOUT_MS = 60_000;

let previous: Promise<unknown> = Promise.resolve();

/**
 * A graph's schemas from its TypeScript types (see `extractGraphTypeSchemas`), by namespace, worked
 * out in a worker thread. One extraction at a time: each takes a core and hundreds of megabytes for
 * seconds. Rejects when the extraction fails or outlasts its time (the worker is then stopped).
 */
export function typeSchemasInWorker(source: ModuleExport, timeoutMs = TIMEOUT_MS): Promise<Record<string, TypeSchemas>> {
  const result = previous.then(() => runWorker(source, timeoutMs));
  previous = result.catch(() => undefined);
  return result;
}

function runWorker(source: ModuleExport, timeoutMs: number): Promise<Record<string, TypeSchemas>> {
  // Built, the worker's entry sits beside this bundle, in its format (.js or .mjs). Run from source
  // (the tests), it is TypeScript too, compiled as it loads by tsx, a dependency of the gateway already.
  const extension = extname(__filename);
  const fromSource = extension === ".ts";
  const worker = new Worker(join(__dirname, `graphTypeSchemaWorker${extension}`), {
    workerData: source,
    execArgv: fromSource ? ["--require", createRequire(__filename).resolve("tsx/cjs")] : [],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`schema extraction took more than ${timeoutMs} ms`));
      void worker.terminate();
    }, timeoutMs);
    worker.once("message", (schemas: Record<string, TypeSchemas>) => {
      clearTimeout(timer);
      resolve(schemas);
      void worker.terminate();
    });
    worker.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    worker.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`schema extraction stopped (exit code ${code})`));
    });
  });
}
