import { spawn } from "node:child_process";
import { existsSync, openSync, readFileSync } from "node:fs";

/** One process of the control plane as recorded in the state file, so `up`, `status` and `down` agree. */
export interface ProcessRecord {
  name: string;
  command: string;
  args: string[];
  log: string;
  /** Added to this process's environment (never a secret: a secret goes in a file the variable names). */
  env?: Record<string, string>;
  pid: number;
}

/** Starts a process detached from this one (it outlives the CLI), its output appended to its log file. */
export function startProcess(spec: Omit<ProcessRecord, "pid">): ProcessRecord {
  const out = openSync(spec.log, "a");
  const child = spawn(spec.command, spec.args, {
    detached: true,
    stdio: ["ignore", out, out],
    env: { ...process.env, ...spec.env },
  });
  if (child.pid === undefined) throw new Error(`could not start ${spec.name} (${spec.command})`);
  child.unref();
  return { ...spec, pid: child.pid };
}

/** The PID still belongs to the recorded command (running or exited-but-unreaped). */
function isOurs(record: ProcessRecord): boolean {
  try {
    return (
      readFileSync(`/proc/${record.pid}/cmdline`, "utf8").split("\0")[0] === record.command ||
      isZombie(record.pid)
    );
  } catch {
    return false;
  }
}

/** The fields of /proc/PID/stat after the command's name (field 3 onwards), if the process exists. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/**
 * When process `pid` started (clock ticks since boot, field 22 of /proc/PID/stat): with the PID, it
 * names one process even after the PID is reused. Undefined when there is no such (live) process.
 */
export function processStartTime(pid: number): string | undefined {
  const fields = statFields(pid);
  return fields && fields[0] !== "Z" ? fields[19] : undefined;
}

/** Exited but not yet reaped (this machine's init may reap orphans late). */
export function isZombie(pid: number): boolean {
  return statFields(pid)?.[0] === "Z";
}

/**
 * True when `record.pid` is alive AND still runs the recorded command: a PID reused by an
 * unrelated process after ours died must not count as ours (nor be killed by `down`).
 */
export function isRunning(record: ProcessRecord): boolean {
  try {
    const cmdline = readFileSync(`/proc/${record.pid}/cmdline`, "utf8");
    return cmdline.split("\0")[0] === record.command && !isZombie(record.pid);
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** SIGTERM, then SIGKILL after `graceMs` for whatever is still running. Only ever signals our own processes. */
export async function stopProcesses(records: ProcessRecord[], graceMs = 10_000): Promise<void> {
  const signal = (record: ProcessRecord, sig: NodeJS.Signals) => {
    if (!isRunning(record)) return;
    try {
      process.kill(record.pid, sig);
    } catch {
      // it exited between the check and the signal
    }
  };
  for (const record of records) signal(record, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (records.some(isRunning) && Date.now() < deadline) await sleep(100);
  for (const record of records) signal(record, "SIGKILL");
  while (records.some(isRunning)) await sleep(50);
  // An exited process stays in /proc until its parent (init, for these detached ones) reaps it: give
  // that a moment, so "stopped" also means gone.
  const reapDeadline = Date.now() + 5_000;
  while (records.some((r) => existsSync(`/proc/${r.pid}`) && isOurs(r)) && Date.now() < reapDeadline)
    await sleep(50);
}
