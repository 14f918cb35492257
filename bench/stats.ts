/** Median of a non-empty list. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? NaN)
    : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2;
}

/** One benchmark figure, printed as one JSON line. */
export interface Metric {
  metric: string;
  value: number;
  unit: string;
  [detail: string]: unknown;
}

/** Prints a figure as one JSON object per line (the bench's output format). */
export function report(metric: Metric): void {
  console.log(JSON.stringify(metric));
}
