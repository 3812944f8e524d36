/**
 * The Slipway operator and `slipway server` as local processes next to the control plane, with the
 * image-build servers they use (a registry and MinIO, src/dev/dev-builds.ts) — what `slipway dev up`
 * adds; the test harness's up() does not start them. Recorded in their own state file so the
 * control plane's state stays as it was; `down` stops them first.
 */

import { join } from "node:path";
import { configEnvironmentVariable, devModeEnvironmentVariable } from "../builds/config.ts";
import {
  type DevBuilds,
  type DevBuildsPorts,
  devBuilds,
  devBuildsProbe,
  devBuildsProcesses,
  ensureBuildServers,
  provisionDevBuilds,
  writeDevBuildsFiles,
} from "./dev-builds.ts";
import { probeHttp, waitFor } from "./health.ts";
import { packageRoot } from "./paths.ts";
import { freePorts } from "./ports.ts";
import { isRunning, type ProcessRecord, startProcess, stopProcesses } from "./processes.ts";
import { bridgeGateway } from "./real-node/network.ts";
import { writeRegistryHosts } from "./real-node/node.ts";
import {
  applyDevRelease,
  devConversionUrl,
  devReleaseObjects,
  devWebhookHost,
  operatorKubeconfigFile,
  webhookConfigurationNames,
} from "./release-install.ts";
import { serviceLookupEnvironmentVariable } from "./service-lookup.ts";
import { readJsonFile, readState, writeJsonFile } from "./state.ts";

/** The namespace `slipway dev up` runs the platform in (the CLI's default). */
export const devNamespace = "slipway";

export interface PlatformServices {
  processes: ProcessRecord[];
  /** Where `slipway server` serves the UI and the REST API. */
  uiAddress: string;
  buildsPorts: DevBuildsPorts;
  builds: DevBuilds;
  /** Where the operator serves its admission webhooks (HTTPS on 127.0.0.1). */
  webhookPort: number;
}

const servicesFile = (dir: string) => join(dir, "platform-services.json");

export function readPlatformServices(dir: string): Promise<PlatformServices | undefined> {
  return readJsonFile<PlatformServices>(servicesFile(dir));
}

async function writePlatformServices(dir: string, services: PlatformServices): Promise<void> {
  await writeJsonFile(servicesFile(dir), services);
}

function newPlatformServices(
  dir: string,
  kubeconfig: string,
  ports: [number, number, number, number, number, number],
  buildsHost: string | undefined,
): PlatformServices {
  const [health, server, registry, s3, s3Console, webhookPort] = ports;
  const buildsPorts = { registry, s3, s3Console, ...(buildsHost ? { host: buildsHost } : {}) };
  const builds = devBuilds(dir, buildsPorts);
  const cli = (
    name: string,
    args: string[],
    env?: Record<string, string>,
    processKubeconfig = kubeconfig,
  ): Omit<ProcessRecord, "pid"> => ({
    name,
    command: process.execPath,
    // the operator (outside the cluster) resolves Service names as a pod would: service-lookup.ts
    args: [
      ...(env?.[serviceLookupEnvironmentVariable]
        ? ["--import", join(packageRoot, "src/dev/service-lookup-preload.ts")]
        : []),
      join(packageRoot, "src/cli/main.ts"),
      ...args,
      "--kubeconfig",
      processKubeconfig,
    ],
    log: join(dir, "logs", `${name}.log`),
    ...(env ? { env } : {}),
  });
  const processes = [
    ...devBuildsProcesses(dir, buildsPorts),
    cli(
      "slipway-operator",
      [
        "operator",
        // every namespace, so a team's Provider and Pipelines work as well as the platform
        "--all-namespaces",
        "--no-leader-elect",
        "--metrics-port",
        String(health),
        "--health-port",
        String(health),
        // the release's admission webhooks, called by the API server on this machine
        "--webhook-port",
        String(webhookPort),
        "--webhook-hosts",
        devWebhookHost,
        "--webhook-configuration",
        webhookConfigurationNames(devReleaseObjects(devNamespace, webhookPort)).join(","),
        // and the CRDs' version conversion (the storage migration after it)
        "--webhook-conversion-url",
        devConversionUrl(webhookPort),
        "--lease-namespace",
        devNamespace,
      ],
      {
        [configEnvironmentVariable]: builds.configFile,
        [devModeEnvironmentVariable]: "1",
        // dev's stand-in for pod DNS reads Services with the admin's kubeconfig (service-lookup.ts)
        [serviceLookupEnvironmentVariable]: kubeconfig,
      },
      // as the release's ServiceAccount, with exactly the rights `kubectl apply -f deploy/slipway.yaml` grants
      operatorKubeconfigFile(dir),
    ),
    cli("slipway-server", ["server", "-n", devNamespace, "--port", String(server), "--host", "127.0.0.1"]),
  ];
  return {
    uiAddress: `http://127.0.0.1:${server}/`,
    buildsPorts,
    builds,
    webhookPort,
    processes: processes.map((p) => ({ ...p, pid: 0 })),
  };
}

/**
 * Starts the build servers, provisions what builds need (bucket, Secret, the operator's builds
 * configuration), then the operator and the server; on a later call restarts whichever died, with
 * its original flags.
 */
export async function startPlatformServices(
  dir: string,
  kubeconfig: string,
  log: (line: string) => void = () => {},
): Promise<PlatformServices> {
  let services = await readPlatformServices(dir);
  const realNode = (await readState(dir))?.realNode !== undefined;
  // with the real node, the registry and S3 listen on its bridge (DevBuildsPorts.host)
  const buildsHost = realNode ? bridgeGateway : undefined;
  if (services && (!services.builds || !services.webhookPort || services.buildsPorts.host !== buildsHost)) {
    // recorded by a version without the build servers or the release install, or for a plane with
    // or without the real node: start over
    await stopProcesses(services.processes.filter(isRunning));
    services = undefined;
  }
  await ensureBuildServers(log);
  if (!services)
    services = newPlatformServices(
      dir,
      kubeconfig,
      (await freePorts(6)) as [number, number, number, number, number, number],
      buildsHost,
    );
  const recorded = services;
  const { builds } = recorded;
  await writeDevBuildsFiles(dir, recorded.buildsPorts);
  const byName = new Map(recorded.processes.map((p) => [p.name, p]));
  const ensure = async (record: ProcessRecord) => {
    if (record.pid && isRunning(record)) return;
    log(`starting ${record.name}${record.pid ? " (it had stopped)" : ""}`);
    const { pid: _pid, ...spec } = record;
    const started = startProcess(spec);
    // recorded at once, so that `down` stops it even if it never gets ready
    byName.set(record.name, started);
    await writePlatformServices(dir, { ...recorded, processes: [...byName.values()] });
    const readiness = devBuildsProbe(record.name, builds, probeHttp);
    if (readiness)
      await waitFor(record.name, readiness, { timeoutMs: 60_000, alive: () => isRunning(started) });
  };
  const isBuildServer = (record: ProcessRecord) =>
    devBuildsProbe(record.name, builds, probeHttp) !== undefined;
  // the operator reads the builds configuration at its first build: provision before starting it
  for (const record of recorded.processes.filter(isBuildServer)) await ensure(record);
  await provisionDevBuilds(dir, builds, kubeconfig, devNamespace, realNode);
  if (realNode) await writeRegistryHosts(dir, builds.registry);
  // the release's objects and a fresh token of its ServiceAccount before the operator (re)starts
  await applyDevRelease(dir, kubeconfig, devReleaseObjects(devNamespace, recorded.webhookPort), devNamespace);
  for (const record of recorded.processes.filter((r) => !isBuildServer(r))) await ensure(record);
  services = { ...recorded, processes: [...byName.values()] };
  await writePlatformServices(dir, services);
  return services;
}

/** Stops the operator and the server, if they run. */
export async function stopPlatformServices(dir: string): Promise<string[]> {
  const running = (await readPlatformServices(dir))?.processes.filter(isRunning) ?? [];
  await stopProcesses(running);
  return running.map((p) => p.name);
}
