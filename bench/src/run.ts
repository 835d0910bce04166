// `pnpm bench [ID ...]`: runs the figures (all, or those named), prints one line per figure ending in
// `baseline=<b> (<what it is>) ratio=<x> target=≥|≤<y> ok|SHORT` (and the figure's detail lines, indented), and writes results/latest.json.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FigureResult } from "./figure";
import { figures } from "./figures";

const format = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(n < 10 ? 3 : 1));

async function main(): Promise<void> {
  const wanted = process.argv.slice(2).map((id) => id.toUpperCase());
  const selected = wanted.length ? figures.filter((figure) => wanted.includes(figure.id)) : figures;
  const results: Record<string, FigureResult & { title: string }> = {};
  let short = 0;
  for (const figure of selected) {
    const result = await figure.run();
    results[figure.id] = { title: figure.title, ...result };
    if (!result.ok) short += 1;
    const parts = [
      `${figure.id} ${figure.title}:`,
      `value=${format(result.value)}${result.unit}`,
      `baseline=${format(result.baseline)}${result.unit} (${result.baselineName})`,
      `ratio=${format(result.ratio)}`,
      `target=${result.better === "higher" ? "≥" : "≤"}${result.target}`,
      result.ok ? "ok" : "SHORT",
    ];
    console.log(parts.join(" "));
    for (const line of result.details ?? []) console.log(`  ${line}`);
  }
  const dir = join(__dirname, "..", "results");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "latest.json"), JSON.stringify({ at: new Date().toISOString(), results }, null, 2));
  if (short) console.log(`${short} figure(s) short of target`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
