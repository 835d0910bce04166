import { describe, expect, it } from "vitest";
import { parseCron } from "../../src/schedule/cronSchedule";

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

/** The fires of `expression` in `timezone` from `from` (exclusive) until `until` (exclusive). */
function fires(expression: string, timezone: string, from: string, until: string): string[] {
  const cron = parseCron(expression, timezone);
  const out: string[] = [];
  for (let at = cron.nextAfter(Date.parse(from)); at !== undefined && at < Date.parse(until); at = cron.nextAfter(at)) {
    out.push(iso(at)!);
  }
  return out;
}

describe("cron schedule across DST in Europe/Berlin", () => {
  it("daily 02:30 on spring-forward (2025-03-30, 02:00 → 03:00) fires once, when the gap ends", () => {
    expect(fires("30 2 * * *", "Europe/Berlin", "2025-03-28T12:00:00Z", "2025-04-01T12:00:00Z")).toEqual([
      "2025-03-29T01:30:00.000Z", // 02:30 CET
      "2025-03-30T01:00:00.000Z", // 02:30 does not exist: 03:00 CEST
      "2025-03-31T00:30:00.000Z", // 02:30 CEST
      "2025-04-01T00:30:00.000Z",
    ]);
  });

  it("daily 02:30 on fall-back (2025-10-26, 03:00 → 02:00) fires once, at the first 02:30", () => {
    expect(fires("30 2 * * *", "Europe/Berlin", "2025-10-24T12:00:00Z", "2025-10-28T12:00:00Z")).toEqual([
      "2025-10-25T00:30:00.000Z", // 02:30 CEST
      "2025-10-26T00:30:00.000Z", // first 02:30 (CEST); not again at 01:30Z (CET)
      "2025-10-27T01:30:00.000Z", // 02:30 CET
      "2025-10-28T01:30:00.000Z",
    ]);
  });

  it("hourly fires every real hour: 23 on the spring-forward day, 25 on the fall-back day", () => {
    const spring = fires("0 * * * *", "Europe/Berlin", "2025-03-29T22:59:59Z", "2025-03-30T22:00:00Z");
    const fall = fires("0 * * * *", "Europe/Berlin", "2025-10-25T21:59:59Z", "2025-10-26T23:00:00Z");
    expect(spring).toHaveLength(23);
    expect(fall).toHaveLength(25);
    for (const day of [spring, fall]) {
      const gaps = day.slice(1).map((at, i) => Date.parse(at) - Date.parse(day[i]));
      expect(new Set(gaps)).toEqual(new Set([3_600_000]));
    }
    // Both 02:00 of the fall-back day fire, one hour apart.
    expect(fall).toEqual(expect.arrayContaining(["2025-10-26T00:00:00.000Z", "2025-10-26T01:00:00.000Z"]));
  });
});

describe("cron schedule", () => {
  it("keeps 09:00 local time in America/New_York across its DST change", () => {
    expect(fires("0 9 * * *", "America/New_York", "2025-03-08T00:00:00Z", "2025-03-11T00:00:00Z")).toEqual([
      "2025-03-08T14:00:00.000Z",
      "2025-03-09T13:00:00.000Z",
      "2025-03-10T13:00:00.000Z",
    ]);
  });

  it("accepts a seconds field (6 fields) and fires strictly after the reference", () => {
    const cron = parseCron("* * * * * *", "UTC");
    expect(iso(cron.nextAfter(Date.parse("2031-01-01T00:00:00.000Z")))).toBe("2031-01-01T00:00:01.000Z");
    expect(iso(cron.nextAfter(Date.parse("2031-01-01T00:00:00.400Z")))).toBe("2031-01-01T00:00:01.000Z");
  });

  it("answers undefined for an expression that never fires", () => {
    expect(parseCron("0 0 30 2 *", "UTC").nextAfter(Date.now())).toBeUndefined();
  });

  it.each(["61 * * * *", "* * *", "every day", "* * * * * * *", "0 25 * * *", ""])("refuses %j with INVALID_CRON", (expression) => {
    expect(() => parseCron(expression, "UTC")).toThrow(expect.objectContaining({ code: "INVALID_CRON" }));
  });

  it.each(["Mars/Olympus_Mons", "Europe/Berlin ", "", "+25:00"])("refuses time zone %j with INVALID_TIMEZONE", (timezone) => {
    expect(() => parseCron("0 9 * * *", timezone)).toThrow(expect.objectContaining({ code: "INVALID_TIMEZONE" }));
  });
});
