import { readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Ports } from "./components.ts";
import type { Pki } from "./pki.ts";
import type { ProcessRecord } from "./processes.ts";

/** What `slipway dev up` started, persisted so that `status`, `env` and `down` (from any process) agree. */
export interface DevState {
  kubeVersion: string;
  kubeconfig: string;
  ports: Ports;
  pki: Pki;
  processes: ProcessRecord[];
}

export const stateFile = (dir: string) => join(dir, "state.json");

export async function readState(dir: string): Promise<DevState | undefined> {
  try {
    return JSON.parse(await readFile(stateFile(dir), "utf8")) as DevState;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

export async function writeState(dir: string, state: DevState): Promise<void> {
  const temporary = `${stateFile(dir)}.tmp`;
  await writeFile(temporary, `${JSON.stringify(state, null, 2)}\n`);
  await rename(temporary, stateFile(dir));
}
