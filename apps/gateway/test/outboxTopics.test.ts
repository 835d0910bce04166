// docs/outbox-topics.md maps each outbox topic to its producer and its consumer; this holds the
// table to the code: the protocols' topics and constants, the producers' files and the subsystems
// whose outbox handlers take each topic.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import * as protocols from "@axiom-lattice/protocols";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src";
import { composeGateway } from "../src/context/gatewayContext";
import { createGatewayLogger } from "../src/server";

const ROOT = resolve(__dirname, "../../..");

interface TopicRow {
  topic: string;
  constant: string;
  appendedIn: string;
  consumer: string;
}

/** The table's rows: the cells of each line after the header and its separator, code spans unquoted. */
function topicTable(): TopicRow[] {
  const lines = readFileSync(resolve(ROOT, "docs/outbox-topics.md"), "utf8").split("\n");
  const header = lines.findIndex((line) => line.startsWith("| Topic |"));
  expect(header).toBeGreaterThan(-1);
  const rows: TopicRow[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith("|")) break;
    const cells = line.split("|").slice(1, -1).map((cell) => cell.trim().replace(/^`([^`]*)`$/, "$1"));
    rows.push({ topic: cells[0]!, constant: cells[1]!, appendedIn: cells[3]!, consumer: cells[4]! });
  }
  return rows;
}

describe("docs/outbox-topics.md", () => {
  const rows = topicTable();

  it("lists every topic of the protocols once, by its constant", () => {
    expect(rows.map((row) => row.topic).sort()).toEqual([...protocols.OUTBOX_TOPICS].sort());
    for (const row of rows) expect((protocols as Record<string, unknown>)[row.constant], row.constant).toBe(row.topic);
  });

  it("names, for each topic, a file that appends it", () => {
    for (const row of rows) expect(readFileSync(resolve(ROOT, row.appendedIn), "utf8"), row.appendedIn).toContain(row.constant);
  });

  it("names, for each topic, the gateway subsystem whose outbox handlers take it", async () => {
    const config = loadConfig({ LOG_LEVEL: "silent" });
    const { context, subsystems } = await composeGateway(config, createGatewayLogger(config));
    const consumers = Object.fromEntries(subsystems.flatMap((subsystem) => Object.keys(subsystem.outboxHandlers ?? {}).map((topic) => [topic, subsystem.name])));
    await context.close();
    expect(Object.fromEntries(rows.map((row) => [row.topic, row.consumer]))).toEqual(consumers);
  });
});
