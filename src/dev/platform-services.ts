/**
 * The Slipway operator and `slipway server` as local processes next to the control plane (what
 * `slipway dev up` adds; the test harness's up() does not start them). Recorded in their own state
 * file so the control plane's state stays as it was; `down` stops them first.
 */
import { readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { packageRoot } from "./paths.ts";
import { freePorts } from "./ports.ts";
import { isRunning, type ProcessRecord, startProcess, stopProcesses } from "./processes.ts";

/** The namespace `slipway dev up` runs the platform in (the CLI's default). */
export const devNamespace = "slipway";

export interface PlatformServices {
  processes: ProcessRecord[];
  /** Where `slipway server` serves the UI and the REST API. */
  uiAddress: string;
}

const servicesFile = (dir: string) => join(dir, "platform-services.json");

export async function readPlatformServices(dir: string): Promise<PlatformServices | undefined> {
  try {
    return JSON.parse(await readFile(servicesFile(dir), "utf8")) as PlatformServices;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

async function writePlatformServices(dir: string, services: PlatformServices): Promise<void> {
  const temporary = `${servicesFile(dir)}.tmp`;
  await writeFile(temporary, `${JSON.stringify(services, null, 2)}\n`);
  await rename(temporary, servicesFile(dir));
}

/** Starts the operator and the server (or restarts whichever died, with its original flags). */
export async function startPlatformServices(
  dir: string,
  kubeconfig: string,
  log: (line: string) => void = () => {},
): Promise<PlatformServices> {
  let services = await readPlatformServices(dir);
  if (!services) {
    const [health, server] = (await freePorts(2)) as [number, number];
    const cli = (name: string, args: string[]): ProcessRecord => ({
      name,
      command: process.execPath,
      args: [join(packageRoot, "src/cli/main.ts"), ...args, "--kubeconfig", kubeconfig],
      log: join(dir, "logs", `${name}.log`),
      pid: 0,
    });
    services = {
      uiAddress: `http://127.0.0.1:${server}/`,
      processes: [
        cli("slipway-operator", [
          "operator",
          "--namespace",
          devNamespace,
          "--no-leader-elect",
          "--metrics-port",
          String(health),
          "--health-port",
          String(health),
        ]),
        cli("slipway-server", [
          "server",
          "-n",
          devNamespace,
          "--port",
          String(server),
          "--host",
          "127.0.0.1",
        ]),
      ],
    };
  }
  const processes: ProcessRecord[] = [];
  for (const record of services.processes) {
    if (record.pid && isRunning(record)) {
      processes.push(record);
      continue;
    }
    log(`starting ${record.name}${record.pid ? " (it had stopped)" : ""}`);
    const { pid: _pid, ...spec } = record;
    processes.push(startProcess(spec));
  }
  services = { ...services, processes };
  await writePlatformServices(dir, services);
  return services;
}

/** Stops the operator and the server, if they run. */
export async function stopPlatformServices(dir: string): Promise<string[]> {
  const running = (await readPlatformServices(dir))?.processes.filter(isRunning) ?? [];
  await stopProcesses(running);
  return running.map((p) => p.name);
}
