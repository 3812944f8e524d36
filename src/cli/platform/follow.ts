/** Follows a Platform's status until a phase is reached, printing each phase and component change as it happens. */
import type { PlatformPhase, PlatformResource } from "../../apis/platform/platform.ts";
import { UserError } from "../run.ts";
import type { PlatformContext } from "./context.ts";

export interface FollowOptions {
  /** The phase that means done. */
  until: PlatformPhase;
  /** Only a status that has observed at least this generation counts. */
  generation: number;
  /** For Running: the version that must be running. */
  version?: string;
  timeoutMs: number;
  pollMs?: number;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves with the Platform once done; throws a UserError naming the failing component on Failed or timeout. */
export async function followPlatform(
  context: PlatformContext,
  options: FollowOptions,
): Promise<PlatformResource> {
  const started = Date.now();
  const deadline = started + options.timeoutMs;
  const seen = new Map<string, string>();
  const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)}s`.padStart(6);
  for (;;) {
    const platform = await context.requirePlatform();
    const status = platform.status ?? {};
    const current = (status.observedGeneration ?? 0) >= options.generation;
    if (current) {
      const phaseLine = `${status.phase ?? "Pending"} ${status.ready ?? ""} ${status.message ?? ""}`.trim();
      if (seen.get("") !== phaseLine) {
        seen.set("", phaseLine);
        context.say(`${elapsed()}  platform  ${phaseLine}`);
      }
      for (const component of status.components ?? []) {
        const line = `${component.phase} ${component.ready}${component.version ? ` ${component.version}` : ""}${
          component.message && component.phase !== "Ready" ? `  ${component.message}` : ""
        }`;
        if (seen.get(component.name) !== line) {
          seen.set(component.name, line);
          context.say(`${elapsed()}  ${component.name.padEnd(16)} ${line}`);
        }
      }
      const versionOk = options.version === undefined || status.version === options.version;
      if (status.phase === options.until && versionOk) return platform;
      const stopped = updateStopped(platform, options);
      if (stopped) throw new UserError(stopped);
      if (status.phase === "Failed") {
        throw new UserError(
          `platform ${platform.metadata.name} failed: ${status.message ?? "no reason given"}`,
        );
      }
    }
    if (Date.now() >= deadline) {
      const failing = (status.components ?? []).filter(
        (c) => c.phase !== "Ready" && c.phase !== options.until,
      );
      const detail = failing
        .map((c) => `${c.name} ${c.phase}${c.message ? `: ${c.message}` : ""}`)
        .join("; ");
      throw new UserError(
        `timed out after ${Math.round(options.timeoutMs / 1000)}s waiting for ${options.until}: platform is ${
          current ? (status.phase ?? "Pending") : "not yet reconciled by the operator"
        }${detail ? ` (${detail})` : ""}`,
      );
    }
    await sleep(options.pollMs ?? 500);
  }
}

/**
 * Why an update to `options.version` will not reach it, as one line: rolled back (once the platform
 * runs the old release again: spec.updatePolicy.onFailure Rollback), or waiting for its gates.
 */
export function updateStopped(
  platform: Pick<PlatformResource, "metadata" | "status">,
  options: Pick<FollowOptions, "version">,
): string | undefined {
  const status = platform.status ?? {};
  if (options.version === undefined) return undefined;
  const rollback = status.rollback;
  if (rollback?.from === options.version && status.phase === "Running" && status.version === rollback.to) {
    return `platform ${platform.metadata.name} rolled back to ${rollback.to}: the update to ${rollback.from} failed: ${rollback.component}: ${rollback.reason}`;
  }
  const gated = status.conditions?.find((c) => c.type === "UpdateGated" && c.status === "True");
  return gated ? `platform ${platform.metadata.name} did not update: ${gated.message}` : undefined;
}

/** Prints the outcome of a waiting command: the status as JSON, or one summary line. */
export function reportDone(context: PlatformContext, platform: PlatformResource): void {
  if (context.json) {
    process.stdout.write(`${JSON.stringify(summary(platform), null, 2)}\n`);
    return;
  }
  const status = platform.status ?? {};
  context.say(
    `platform ${platform.metadata.name} is ${status.phase} at ${status.version ?? "?"} (${status.ready} ready)`,
  );
}

export function summary(platform: PlatformResource) {
  return {
    name: platform.metadata.name,
    namespace: platform.metadata.namespace,
    spec: { version: platform.spec.version, stopped: platform.spec.stopped },
    status: platform.status ?? {},
  };
}
