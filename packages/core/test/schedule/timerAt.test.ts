import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { MAX_TIMER_DELAY_MS, setTimerAt } from "../../src/schedule/timerAt";

const DAY = 86_400_000;

describe("setTimerAt", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: Date.UTC(2031, 0, 1) });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("waits longer than the platform maximum in steps, never asking for a longer delay", async () => {
    const delays: number[] = [];
    const original = globalThis.setTimeout;
    const spy = vi.spyOn(globalThis, "setTimeout").mockImplementation(((fn: () => void, delay?: number) => {
      delays.push(delay ?? 0);
      return original(fn, delay);
    }) as typeof setTimeout);
    const fired = vi.fn();
    const at = Date.now() + 60 * DAY;
    setTimerAt(at, () => fired(Date.now()));

    await vi.advanceTimersByTimeAsync(60 * DAY - 1);
    expect(fired).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(fired).toHaveBeenCalledExactlyOnceWith(at);
    expect(delays.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...delays)).toBeLessThanOrEqual(MAX_TIMER_DELAY_MS);
    spy.mockRestore();
  });

  it("fires at once for a past time, and not at all once cancelled", async () => {
    const past = vi.fn();
    setTimerAt(Date.now() - 5_000, past);
    const cancelled = vi.fn();
    const cancel = setTimerAt(Date.now() + 40 * DAY, cancelled);
    await vi.advanceTimersByTimeAsync(0);
    expect(past).toHaveBeenCalledOnce();
    await vi.advanceTimersByTimeAsync(30 * DAY);
    cancel();
    await vi.advanceTimersByTimeAsync(20 * DAY);
    expect(cancelled).not.toHaveBeenCalled();
  });
});
