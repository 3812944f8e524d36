import { readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Ports } from "./components.ts";
import type { Pki } from "./pki.ts";
import type { ProcessRecord } from "./processes.ts";
import type { RealNodePorts } from "./real-node/config.ts";

/** The real node of this dev directory (src/dev/real-node/): its ports (its images are the machine's: image-store.ts). */
export interface RealNodeState {
  ports: RealNodePorts;
}

/** What `slipway dev up` started, persisted so that `status`, `env` and `down` (from any process) agree. */
export interface DevState {
  kubeVersion: string;
  kubeconfig: string;
  ports: Ports;
  pki: Pki;
  processes: ProcessRecord[];
  realNode?: RealNodeState;
  /** why this control plane has no real node (kwok only), in one line */
  realNodeSkipped?: string;
}

export const stateFile = (dir: string) => join(dir, "state.json");

/** A state file's content; undefined when it does not exist; an unreadable one is named in the error. */
export async function readJsonFile<T>(path: string): Promise<T | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(`${path} is not valid JSON: remove it (or the dev directory) and run \`slipway dev up\``);
  }
}

/** Writes a state file atomically (a reader sees the old or the new content, never half). */
export async function writeJsonFile(path: string, value: unknown): Promise<void> {
  const temporary = `${path}.tmp`;
  await writeFile(temporary, `${JSON.stringify(value, null, 2)}\n`);
  await rename(temporary, path);
}

export function readState(dir: string): Promise<DevState | undefined> {
  return readJsonFile<DevState>(stateFile(dir));
}

export async function writeState(dir: string, state: DevState): Promise<void> {
  await writeJsonFile(stateFile(dir), state);
}
