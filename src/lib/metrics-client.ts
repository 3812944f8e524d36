/**
 * prom-client's four classes the operator and the server use (Registry, Counter, Gauge, Histogram),
 * required from the package's own lib modules instead of its index. The index also loads Summary,
 * Pushgateway, the cluster aggregator and the default metrics (with @opentelemetry/api): +8 MB
 * resident in a compiled process for nothing a Slipway process uses (docs/runtime.md, "What a Node
 * operator holds at rest"). prom-client has no `exports` map, so its lib paths are part of what it
 * publishes; the index re-exports exactly these modules (`exports.Counter = require('./lib/counter')`),
 * so the values and the index's types are the same classes: an object from either passes `instanceof`.
 */
import { createRequire } from "node:module";
import type * as PromClient from "prom-client";

const requireLib = createRequire(import.meta.url);

export const Registry: typeof PromClient.Registry = requireLib("prom-client/lib/registry.js");
export const Counter: typeof PromClient.Counter = requireLib("prom-client/lib/counter.js");
export const Gauge: typeof PromClient.Gauge = requireLib("prom-client/lib/gauge.js");
export const Histogram: typeof PromClient.Histogram = requireLib("prom-client/lib/histogram.js");

export type Registry = PromClient.Registry;
export type Counter<T extends string = string> = PromClient.Counter<T>;
export type Gauge<T extends string = string> = PromClient.Gauge<T>;
export type Histogram<T extends string = string> = PromClient.Histogram<T>;
