import { parentPort, workerData } from "node:worker_threads";
import { extractGraphTypeSchemas } from "./graphTypeSchemas";
import type { ModuleExport } from "./langgraphConfig";

// A worker thread's entry (its own file in dist/): the compiler's seconds of work keep off the gateway's event loop.
const { file, exportName } = workerData as ModuleExport;
parentPort!.postMessage(extractGraphTypeSchemas(file, exportName));
