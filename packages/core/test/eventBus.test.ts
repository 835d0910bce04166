import { describe, expect, it } from "vitest";
import { EventBus } from "../src";

describe("EventBus", () => {
  it("delivers to every listener and isolates a throwing one", () => {
    const errors: unknown[] = [];
    const bus = new EventBus<{ ping: number }>((error) => errors.push(error));
    const seen: number[] = [];
    bus.on("ping", () => {
      throw new Error("boom");
    });
    bus.on("ping", (n) => seen.push(n));
    bus.emit("ping", 7);
    expect(seen).toEqual([7]);
    expect(errors).toHaveLength(1);
  });

  it("unsubscribes", () => {
    const bus = new EventBus<{ ping: number }>();
    const seen: number[] = [];
    const off = bus.on("ping", (n) => seen.push(n));
    off();
    bus.emit("ping", 1);
    expect(seen).toEqual([]);
    expect(bus.listenerCount("ping")).toBe(0);
  });
});
