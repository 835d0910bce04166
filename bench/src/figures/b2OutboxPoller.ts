// The peer side of B2: one replica process running an OutboxPoller on the PostgreSQL outbox. Its
// handler notes, on entry, how long ago the event's append was called (same machine: both processes
// read performance.timeOrigin + performance.now()), per phase, and reports when asked.
import { OutboxPoller } from "@axiom-lattice/core";
import { PostgreSQLOutboxStore } from "@axiom-lattice/pg-stores";
import { performance } from "node:perf_hooks";

export interface B2Payload {
  phase: string;
  seq: number;
  sentAt: number;
}

export type B2Command = { cmd: "report"; phase: string; expected: number } | { cmd: "stop" };

export type B2Message =
  | { type: "ready" }
  | { type: "report"; phase: string; latencies: number[]; received: number; duplicates: number }
  | { type: "stopped" };

interface Tally {
  latencies: number[];
  seqs: Set<number>;
  duplicates: number;
}

const DRAIN_MS = 5_000;

async function main(): Promise<void> {
  const [url, owner] = process.argv.slice(2);
  const send = (message: B2Message) => process.send?.(message);
  const phases = new Map<string, Tally>();
  const tally = (phase: string) => {
    let found = phases.get(phase);
    if (!found) phases.set(phase, (found = { latencies: [], seqs: new Set(), duplicates: 0 }));
    return found;
  };

  const store = new PostgreSQLOutboxStore({ poolConfig: { connectionString: url, max: 2 }, autoMigrate: false });
  const poller = new OutboxPoller({
    store,
    owner,
    handlers: {
      b2: async (payload) => {
        const enteredAt = performance.timeOrigin + performance.now();
        const { phase, seq, sentAt } = payload as B2Payload;
        const phaseTally = tally(phase);
        if (phaseTally.seqs.has(seq)) phaseTally.duplicates += 1;
        else {
          phaseTally.seqs.add(seq);
          phaseTally.latencies.push(enteredAt - sentAt);
        }
      },
    },
  });
  await poller.start();

  process.on("message", async (command: B2Command) => {
    if (command.cmd === "stop") {
      await poller.stop();
      await store.dispose();
      send({ type: "stopped" });
      process.disconnect();
      return;
    }
    const phaseTally = tally(command.phase);
    const deadline = Date.now() + DRAIN_MS;
    while (phaseTally.seqs.size < command.expected && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    send({ type: "report", phase: command.phase, latencies: phaseTally.latencies, received: phaseTally.seqs.size, duplicates: phaseTally.duplicates });
  });
  // Wait for the LISTEN connection's first catch-up poll before declaring readiness.
  while (poller.stats().polls === 0) await new Promise((resolve) => setTimeout(resolve, 10));
  send({ type: "ready" });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
