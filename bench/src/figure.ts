/** One benchmark figure: a measured value next to a baseline measured in the same run. */
export interface Figure {
  id: string;
  title: string;
  run(): Promise<FigureResult>;
}

export interface FigureResult {
  /** Unit of `value` and `baseline`, e.g. "pairs/s" or "ms". */
  unit: string;
  value: number;
  /** The same quantity for the baseline: measured in the same run, or, for figures judged against an absolute target, that target. */
  baseline: number;
  /** What `baseline` is, printed beside it (e.g. "bare SKIP LOCKED loop, same run" or "absolute target, performance.md"). */
  baselineName: string;
  /** `value / baseline`, unless the figure says how it is formed. */
  ratio: number;
  /** Whether `ratio` must be at least `target` (throughputs) or at most (latencies, memory). */
  better: "higher" | "lower";
  target: number;
  /** `ratio` meets `target`, and whatever else the figure requires (its title or details say what). */
  ok: boolean;
  /** Raw repetitions and anything else worth keeping in results/latest.json. */
  raw: Record<string, unknown>;
  /** Lines printed under the figure's line, for what one value cannot say (e.g. B10's several figures). */
  details?: string[];
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
