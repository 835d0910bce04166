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
  /** The same quantity for the baseline; omitted for figures judged against an absolute target. */
  baseline?: number;
  /** `value / baseline` for throughputs (higher is better); for latencies the figure says how it is formed. */
  ratio?: number;
  target: number;
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
