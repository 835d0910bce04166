// Memory of a server process, with a full garbage collection first when asked: RSS alone mixes live
// data with garbage V8 has not collected yet, and a leak is only what survives a collection.
import { setTimeout as sleep } from "node:timers/promises";
import type { ServerProcess } from "./serverProcess";

// Not SIGUSR2: the gateway shuts down on it (close-with-grace); not SIGUSR1: Node's inspector. A
// process without the hook ignores SIGWINCH, so a missing hook shows as a timeout, not a dead server.
const PROBE_SIGNAL = "SIGWINCH";
const REPORT_PREFIX = "bench-memory ";

const HOOK_SOURCE = `import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";
process.on(${JSON.stringify(PROBE_SIGNAL)}, () => {
  setFlagsFromString("--compact-on-every-full-gc");
  try {
    globalThis.gc();
    globalThis.gc();
  } finally {
    setFlagsFromString("--no-compact-on-every-full-gc");
  }
  const heapSpaces = getHeapSpaceStatistics().map((space) => [space.space_name, space.space_used_size, space.physical_space_size]);
  process.stderr.write(${JSON.stringify(REPORT_PREFIX)} + JSON.stringify({ ...process.memoryUsage(), heapSpaces }) + "\\n");
});`;

/**
 * Node flags that give a process a hook: on {@link PROBE_SIGNAL} it collects garbage (twice, so
 * objects freed by the first collection's finalizers go too) and prints its memory usage, with the
 * V8 heap by space, on stderr. These collections compact the old generation (only they: the flag is
 * set around them), as V8's memory reducer does on its own once a process has been idle for a while:
 * a plain forced collection leaves pages that hold a few survivors committed, so the RSS read after it
 * would depend on when V8's heuristics last ran rather than on what the process retains.
 * Instrumentation only; the gateway's CLI and code are unchanged (an ESM data URL preloaded by `--import`).
 */
export const MEMORY_PROBE_FLAGS = ["--expose-gc", "--import", `data:text/javascript,${encodeURIComponent(HOOK_SOURCE)}`];

const MB = 1024 * 1024;
const toMb = (bytes: number) => Math.round((bytes / MB) * 10) / 10;

export interface MemoryReading {
  /** RSS as found, before the collection. */
  rssMb: number;
  /** RSS after the collection and `settleMs`. */
  rssAfterGcMb: number;
  /** Live JavaScript objects after the collection. */
  heapUsedAfterGcMb: number;
  heapTotalAfterGcMb: number;
  /** Memory held by C++ objects bound to JavaScript ones (buffers, sockets …). */
  externalAfterGcMb: number;
  /** Of which ArrayBuffer contents: where serialized data lives (e.g. MemorySaver's checkpoints). */
  arrayBuffersAfterGcMb: number;
  /**
   * The V8 heap by space after the collection (old_space: long-lived objects; code_space: compiled
   * code; large_object_space: big arrays and strings …): live MB and MB resident; empty spaces left out.
   */
  heapSpacesAfterGcMb: Record<string, { used: number; resident: number }>;
}

/** What the hook prints. */
interface ProbeReport extends NodeJS.MemoryUsage {
  /** [space name, used bytes, physical (resident) bytes] per V8 heap space. */
  heapSpaces: [string, number, number][];
}

/** Reads RSS, has a process started with {@link MEMORY_PROBE_FLAGS} collect garbage, and reads again. */
export async function readMemory(server: ServerProcess, settleMs = 1_000, timeoutMs = 30_000): Promise<MemoryReading> {
  const rssMb = toMb(server.rssBytes());
  const before = server.logs.split(REPORT_PREFIX).length;
  server.signal(PROBE_SIGNAL);
  const deadline = Date.now() + timeoutMs;
  // The report is complete once its line ended.
  let reports = server.logs.split(REPORT_PREFIX);
  while (reports.length === before || !reports[reports.length - 1].includes("\n")) {
    if (Date.now() > deadline) throw new Error(`${server.name} printed no memory report (started without MEMORY_PROBE_FLAGS?)`);
    await sleep(50);
    reports = server.logs.split(REPORT_PREFIX);
  }
  const usage = JSON.parse(reports[reports.length - 1].split("\n")[0]) as ProbeReport;
  await sleep(settleMs);
  return {
    rssMb,
    rssAfterGcMb: toMb(server.rssBytes()),
    heapUsedAfterGcMb: toMb(usage.heapUsed),
    heapTotalAfterGcMb: toMb(usage.heapTotal),
    externalAfterGcMb: toMb(usage.external),
    arrayBuffersAfterGcMb: toMb(usage.arrayBuffers),
    heapSpacesAfterGcMb: Object.fromEntries(
      usage.heapSpaces.filter(([, , resident]) => resident > 0).map(([name, used, resident]) => [name, { used: toMb(used), resident: toMb(resident) }]),
    ),
  };
}
