import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import type { Command } from "commander";
import { down, status, up } from "../dev/cluster.ts";
import { demo } from "../dev/demo.ts";
import { devBucket, devS3Credentials, EmptyArtifactError, uploadDevArtifact } from "../dev/dev-builds.ts";
import { defaultDevDir } from "../dev/paths.ts";
import {
  devNamespace,
  type PlatformServices,
  readPlatformServices,
  startPlatformServices,
} from "../dev/platform-services.ts";
import { isRunning } from "../dev/processes.ts";
import { readState } from "../dev/state.ts";
import { onboardTeam, teamMember } from "../dev/team.ts";
import { UserError } from "./run.ts";

const log = (line: string) => process.stderr.write(`${line}\n`);

/** `slipway dev up|down|status|env`: the local, real Kubernetes control plane (see docs in README). */
export function registerDevCommands(program: Command): void {
  const dev = program
    .command("dev")
    .description(
      "a local Kubernetes control plane (etcd, kube-apiserver, controller-manager, scheduler, kwok)",
    )
    .option("--dir <path>", "state directory (default: .slipway/dev, or $SLIPWAY_DEV_DIR)");
  const dirOf = (): string => {
    const dir = dev.opts<{ dir?: string }>().dir;
    return dir ? resolve(dir) : defaultDevDir();
  };

  dev
    .command("up")
    .description(
      "start the control plane, the operator, the server, a registry and MinIO (or restart what died); wait until the fake nodes are Ready",
    )
    .option("--nodes <n>", "number of fake nodes", "3")
    .option("--timeout <seconds>", "how long to wait for readiness", "120")
    .option(
      "--no-real-node",
      "fake (kwok) nodes only: no containerd, kubelet or kube-proxy (or SLIPWAY_REAL_NODE=0)",
    )
    .action(async (options: { nodes: string; timeout: string; realNode: boolean }) => {
      const nodes = Number(options.nodes);
      if (!Number.isInteger(nodes) || nodes < 1)
        throw new UserError(`--nodes must be a positive integer, not ${options.nodes}`);
      const started = Date.now();
      const realNode = options.realNode ? undefined : false;
      const state = await up({
        dir: dirOf(),
        nodes,
        timeoutMs: Number(options.timeout) * 1000,
        log,
        realNode,
      });
      log(`control plane ready in ${((Date.now() - started) / 1000).toFixed(1)}s`);
      const services = await startPlatformServices(dirOf(), state.kubeconfig, log);
      log(`operator and server running (namespace ${devNamespace}); UI and API at ${services.uiAddress}`);
      log(
        `image builds: registry ${services.builds.registry}, S3 ${services.builds.s3Endpoint} (bucket ${devBucket}; \`slipway dev upload\` puts a build context there)`,
      );
      process.stdout.write(`${state.kubeconfig}\n`);
    });

  dev
    .command("demo")
    .description("bring up the control plane and show it working")
    .action(async () => demo(dirOf(), (line) => process.stdout.write(`${line}\n`)));

  dev
    .command("down")
    .description("stop every process `up` started and remove the state directory")
    .action(async () => {
      const { stopped } = await down(dirOf());
      log(stopped.length ? `stopped ${stopped.join(", ")}` : "nothing was running");
    });

  dev
    .command("status")
    .description("show each control-plane process; exits non-zero if any of them is not running")
    .option("-o, --output <format>", "text or json", "text")
    .action(async (options: { output: string }) => {
      const result = await status(dirOf());
      const services = await readPlatformServices(dirOf());
      const servicesStatus = (services?.processes ?? []).map((p) => ({
        name: p.name,
        pid: p.pid,
        running: isRunning(p),
        log: p.log,
      }));
      if (options.output === "json")
        process.stdout.write(
          `${JSON.stringify({ ...result, services: servicesStatus, ...addresses(services) }, null, 2)}\n`,
        );
      else if (result.components.length === 0) process.stdout.write("not started (run `slipway dev up`)\n");
      else {
        for (const c of [...result.components, ...servicesStatus]) {
          process.stdout.write(
            `${c.name.padEnd(24)} ${c.running ? "running" : "NOT RUNNING"}  pid ${c.pid}  log ${c.log}\n`,
          );
        }
        process.stdout.write(`${"apiserver /readyz".padEnd(24)} ${result.apiserver?.detail}\n`);
        for (const [name, address] of Object.entries(addresses(services)))
          process.stdout.write(`${name.padEnd(24)} ${address}\n`);
      }
      if (!result.up) process.exitCode = 1;
    });

  dev
    .command("upload <directory> <name>")
    .description(
      `upload a build context (every file under <directory>) to the dev S3 server as s3://${devBucket}/<name>/ and print that URI`,
    )
    .action(async (directory: string, name: string) => {
      const services = await readPlatformServices(dirOf());
      // a state file from before the build servers has no `builds`
      if (!services?.builds)
        throw new UserError(`no dev build servers in ${dirOf()} (run \`slipway dev up\`)`);
      if (!/^[a-z0-9][a-z0-9._/-]*$/.test(name))
        throw new UserError(
          `<name> must be a path of lowercase letters, digits, '.', '_', '-' and '/', not ${name}`,
        );
      const isDirectory = await stat(directory).then(
        (info) => info.isDirectory(),
        () => false,
      );
      if (!isDirectory) throw new UserError(`<directory>: ${directory} is not a directory`);
      const minio = services.processes.find((p) => p.name === "minio");
      if (!minio || !isRunning(minio))
        throw new UserError(
          `the dev S3 server (minio) is not running in ${dirOf()} (run \`slipway dev up\`)`,
        );
      const uri = await uploadDevArtifact(services.builds, resolve(directory), name).catch((error) => {
        if (error instanceof EmptyArtifactError) throw new UserError(error.message);
        throw error;
      });
      process.stdout.write(`${uri}\n`);
    });

  dev
    .command("team <namespace>")
    .description(
      "onboard a team: its namespace with what builds need, a member ServiceAccount without rights on Secrets, the platform's Provider allowing it; prints the member's kubeconfig path",
    )
    .option("--platform <name>", "the Platform whose Provider the team uses", "slipway")
    .action(async (namespace: string, options: { platform: string }) => {
      if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(namespace))
        throw new UserError(
          `<namespace> must be a DNS label (lowercase letters, digits, '-'), not ${namespace}`,
        );
      if (namespace === devNamespace || namespace.startsWith("kube-"))
        throw new UserError(`<namespace>: ${namespace} is the platform's or the system's, not a team's`);
      const state = await readState(dirOf());
      const services = await readPlatformServices(dirOf());
      if (!state || !services?.builds)
        throw new UserError(`no dev plane in ${dirOf()} (run \`slipway dev up\`)`);
      const team = await onboardTeam({
        dir: dirOf(),
        adminKubeconfig: state.kubeconfig,
        namespace,
        s3: await devS3Credentials(services.builds),
        platform: { namespace: devNamespace, name: options.platform },
      });
      log(
        `team ${namespace}: ServiceAccount ${namespace}/${teamMember} (builds and pipelines, no Secrets), S3 Secret for builds`,
      );
      log(
        "name" in team.provider
          ? `pipelines: spec.provider: ${team.provider.name} (it allows ${namespace})`
          : `pipelines: ${team.provider.missing}`,
      );
      process.stdout.write(`${team.kubeconfig}\n`);
    });

  dev
    .command("env")
    .description(
      "print `export KUBECONFIG=...` (and the registry and S3 addresses) for the running control plane (--path: only the kubeconfig path)",
    )
    .option("--path", "print only the kubeconfig path")
    .action(async (options: { path?: boolean }) => {
      const state = await readState(dirOf());
      if (!state) throw new UserError(`no control plane in ${dirOf()} (run \`slipway dev up\`)`);
      if (options.path) {
        process.stdout.write(`${state.kubeconfig}\n`);
        return;
      }
      const services = await readPlatformServices(dirOf());
      const lines = [`export KUBECONFIG=${state.kubeconfig}`];
      if (services?.builds) {
        lines.push(`export SLIPWAY_DEV_REGISTRY=${services.builds.registry}`);
        lines.push(`export SLIPWAY_DEV_S3_ENDPOINT=${services.builds.s3Endpoint}`);
      }
      process.stdout.write(`${lines.join("\n")}\n`);
    });
}

/** Where the dev platform's services answer (none before `up` started them). */
function addresses(services: PlatformServices | undefined): Record<string, string> {
  if (!services) return {};
  return {
    ui: services.uiAddress,
    ...(services.builds ? { registry: services.builds.registry, s3: services.builds.s3Endpoint } : {}),
  };
}
