// CPU per background run of B11's drain phase (issues 24 and 26), the measure bench/profiles/README.md
// compares builds with: less sensitive to the machine's load than B11's wall-clock drain rate.
// One gateway as B11 starts it, the load B11 puts on it before its drain (20 + 100 streamed runs, 400
// `wait`s from 16 clients), then per batch: 1,000 threads created, 1,000 `runs.create` from 16
// clients, `threads.search` for a busy one every 50 ms until none is. The gateway's user + system CPU
// over the batch / runs.
//   npx tsx src/drainCpu.ts                 (BATCHES=3: batches on the same gateway, as it warms up)
//   GATEWAY_CLI=/elsewhere/apps/gateway/dist/cli.js npx tsx src/drainCpu.ts   (another build)
//   CPU_PROFILE_OUT=drain.cpuprofile npx tsx src/drainCpu.ts                  (profile of the batches only)
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { forEachConcurrently } from "./concurrently";
import { startGateway } from "./gatewayProcess";
import { LangGraphClient } from "./langgraphClient";
import { processCpuSeconds } from "./processCpu";

const BATCHES = Number(process.env.BATCHES ?? 1);
const RUNS = 1_000;
const CLIENTS = 16;
const POLL_MS = 50;
const profileOut = process.env.CPU_PROFILE_OUT;
/** Lets the profiler write its file before the gateway stops. */
const PROFILE_WRITE_MS = 3_000;

async function main() {
  const server = await startGateway({
    name: "drain CPU gateway",
    cli: process.env.GATEWAY_CLI,
    nodeFlags: profileOut ? ["--require", resolve(__dirname, "../profiles/cpuProfileOnSignal.cjs")] : [],
    env: profileOut ? { CPU_PROFILE_OUT: resolve(profileOut) } : {},
  });
  const profile = () => profileOut && process.kill(server.pid, "SIGWINCH");
  try {
    const client = new LangGraphClient(server.url);
    const assistantId = await client.createAssistant("react");
    for (const threadId of await client.createThreads("warm-up", 120)) await client.stream(assistantId, threadId, "warm up");
    await forEachConcurrently(await client.createThreads("wait", 400), CLIENTS, (threadId) => client.wait(assistantId, threadId, "hello"));
    profile();
    for (let batch = 0; batch < BATCHES; batch++) {
      const tag = `backlog-${batch}`;
      const threads = await client.createThreads(tag, RUNS);
      const cpuBefore = processCpuSeconds(server.pid);
      const startedAt = performance.now();
      await forEachConcurrently(threads, CLIENTS, (threadId) => client.enqueue(assistantId, threadId, "hello from B11"));
      while ((await client.countThreads(tag, "busy", 1)) > 0) await sleep(POLL_MS);
      const seconds = (performance.now() - startedAt) / 1000;
      const cpuMs = (processCpuSeconds(server.pid) - cpuBefore) * 1000;
      const idle = await client.countThreads(tag, "idle", RUNS);
      if (idle !== RUNS) throw new Error(`only ${idle} of ${RUNS} threads are idle`);
      console.log(`batch ${batch}: ${(cpuMs / RUNS).toFixed(2)} ms CPU per run, drain ${(RUNS / seconds).toFixed(0)} runs/s, load average ${loadavg()[0].toFixed(1)}`);
    }
    profile();
    if (profileOut) await sleep(PROFILE_WRITE_MS);
  } finally {
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
