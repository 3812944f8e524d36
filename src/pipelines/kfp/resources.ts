/** A step's Kubernetes-style resources as KFP's `ResourceSpec`, with the SDK's validation and units. */
import type { PipelineStep } from "../../apis/pipelines/pipeline.ts";
import { quantitySuffixes } from "../../lib/quantity.ts";
import { CompileError } from "./errors.ts";
import type { ResourceSpec } from "./ir.ts";

/** `_validate_cpu_request_limit` (re.match: anchored at the start by the call, at the end by `$`). */
const cpuPattern = /^([0-9]*[.])?[0-9]+m?$/;
/** `_validate_memory_request_limit`. */
const memoryPattern = /^[0-9]+(E|Ei|P|Pi|T|Ti|G|Gi|M|Mi|K|Ki)?$/;

const G = 10 ** 9;

/** The SDK's memory units are Kubernetes' suffixes from K(i) up, with K for Kubernetes' k (10^3). */
function memoryUnit(unit: string): number | undefined {
  if (unit === "K") return quantitySuffixes.k;
  return /^(?:[MGTPE]i?|Ki)$/.test(unit) ? quantitySuffixes[unit] : undefined;
}

/** `_cpu_to_float`: cores. */
export function cpuCores(cpu: string): number {
  return cpu.endsWith("m") ? Number(cpu.slice(0, -1)) / 1000 : Number(cpu);
}

/** `_memory_to_float`: GB (10^9 bytes), computed in the same order as the SDK so the doubles are equal. */
export function memoryGB(memory: string): number {
  const [, digits, unit] = /^([0-9]+)([A-Za-z]*)$/.exec(memory) ?? [];
  if (unit === "G") return Number(digits);
  const factor = unit ? memoryUnit(unit) : undefined;
  return factor === undefined ? Number(digits) / G : (Number(digits) * factor) / G;
}

type Quantities = Record<string, string>;

function checked(value: string, pattern: RegExp, field: string, rule: string): string {
  if (!pattern.test(value)) throw new CompileError(field, `${JSON.stringify(value)}: ${rule}`);
  return value;
}

const cpuRule = "KFP takes CPU as a number of cores or an integer followed by m (e.g. 500m, 2)";
const memoryRule =
  "KFP takes memory as an integer optionally followed by E, Ei, P, Pi, T, Ti, G, Gi, M, Mi, K or Ki";

function cpuAndMemory(quantities: Quantities, kind: "Request" | "Limit", field: string): ResourceSpec {
  const spec: ResourceSpec = {};
  const cpu = quantities.cpu;
  const memory = quantities.memory;
  if (cpu !== undefined) {
    spec[`resourceCpu${kind}`] = checked(cpu, cpuPattern, `${field}.cpu`, cpuRule);
    spec[`cpu${kind}`] = cpuCores(cpu);
  }
  if (memory !== undefined) {
    spec[`resourceMemory${kind}`] = checked(memory, memoryPattern, `${field}.memory`, memoryRule);
    spec[`memory${kind}`] = memoryGB(memory);
  }
  return spec;
}

const isAccelerator = (name: string) => name.includes("/");
const unsupported = (name: string) => name !== "cpu" && name !== "memory" && !isAccelerator(name);

function checkNames(quantities: Quantities, field: string): void {
  const other = Object.keys(quantities).find(unsupported);
  if (other)
    throw new CompileError(
      `${field}.${other}`,
      "KFP sets only cpu, memory and one accelerator (an extended resource such as nvidia.com/gpu)",
    );
}

/** KFP has an accelerator limit only: a request for one must equal its limit (as Kubernetes requires). */
function accelerator(requests: Quantities, limits: Quantities, field: string): ResourceSpec["accelerator"] {
  const names = [...new Set([...Object.keys(requests), ...Object.keys(limits)].filter(isAccelerator))].sort();
  if (names.length === 0) return undefined;
  if (names.length > 1)
    throw new CompileError(`${field}.limits`, `KFP takes one accelerator per step, not ${names.join(", ")}`);
  const type = names[0] as string;
  const count = limits[type];
  if (count === undefined)
    throw new CompileError(
      `${field}.requests.${type}`,
      "an accelerator needs a limit (KFP sets only its limit)",
    );
  if (requests[type] !== undefined && requests[type] !== count)
    throw new CompileError(`${field}.requests.${type}`, "an accelerator's request must equal its limit");
  checked(count, /^[0-9]+$/, `${field}.limits.${type}`, "an accelerator count is a non-negative integer");
  return { count, resourceCount: count, resourceType: type, type };
}

/** The executor's `resources`, or undefined when the step sets none. `field` is the step's path. */
export function resourceSpec(step: PipelineStep, field: string): ResourceSpec | undefined {
  const requests = step.resources?.requests ?? {};
  const limits = step.resources?.limits ?? {};
  checkNames(requests, `${field}.resources.requests`);
  checkNames(limits, `${field}.resources.limits`);
  const spec: ResourceSpec = {
    ...cpuAndMemory(requests, "Request", `${field}.resources.requests`),
    ...cpuAndMemory(limits, "Limit", `${field}.resources.limits`),
  };
  const gpu = accelerator(requests, limits, `${field}.resources`);
  if (gpu) spec.accelerator = gpu;
  return Object.keys(spec).length ? spec : undefined;
}
