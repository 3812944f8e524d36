/** Pure arithmetic of the scale bench: percentiles, Prometheus text, request rates. */

/** The nearest-rank percentile (`p` in 0..100) of `values`; NaN when there are none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

export type Labels = Record<string, string>;

/** One sample line of the Prometheus text format: `name{a="x",b="y"} value`. */
const sampleLine = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const labelPair = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/**
 * The sum of every sample of metric `name` in a Prometheus text exposition whose labels `where`
 * accepts (default: all); 0 when there is none.
 */
export function metricSum(
  text: string,
  name: string,
  where: (labels: Labels) => boolean = () => true,
): number {
  let sum = 0;
  for (const line of text.split("\n")) {
    const match = sampleLine.exec(line);
    if (!match || match[1] !== name) continue;
    const labels: Labels = {};
    for (const [, key, value] of (match[2] ?? "").matchAll(labelPair))
      labels[key as string] = value as string;
    if (where(labels)) sum += Number(match[3]);
  }
  return sum;
}

/** A client's requests to the API server that write (every method but GET). */
export const isWrite = (labels: Labels) => labels.method !== undefined && labels.method !== "GET";

/** A counter read at a moment (`at` in ms). */
export interface CounterSample {
  at: number;
  total: number;
}

/**
 * The highest rate of a counter between consecutive samples, per second; samples closer than
 * `minSpanMs` are merged with the next so that one short gap does not inflate the peak.
 */
export function peakRate(samples: readonly CounterSample[], minSpanMs = 900): number {
  let peak = 0;
  let from = samples[0];
  for (const sample of samples.slice(1)) {
    if (!from || sample.at - from.at < minSpanMs) continue;
    peak = Math.max(peak, ((sample.total - from.total) * 1000) / (sample.at - from.at));
    from = sample;
  }
  return peak;
}

/** When item `index` of a steady stream of `perSecond` items is due, in ms after the stream's start. */
export const dueAtMs = (index: number, perSecond: number) => (index * 1000) / perSecond;
