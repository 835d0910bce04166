// B13's companion (issue 42): the cost of AXIOM_TENANT_MAX_RUN_SUBMISSIONS to a tenant alone on a
// replica. One gateway replica from the CLI on PostgreSQL, authentication on, one run slot (so its
// runs barely compete with the requests); one tenant's 40 clients queue 900 runs (under the default
// 1,000 queued messages) over 200 threads. Accepted runs per second with the limit at its default,
// over the same with the limit off (`0`), alternating, medians of the repetitions; target ≥ 0.9.
//   pnpm --filter @axiom-lattice/bench exec tsx src/loneTenantEnqueue.ts [repetitions, default 5]
import { createTestDatabase } from "@axiom-lattice/testing/database";
import { performance } from "node:perf_hooks";
import { median } from "./figure";
import { GatewayApi } from "./gatewayApi";
import { startGateway } from "./gatewayProcess";
import { bearer, flood } from "./noisyNeighbour";

const SECRET = "lone-tenant-enqueue-secret-of-32-characters";
const ASSISTANT = "bench-lone";
const RUNS = 900;
const THREADS = 200;
const CONCURRENCY = 40;
const TARGET_RATIO = 0.9;

/** Runs queued per second by the tenant's clients, on a fresh replica and database. */
async function enqueueRate(env: Record<string, string>): Promise<number> {
  const database = await createTestDatabase("lattice_bench_lone");
  try {
    const gateway = await startGateway({
      name: "lone-tenant gateway",
      databaseUrl: database.url,
      env: { AUTH_REQUIRED: "true", AUTH_TOKEN_SECRET: SECRET, AXIOM_MAX_CONCURRENT_RUNS: "1", ...env },
    });
    try {
      const api = new GatewayApi(gateway.url, bearer(SECRET, "tenant-a"));
      await api.createAssistant(ASSISTANT);
      const threadIds = await api.createThreads(ASSISTANT, "lone", THREADS);
      const startedAt = performance.now();
      const counts = await flood(api, { assistantId: ASSISTANT, threadIds, runs: RUNS, concurrency: CONCURRENCY, message: "/sleep 60000", label: "lone tenant" }).done;
      if (counts.accepted !== RUNS) throw new Error(`lone tenant: ${counts.refused} of ${RUNS} runs refused`);
      return (RUNS / (performance.now() - startedAt)) * 1_000;
    } finally {
      await gateway.stop();
    }
  } finally {
    await database.drop();
  }
}

async function main(): Promise<void> {
  const repetitions = Number(process.argv[2] ?? 5);
  const limited: number[] = [];
  const unlimited: number[] = [];
  for (let n = 0; n < repetitions; n += 1) {
    unlimited.push(await enqueueRate({ AXIOM_TENANT_MAX_RUN_SUBMISSIONS: "0" }));
    limited.push(await enqueueRate({}));
  }
  const ratio = median(limited) / median(unlimited);
  const runs = (rates: number[]) => rates.map((rate) => rate.toFixed(0)).join(", ");
  console.log(
    `lone tenant's enqueue rate, submissions limit at its default over off: value=${median(limited).toFixed(1)}/s baseline=${median(unlimited).toFixed(1)}/s ratio=${ratio.toFixed(3)} target=≥${TARGET_RATIO} ${ratio >= TARGET_RATIO ? "ok" : "SHORT"}`,
  );
  console.log(`  runs/s by repetition: default ${runs(limited)}; off ${runs(unlimited)}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
