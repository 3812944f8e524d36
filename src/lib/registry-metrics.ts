import { Counter, Gauge, Histogram, type Registry } from "./metrics-client.ts";

/** Declares metrics registered in `registry` alone (not prom-client's global registry). */
export interface RegistryMetrics {
  counter<T extends string = string>(name: string, help: string, labelNames?: readonly T[]): Counter<T>;
  gauge<T extends string = string>(name: string, help: string, labelNames?: readonly T[]): Gauge<T>;
  histogram<T extends string = string>(
    name: string,
    help: string,
    buckets: number[],
    labelNames?: readonly T[],
  ): Histogram<T>;
}

export function metricsIn(registry: Registry): RegistryMetrics {
  const registers = [registry];
  // prom-client's own default for labelNames is []; an explicit undefined would replace it and fail
  return {
    counter: (name, help, labelNames = []) => new Counter({ name, help, labelNames, registers }),
    gauge: (name, help, labelNames = []) => new Gauge({ name, help, labelNames, registers }),
    histogram: (name, help, buckets, labelNames = []) =>
      new Histogram({ name, help, labelNames, buckets, registers }),
  };
}
