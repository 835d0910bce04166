import { createTestDatabase, type TestDatabase } from "@axiom-lattice/testing";
import { type RunnableConfig } from "@langchain/core/runnables";
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createPostgreSQLStores, type PostgreSQLStores } from "../src";

let database: TestDatabase;
let config: PostgreSQLStores;

beforeEach(async () => {
  database = await createTestDatabase("lattice_checkpoints");
  config = await createPostgreSQLStores(database.url, { poolConfig: { max: 2 } });
});

afterEach(async () => {
  await config.dispose();
  await database.drop();
});

describe("the replicas' checkpointer", () => {
  /** Writes a checkpoint of `messages` after `parent`, as a graph step does (the channel's next version). */
  async function step(parent: RunnableConfig, messages: string[]): Promise<RunnableConfig> {
    const saver = config.checkpoint;
    const previous = parent.configurable?.checkpoint_id === undefined ? undefined : await saver.getTuple(parent);
    const version = saver.getNextVersion(previous?.checkpoint.channel_versions.messages as number | undefined);
    const checkpoint = { ...emptyCheckpoint(), id: uuid6(-1), channel_values: { messages }, channel_versions: { messages: version } };
    return saver.put(parent, checkpoint, { source: "loop", step: 0, parents: {} }, { messages: version });
  }

  const messagesAt = async (at: RunnableConfig) => (await config.checkpoint.getTuple(at))?.checkpoint.channel_values.messages;

  it("keeps a fork's values its own: a branch from an earlier checkpoint never reads the abandoned branch's", async () => {
    const root = await step({ configurable: { thread_id: "t", checkpoint_ns: "" } }, ["first"]);
    const abandoned = await step(root, ["first", "second"]);
    const fork = await step(root, ["first", "instead"]);
    expect(await messagesAt(fork)).toEqual(["first", "instead"]);
    expect(await messagesAt(abandoned)).toEqual(["first", "second"]);
    expect(await messagesAt({ configurable: { thread_id: "t", checkpoint_ns: "" } })).toEqual(["first", "instead"]);
  });

  it("orders versions as whole numbers did: a thread checkpointed before goes on", () => {
    const next = config.checkpoint.getNextVersion(7);
    expect(next).toBeGreaterThan(7.5);
    expect(next).toBeLessThan(9);
    expect(config.checkpoint.getNextVersion(next)).toBeGreaterThan(next);
    expect(config.checkpoint.getNextVersion(undefined)).toBeGreaterThanOrEqual(1);
  });
});
