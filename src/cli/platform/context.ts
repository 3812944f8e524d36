/** What every platform command shares: global flags, the cluster connection, reading and writing the Platform. */
import {
  KubeConfig,
  type KubernetesObject,
  KubernetesObjectApi,
  PatchStrategy,
} from "@kubernetes/client-node";
import type { Command } from "commander";
import type { PlatformResource } from "../../apis/platform/platform.ts";
import { types } from "../../platform/resource-types.ts";
import { UserError } from "../run.ts";

export interface GlobalFlags {
  kubeconfig?: string;
  context?: string;
  namespace: string;
  platform: string;
  output: "text" | "json";
}

export const fieldManager = "slipway-cli";

/** Adds the global flags every platform command takes. */
export function withGlobalFlags(command: Command): Command {
  return command
    .option("--kubeconfig <file>", "kubeconfig file (default: $KUBECONFIG or ~/.kube/config)")
    .option("--context <name>", "kubeconfig context")
    .option("-n, --namespace <namespace>", "namespace of the platform", "slipway")
    .option("--platform <name>", "name of the Platform", "slipway")
    .option("-o, --output <format>", "text or json", "text");
}

/** Adds --timeout and --no-wait to a command that waits. */
export function withWaitFlags(command: Command): Command {
  return command
    .option("--timeout <duration>", "how long to wait, e.g. 90s, 15m, 1h", "15m")
    .option("--no-wait", "return once the change is written");
}

export function parseDuration(text: string, flag = "--timeout"): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match)
    throw new UserError(`${flag} must be a duration such as 90s, 15m or 1h, not ${JSON.stringify(text)}`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(match[2] ?? "s") as "ms" | "s" | "m" | "h"];
  return Number(match[1]) * unit;
}

export class PlatformContext {
  readonly flags: GlobalFlags;
  readonly config: KubeConfig;
  readonly objects: KubernetesObjectApi;

  constructor(flags: GlobalFlags) {
    if (flags.output !== "text" && flags.output !== "json") {
      throw new UserError(`-o/--output must be text or json, not ${JSON.stringify(flags.output)}`);
    }
    this.flags = flags;
    this.config = loadKubeConfig(flags);
    this.objects = KubernetesObjectApi.makeApiClient(this.config);
  }

  get namespace(): string {
    return this.flags.namespace;
  }

  get json(): boolean {
    return this.flags.output === "json";
  }

  /** Progress and notes: stdout for text, stderr for json (stdout then carries only the JSON document). */
  say(line: string): void {
    (this.json ? process.stderr : process.stdout).write(`${line}\n`);
  }

  platformHeader(): { apiVersion: string; kind: string; metadata: { name: string; namespace: string } } {
    return {
      apiVersion: `${types.platform.group}/${types.platform.version}`,
      kind: types.platform.kind,
      metadata: { name: this.flags.platform, namespace: this.namespace },
    };
  }

  async readPlatform(): Promise<PlatformResource | undefined> {
    return readOptional(() => this.objects.read(this.platformHeader()) as Promise<PlatformResource>, this);
  }

  async requirePlatform(): Promise<PlatformResource> {
    const platform = await this.readPlatform();
    if (!platform) {
      throw new UserError(
        `no platform ${this.flags.platform} in namespace ${this.namespace} (install one with \`slipway install\`)`,
      );
    }
    return platform;
  }

  /** Merge-patches the Platform's spec; returns the new generation. */
  async patchSpec(spec: Record<string, unknown>): Promise<PlatformResource> {
    return call(
      () =>
        this.objects.patch(
          { ...this.platformHeader(), spec } as KubernetesObject,
          undefined,
          undefined,
          fieldManager,
          undefined,
          PatchStrategy.MergePatch,
        ) as Promise<PlatformResource>,
      this,
    );
  }

  /** Server-side applies an object as the CLI. */
  async apply<T extends KubernetesObject>(object: T): Promise<T> {
    return call(
      () =>
        this.objects.patch(object, undefined, undefined, fieldManager, true, PatchStrategy.ServerSideApply),
      this,
    );
  }
}

function loadKubeConfig(flags: GlobalFlags): KubeConfig {
  const config = new KubeConfig();
  try {
    if (flags.kubeconfig) config.loadFromFile(flags.kubeconfig);
    else config.loadFromDefault();
  } catch (error) {
    throw new UserError(`cannot read the kubeconfig ${flags.kubeconfig ?? ""}: ${(error as Error).message}`);
  }
  if (flags.context) {
    if (!config.getContextObject(flags.context))
      throw new UserError(`--context: no context ${flags.context}`);
    config.setCurrentContext(flags.context);
  }
  if (!config.getCurrentCluster())
    throw new UserError("the kubeconfig names no current cluster (use --context)");
  return config;
}

interface ApiFailure {
  code?: number;
  body?: unknown;
  message?: string;
}

/** The API server's own message for a failed request (e.g. a CEL rule's), as one line. */
export function apiMessage(error: unknown): string {
  const failure = error as ApiFailure;
  let body = failure.body;
  if (typeof body === "string") {
    try {
      body = JSON.parse(body);
    } catch {}
  }
  const message = (body as { message?: string } | undefined)?.message;
  return (message ?? failure.message ?? String(error)).replace(/\s+/g, " ");
}

/** Runs a request; refusals and unreachable servers become one readable line. */
export async function call<T>(request: () => Promise<T>, context: PlatformContext): Promise<T> {
  try {
    return await request();
  } catch (error) {
    const code = (error as ApiFailure).code;
    if (code === 401 || code === 403) throw new UserError(`the API server refused: ${apiMessage(error)}`);
    if (typeof code === "number" && code >= 400 && code < 500) throw new UserError(apiMessage(error));
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as { code?: string }).code;
    if (cause === "ECONNREFUSED" || cause === "ENOTFOUND") {
      throw new UserError(
        `cannot reach the API server ${context.config.getCurrentCluster()?.server}: ${cause}`,
      );
    }
    throw error;
  }
}

/** Like call(), but a missing object (404) is undefined. */
export async function readOptional<T>(
  request: () => Promise<T>,
  context: PlatformContext,
): Promise<T | undefined> {
  try {
    return await request();
  } catch (error) {
    if ((error as ApiFailure).code === 404) return undefined;
    return call(() => Promise.reject(error), context);
  }
}
