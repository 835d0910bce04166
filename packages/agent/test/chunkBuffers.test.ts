import { afterEach, describe, expect, it } from "vitest";
import { MessageChunkTypes } from "@axiom-lattice/protocols";
import { eventually } from "@axiom-lattice/testing";
import { DEFAULT_CHUNK_BUFFER_LIMITS } from "../src";
import { ChunkBuffers } from "../src/runtime/chunkBuffers";
import { collect, manager, sharedStores, shutdownManagers, thread } from "./support";

const token = (content: string) => ({ type: MessageChunkTypes.MESSAGE_CHUNK, data: { content } });

function filled(buffers: ChunkBuffers, key: string, count: number, { end = false } = {}) {
  buffers.open(key, key);
  for (let i = 0; i < count; i++) buffers.push(key, token(`${key}${i}`));
  if (end) buffers.end(key);
}

afterEach(() => shutdownManagers());

describe("ChunkBuffers", () => {
  it("documents its default bounds", () => {
    expect(DEFAULT_CHUNK_BUFFER_LIMITS).toEqual({ maxChunksPerMessage: 2_000, maxTotalChunks: 20_000, retainMs: 300_000 });
  });

  it("keeps at most maxChunksPerMessage per message, dropping the oldest; replay yields what is kept", async () => {
    const buffers = new ChunkBuffers({ maxChunksPerMessage: 3 });
    filled(buffers, "m", 10, { end: true });

    expect(buffers.stats()).toEqual({ messages: 1, chunks: 3 });
    expect((await collect(buffers.follow("m"))).map((chunk) => chunk.index)).toEqual([7, 8, 9]);
    expect((await collect(buffers.follow("m", 8))).map((chunk) => chunk.index)).toEqual([9]);
  });

  it("keeps at most maxTotalChunks, evicting ended messages first, then trimming the oldest running one", () => {
    const buffers = new ChunkBuffers({ maxTotalChunks: 5 });
    filled(buffers, "ended", 3, { end: true });
    filled(buffers, "running-1", 4);
    expect(buffers.has("ended")).toBe(false);
    expect(buffers.stats()).toEqual({ messages: 1, chunks: 4 });

    filled(buffers, "running-2", 3);
    expect(buffers.stats()).toEqual({ messages: 2, chunks: 5 });
    expect(buffers.has("running-1")).toBe(true);
  });

  it("drops an ended message's chunks after retainMs", async () => {
    const buffers = new ChunkBuffers({ retainMs: 30 });
    filled(buffers, "m", 2, { end: true });
    expect(buffers.has("m")).toBe(true);
    await eventually("expiry", () => !buffers.has("m"), { timeoutMs: 2_000 });
    expect(buffers.stats()).toEqual({ messages: 0, chunks: 0 });
  });

  it("follows live chunks until the message ends", async () => {
    const buffers = new ChunkBuffers();
    buffers.open("m", "m");
    const followed = collect(buffers.follow("m"));
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      buffers.push("m", token(String(i)));
    }
    buffers.end("m");
    expect((await followed).map((chunk) => [chunk.messageId, chunk.index])).toEqual([
      ["m", 0],
      ["m", 1],
      ["m", 2],
    ]);
  });

  it("continues a re-run message's indexes, so SSE ids stay unique", async () => {
    const buffers = new ChunkBuffers();
    filled(buffers, "m", 2, { end: true });
    filled(buffers, "m", 1, { end: true });
    expect((await collect(buffers.follow("m"))).map((chunk) => chunk.index)).toEqual([0, 1, 2]);
  });

  it("follows a buffer whose ids jump (a re-run here after a takeover) from any position, the jump included", async () => {
    const buffers = new ChunkBuffers();
    filled(buffers, "m", 3, { end: true });
    buffers.open("m", "m", 1_000);
    for (let i = 0; i < 3; i++) buffers.push("m", token(`again ${i}`));
    buffers.end("m");
    const after = async (index: number) => (await collect(buffers.follow("m", index))).map((chunk) => chunk.index);
    expect(await after(-1)).toEqual([0, 1, 2, 1_000, 1_001, 1_002]);
    expect(await after(2)).toEqual([1_000, 1_001, 1_002]);
    expect(await after(500)).toEqual([1_000, 1_001, 1_002]);
    expect(await after(1_000)).toEqual([1_001, 1_002]);
    expect(await after(1_002)).toEqual([]);
    expect([buffers.follows("m", 1_001), buffers.follows("m", 1_002)]).toEqual([true, false]);
  });

  it("bounds an agent's buffers too: a late subscriber gets the newest chunks and the end", async () => {
    const stores = await sharedStores();
    const runtime = manager(stores, { chunkBuffers: { maxChunksPerMessage: 3 } });
    const agent = runtime.getAgent(thread("t1"));
    const words = Array.from({ length: 40 }, (_, i) => `w${i}`).join(" ");
    const { messageId, completion } = await agent.addMessage({ message: words }, { mode: "wait" });
    await completion;

    expect(runtime.stats()).toMatchObject({ bufferedMessages: 1, bufferedChunks: 3 });
    const replay = await collect(agent.chunkStream(messageId));
    expect(replay.map((chunk) => chunk.type)).toEqual(["message_chunk", "message_chunk", "message_completed"]);
    expect(replay.at(-1)!.index).toBe(41);
  });
});
