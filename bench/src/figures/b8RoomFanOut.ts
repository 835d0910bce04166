// B8 (issue 12): project room fan-out latency across replicas. Two gateway processes on one PostgreSQL
// database, 100 SSE subscribers of one room (50 on each); messages are posted to replica A one after
// another, and each subscriber notes when the `message.created` event arrives. Latency is from the
// POST being sent to the event's arrival, so it includes storing the message; B's subscribers add the
// outbox hop. Reported beside a bare LISTEN/NOTIFY round trip measured in the same run (B2's).
// No target in performance.md: the figure is reported, with B2's outbox targets as the yardstick.
// The database helper alone: the package root also holds vitest suites, which a plain script cannot load.
import { createTestDatabase } from "@axiom-lattice/testing/database";
import { sseFrames } from "@axiom-lattice/testing/sse";
import { performance } from "node:perf_hooks";
import { type Figure, percentile } from "../figure";
import { startGateway } from "../gatewayProcess";
import { bareRoundTrips } from "./b2Outbox";

const SUBSCRIBERS_PER_REPLICA = 50;
const MESSAGES = 200;
const WARM_UP_MESSAGES = 20;
const GAP_MS = 20;
const DRAIN_MS = 10_000;
/** B2's outbox p50 target plus an HTTP request and an SSE write. */
const TARGET_P50_MS = 20;
const PROJECT = "b8";
const ROOM = `/api/projects/${PROJECT}/rooms/fan-out`;

interface Arrival {
  subscriber: number;
  replica: "A" | "B";
  at: number;
}

const summarise = (values: number[]) => ({ p50: percentile(values, 50), p99: percentile(values, 99), max: Math.max(...values), samples: values.length });

async function send(url: string, path: string, body: unknown): Promise<void> {
  const response = await fetch(`${url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`B8: POST ${path} answered ${response.status}: ${await response.text()}`);
}

/** Opens one subscriber's stream; each `message.created` is reported with its arrival time. */
async function subscribe(url: string, onMessage: (content: string, at: number) => void, abort: AbortSignal): Promise<void> {
  const response = await fetch(`${url}${ROOM}/events`, { signal: abort });
  if (response.status !== 200) throw new Error(`B8: the room stream answered ${response.status}: ${await response.text()}`);
  void (async () => {
    try {
      for await (const event of sseFrames(response.body)) {
        if (event.data === undefined) continue;
        const parsed = JSON.parse(event.data) as { type: string; data?: { content: string } };
        if (parsed.type === "message.created" && parsed.data) onMessage(parsed.data.content, performance.now());
      }
    } catch (error) {
      if (!abort.aborted) throw error;
    }
  })();
}

export const b8RoomFanOut: Figure = {
  id: "B8",
  title: `room fan-out p50, POST on A → ${2 * SUBSCRIBERS_PER_REPLICA} SSE subscribers (half on B), 2 replicas, PostgreSQL (ms, B's subscribers; ratio = p50 / its ${TARGET_P50_MS} ms target; nothing lost or duplicated too)`,
  async run() {
    const database = await createTestDatabase("lattice_bench_b8");
    const abort = new AbortController();
    try {
      const a = await startGateway({ name: "B8 replica A", databaseUrl: database.url, replicaId: "b8-a" });
      const b = await startGateway({ name: "B8 replica B", databaseUrl: database.url, replicaId: "b8-b" });
      try {
        await send(a.url, "/api/projects", { id: PROJECT, name: "B8" });
        await send(a.url, `/api/projects/${PROJECT}/rooms`, { id: "fan-out", name: "Fan-out" });
        const arrivals = new Map<string, Arrival[]>();
        const subscribers = [...Array(SUBSCRIBERS_PER_REPLICA).fill(a.url), ...Array(SUBSCRIBERS_PER_REPLICA).fill(b.url)] as string[];
        await Promise.all(
          subscribers.map((url, subscriber) =>
            subscribe(url, (content, at) => arrivals.get(content)?.push({ subscriber, replica: url === a.url ? "A" : "B", at }), abort.signal),
          ),
        );

        const sentAt = new Map<string, number>();
        for (let seq = 0; seq < WARM_UP_MESSAGES + MESSAGES; seq += 1) {
          const content = `b8-${seq}`;
          arrivals.set(content, []);
          sentAt.set(content, performance.now());
          await send(a.url, `${ROOM}/messages`, { content });
          await new Promise((resolve) => setTimeout(resolve, GAP_MS));
        }
        const expected = (WARM_UP_MESSAGES + MESSAGES) * subscribers.length;
        const received = () => [...arrivals.values()].reduce((sum, list) => sum + list.length, 0);
        const deadline = Date.now() + DRAIN_MS;
        while (received() < expected && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));

        const latencies = { A: [] as number[], B: [] as number[] };
        let duplicates = 0;
        for (const [content, list] of arrivals) {
          if (Number(content.slice(3)) < WARM_UP_MESSAGES) continue;
          duplicates += list.length - new Set(list.map((arrival) => arrival.subscriber)).size;
          for (const arrival of list) latencies[arrival.replica].push(arrival.at - sentAt.get(content)!);
        }
        const lost = expected - received() + duplicates;
        const bare = summarise(await bareRoundTrips(database.url, 1_000 / GAP_MS, 2_000));
        const onB = summarise(latencies.B);
        return {
          unit: "ms",
          value: onB.p50,
          baseline: TARGET_P50_MS,
          baselineName: "absolute target: B2's outbox p50 target + an HTTP request and an SSE write",
          ratio: onB.p50 / TARGET_P50_MS,
          better: "lower",
          target: 1,
          details: [
            `on B p50 ${onB.p50.toFixed(1)} ms, p99 ${onB.p99.toFixed(1)} ms; lost ${lost}, duplicated ${duplicates}`,
            `bare LISTEN/NOTIFY round trip, same run: p50 ${bare.p50.toFixed(2)} ms; fan-out p50 / bare p50 ${(onB.p50 / bare.p50).toFixed(2)}`,
          ],
          ok: onB.p50 <= TARGET_P50_MS && lost === 0 && duplicates === 0,
          raw: {
            note: `${MESSAGES} messages (after ${WARM_UP_MESSAGES} warm-up ones) posted on A every ${GAP_MS} ms; POST sent → message.created at each subscriber`,
            subscribers: { A: SUBSCRIBERS_PER_REPLICA, B: SUBSCRIBERS_PER_REPLICA },
            fanOutOnBMs: onB,
            fanOutOnAMs: summarise(latencies.A),
            bareListenNotifyMs: bare,
            lost,
            duplicates,
          },
        };
      } finally {
        abort.abort();
        await Promise.all([a.stop(), b.stop()]);
      }
    } finally {
      await database.drop();
    }
  },
};
