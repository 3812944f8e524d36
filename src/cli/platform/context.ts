/** What every platform command shares: global flags, the cluster connection, reading and writing the Platform. */
import type { KubeConfig } from "@kubernetes/client-node";
import type { Command } from "commander";
import type { PlatformResource } from "../../apis/platform/platform.ts";
import { KubeClient } from "../../kube/client.ts";
import { ResourceTypes } from "../../kube/discovery.ts";
import { keyOf, resourcePath } from "../../kube/keys.ts";
import { ApiError, RestClient } from "../../kube/rest.ts";
import type { KubeObject, ObjectKey } from "../../kube/types.ts";
import { types } from "../../platform/resource-types.ts";
import { loadKubeConfig } from "../kubeconfig.ts";
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

/** The flags of a command that waits (withWaitFlags) besides the global ones. */
export interface WaitFlags extends GlobalFlags {
  timeout: string;
  wait: boolean;
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
  readonly rest: RestClient;
  readonly types: ResourceTypes;
  readonly kube: KubeClient;

  constructor(flags: GlobalFlags) {
    if (flags.output !== "text" && flags.output !== "json") {
      throw new UserError(`-o/--output must be text or json, not ${JSON.stringify(flags.output)}`);
    }
    this.flags = flags;
    this.config = loadKubeConfig(flags);
    this.rest = new RestClient(this.config, { userAgent: fieldManager });
    this.types = new ResourceTypes(this.rest);
    this.kube = new KubeClient(this.rest, this.types, { fieldManager });
  }

  get namespace(): string {
    return this.flags.namespace;
  }

  get json(): boolean {
    return this.flags.output === "json";
  }

  get platformKey(): ObjectKey {
    return { namespace: this.namespace, name: this.flags.platform };
  }

  /** Progress and notes: stdout for text, stderr for json (stdout then carries only the JSON document). */
  say(line: string): void {
    (this.json ? process.stderr : process.stdout).write(`${line}\n`);
  }

  readPlatform(): Promise<PlatformResource | undefined> {
    return this.call(() => this.kube.get<PlatformResource>(types.platform, this.platformKey));
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

  /** Merge-patches the Platform's spec. */
  patchSpec(spec: Record<string, unknown>): Promise<PlatformResource> {
    return this.call(() =>
      this.rest.request<PlatformResource>("PATCH", resourcePath(types.platform, this.platformKey), {
        body: { spec },
        contentType: "application/merge-patch+json",
        query: { fieldManager },
      }),
    );
  }

  /** Server-side applies an object as the CLI (forced: the installer's objects are its to set). */
  apply<T extends KubeObject>(object: T): Promise<T> {
    return this.call(() => this.kube.apply(object, { force: true }));
  }

  /** Reads any object by its apiVersion, kind and name; undefined when missing. */
  async read<T extends KubeObject>(object: KubeObject): Promise<T | undefined> {
    const type = await this.call(() => this.types.resolve(object.apiVersion, object.kind));
    return this.call(() => this.kube.get<T>(type, keyOf(object)));
  }

  /** Deletes an object (background propagation); true when it existed. */
  async remove(object: KubeObject): Promise<boolean> {
    const type = await this.call(() => this.types.resolve(object.apiVersion, object.kind));
    const existed = (await this.call(() => this.kube.get(type, keyOf(object)))) !== undefined;
    if (existed) await this.call(() => this.kube.delete(type, keyOf(object)));
    return existed;
  }

  /** Runs a request; refusals and unreachable servers become one readable line. */
  async call<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      if (error instanceof ApiError) {
        if (error.status === 401 || error.status === 403) {
          throw new UserError(`the API server refused: ${apiMessage(error)}`);
        }
        if (error.status >= 400 && error.status < 500) throw new UserError(apiMessage(error));
      }
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as { code?: string }).code;
      if (cause === "ECONNREFUSED" || cause === "ENOTFOUND" || cause === "ECONNRESET") {
        throw new UserError(
          `cannot reach the API server ${this.config.getCurrentCluster()?.server}: ${cause}`,
        );
      }
      throw error;
    }
  }
}

/** The API server's message (e.g. a CEL rule's) without the request line, as one line. */
export function apiMessage(error: ApiError): string {
  const message = error.message.replace(/^[A-Z]+ \S+: \d+ /, "");
  return message.replace(/\s+/g, " ").trim();
}
