import { type Probe, waitFor } from "./health.ts";
import { isRunning, type ProcessRecord, startProcess } from "./processes.ts";
import { type DevState, writeState } from "./state.ts";

/**
 * Starts `spec` unless its recorded process still runs (a dead one is started again with the same
 * flags), records it in the state file, then waits for `readiness` if given. Returns the new state.
 */
export async function ensureProcess(
  dir: string,
  state: DevState,
  spec: Omit<ProcessRecord, "pid">,
  options: { log: (line: string) => void; timeoutMs: number; readiness?: (() => Promise<Probe>) | undefined },
): Promise<DevState> {
  let record = state.processes.find((p) => p.name === spec.name);
  let next = state;
  if (!record || !isRunning(record)) {
    options.log(`starting ${spec.name}${record ? " (it had stopped)" : ""}`);
    const started = startProcess(spec);
    record = started;
    const others = state.processes.filter((p) => p.name !== spec.name);
    const at = state.processes.findIndex((p) => p.name === spec.name);
    const processes =
      at >= 0 ? state.processes.map((p) => (p.name === spec.name ? started : p)) : [...others, started];
    next = { ...state, processes };
    await writeState(dir, next);
  }
  const current = record;
  if (options.readiness)
    await waitFor(spec.name, options.readiness, {
      timeoutMs: options.timeoutMs,
      alive: () => isRunning(current),
    });
  return next;
}
