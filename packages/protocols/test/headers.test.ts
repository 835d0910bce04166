import { describe, expect, it } from "vitest";
import {
  AFFINITY_ECHO_HEADER,
  AFFINITY_MISS_CODE,
  MessageChunkTypes,
  affinityEchoHeaders,
  buildAffinityMissChunk,
  isValidAffinityValue,
} from "../src";

describe("affinityEchoHeaders", () => {
  it.each(["replica-a", "host.example:1234", "a@b_c.d-e", "A".repeat(128)])("echoes the valid value %s", (value) => {
    expect(affinityEchoHeaders(value)).toEqual({ [AFFINITY_ECHO_HEADER]: value });
  });

  it.each([
    ["missing", undefined],
    ["empty", ""],
    ["129 characters", "A".repeat(129)],
    ["a space", "replica a"],
    ["a CR/LF injection", "replica\r\nset-cookie: x=1"],
    ["a comma list", "a,b"],
    ["non-ASCII", "réplica"],
  ])("drops %s", (_label, value) => {
    expect(affinityEchoHeaders(value)).toEqual({});
  });

  it("drops a repeated header (array)", () => {
    expect(affinityEchoHeaders(["replica-a", "replica-b"])).toEqual({});
    expect(affinityEchoHeaders(["replica-a"])).toEqual({});
  });

  it("refuses non-strings", () => {
    expect(isValidAffinityValue(42)).toBe(false);
    expect(isValidAffinityValue(null)).toBe(false);
  });
});

describe("buildAffinityMissChunk", () => {
  it("names the owner, the thread and the message", () => {
    expect(buildAffinityMissChunk("replica-a", "t1", "m1")).toEqual({
      type: MessageChunkTypes.AFFINITY_MISS,
      data: { code: AFFINITY_MISS_CODE, owner: "replica-a", thread_id: "t1", message_id: "m1" },
    });
  });
});
