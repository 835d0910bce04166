import { describe, expect, it } from "vitest";
import { useCluster } from "../harness/cluster";
import { createThreads, enqueueAcross, expectProcessedOnceInOrder } from "../harness/workloads";

const THREADS = 20;
const MESSAGES_PER_THREAD = 25;

describe("scenario 3: disjoint queue claim across replicas", () => {
  const cluster = useCluster();

  it(`processes ${THREADS * MESSAGES_PER_THREAD} messages over ${THREADS} threads exactly once, in order, never overlapping`, async () => {
    const replicas = await cluster.start(3);
    const threadIds = Array.from({ length: THREADS }, (_, i) => `thread-${i}`);
    await createThreads(replicas[0].url, threadIds);
    await enqueueAcross(
      replicas.map((replica) => replica.url),
      threadIds,
      MESSAGES_PER_THREAD,
    );
    const servedBy = await expectProcessedOnceInOrder(
      replicas[0].url,
      threadIds,
      MESSAGES_PER_THREAD,
      replicas.map((replica) => replica.replicaId),
    );
    expect(Object.values(servedBy).reduce((a, b) => a + b, 0)).toBe(THREADS * MESSAGES_PER_THREAD);
    console.log(`scenario 3: runs per replica ${JSON.stringify(servedBy)}`);
  });
});
