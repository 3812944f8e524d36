/** `slipway update | stop | start | restart | patch`: each edits the Platform's spec and follows it to the phase it leads to. */
import type { Command } from "commander";
import { parse as parseYaml } from "yaml";
import type { PlatformPhase, PlatformResource } from "../../apis/platform/platform.ts";
import { logLevels } from "../../apis/platform/schemas.ts";
import { deepMerge } from "../../lib/merge.ts";
import { ownVersion } from "../../platform/catalog.ts";
import { acknowledgeGates } from "../../platform/version-change.ts";
import { UserError } from "../run.ts";
import { PlatformContext, parseDuration, type WaitFlags, withGlobalFlags, withWaitFlags } from "./context.ts";
import { followPlatform, reportDone } from "./follow.ts";
import { type IngressFlags, ingressSpecFromFlags } from "./ingress-flags.ts";
import { applyBundleAndWait, operatorInCluster } from "./operator-bundle.ts";
import { migrateAfterRollout } from "./storage.ts";
import { dryRunUpdate } from "./update-dry-run.ts";
import { updateVersion } from "./versions.ts";

/** Writes `spec` (a merge patch) and, unless --no-wait, follows the Platform until `until`. */
async function change(
  flags: WaitFlags,
  spec: Record<string, unknown>,
  until: PlatformPhase,
  describe: string,
  version?: string,
): Promise<void> {
  const context = new PlatformContext(flags);
  const timeoutMs = parseDuration(flags.timeout);
  const before = await context.requirePlatform();
  // a change to a stopped platform is written but stays stopped
  const phase = until === "Running" && before.spec.stopped && spec.stopped !== false ? "Stopped" : until;
  const patched = await context.patchSpec(spec);
  context.say(`${describe}: platform ${context.flags.platform} in namespace ${context.namespace}`);
  if (!flags.wait) return;
  const platform = await followPlatform(context, {
    until: phase,
    generation: patched.metadata.generation ?? 0,
    ...(version && phase === "Running" ? { version } : {}),
    timeoutMs,
  });
  reportDone(context, platform);
}

/**
 * `--set a.b=value` → {a: {b: value}}; `\\.` is a dot inside a key (as in Helm), e.g.
 * `components.web.podAnnotations.example\\.com/team=ml`. The value is read as YAML (numbers, booleans).
 */
export function setExpression(expression: string): Record<string, unknown> {
  const equals = expression.indexOf("=");
  const keys =
    equals > 0
      ? expression
          .slice(0, equals)
          .split(/(?<!\\)\./)
          .map((key) => key.replaceAll("\\.", "."))
      : [];
  if (keys.length === 0 || keys.some((key) => !/^[A-Za-z0-9][\w./-]*$/.test(key))) {
    throw new UserError(
      `--set ${JSON.stringify(expression)}: expected path=value, e.g. components.web.replicas=2`,
    );
  }
  const raw = expression.slice(equals + 1);
  let value: unknown;
  try {
    value = raw === "" ? "" : parseYaml(raw);
  } catch {
    value = raw;
  }
  return keys.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value) as Record<string, unknown>;
}

export function patchSpecFromFlags(flags: { logLevel?: string; set?: string[] }): Record<string, unknown> {
  let spec: Record<string, unknown> = {};
  if (flags.logLevel !== undefined) {
    const level = flags.logLevel.toUpperCase();
    if (!(logLevels as readonly string[]).includes(level)) {
      throw new UserError(`--log-level must be one of ${logLevels.join(", ")}, not ${flags.logLevel}`);
    }
    spec.logLevel = level;
  }
  for (const expression of flags.set ?? []) spec = deepMerge(spec, setExpression(expression));
  if (Object.keys(spec).length === 0)
    throw new UserError("nothing to patch: give --log-level or --set path=value");
  return spec;
}

export const collect = (value: string, previous: string[] = []) => [...previous, value];

type UpdateFlags = WaitFlags &
  IngressFlags & { version?: string; force?: boolean; dryRun?: boolean; acknowledge?: string[] };

/** The spec patch acknowledging `gates` of `version` (spec.acknowledgedGates, the ones it had kept). */
function acknowledged(platform: PlatformResource, version: string, gates: string[]) {
  const outcome = acknowledgeGates(version, gates, platform.spec.acknowledgedGates, "--acknowledge");
  if ("problem" in outcome) throw new UserError(outcome.problem);
  return { acknowledgedGates: outcome.acknowledged };
}

export function registerLifecycle(program: Command): void {
  const waiting = (command: Command) => withWaitFlags(withGlobalFlags(command));

  waiting(
    program
      .command("update")
      .description(
        "move the platform to another release (one dependency level at a time) or change its Ingress, and wait until Running",
      )
      .option("--version <version>", "the release to run")
      .option("--force", "allow a downgrade")
      .option("--host <fqdn>", "host name of the Ingress (every rule's host; the TLS certificate's name)")
      .option("--tls-secret <name>", "serve the Ingress over HTTPS with this kubernetes.io/tls Secret")
      .option("--no-tls", "serve the Ingress over plain HTTP (removes spec.ingress.tls)")
      .option(
        "--dry-run",
        "apply nothing; show per component the objects the update would change (a diff), create and leave unrendered, and immutable-field conflicts with how the update resolves them (-o json for a document)",
      )
      .option(
        "--acknowledge <gate>",
        "acknowledge a gate of the release (a data migration, a breaking change) so the update may start (repeatable)",
        collect,
      ),
  ).action(async (flags: UpdateFlags) => {
    const ingress = ingressSpecFromFlags(flags);
    if (flags.version === undefined && flags.acknowledge === undefined && Object.keys(ingress).length === 0)
      throw new UserError(
        "nothing to update: give --version, --acknowledge, --host, --tls-secret or --no-tls",
      );
    const context = new PlatformContext(flags);
    const platform = await context.requirePlatform();
    if (flags.dryRun) {
      const version =
        flags.version === undefined
          ? {}
          : { version: updateVersion(platform, flags.version, flags.force ?? false) };
      await dryRunUpdate(context, { ...ingress, ...version });
      return;
    }
    if (flags.acknowledge !== undefined && flags.version === undefined) {
      // the gates of the update that waits: the release spec.version asks for
      const version = platform.spec.version ?? ownVersion;
      const spec = { ...ingress, ...acknowledged(platform, version, flags.acknowledge) };
      await change(flags, spec, "Running", `acknowledging ${flags.acknowledge.join(", ")}`, version);
      return;
    }
    if (flags.version === undefined) {
      await change(flags, ingress, "Running", "changing the Ingress");
      return;
    }
    const version = updateVersion(platform, flags.version, flags.force ?? false);
    const gates = flags.acknowledge ? acknowledged(platform, version, flags.acknowledge) : {};
    if (await operatorInCluster(context)) {
      const deadline = Date.now() + parseDuration(flags.timeout);
      await applyBundleAndWait(context, version, deadline);
      await migrateAfterRollout(context, version, deadline);
    }
    await change(flags, { ...ingress, ...gates, version }, "Running", `updating to ${version}`, version);
  });

  waiting(
    program.command("stop").description("stop every component in reverse dependency order (data is kept)"),
  ).action((flags: WaitFlags) => change(flags, { stopped: true }, "Stopped", "stopping"));

  waiting(program.command("start").description("start a stopped platform in dependency order")).action(
    (flags: WaitFlags) => change(flags, { stopped: false }, "Running", "starting"),
  );

  waiting(program.command("restart").description("roll every component's pods, in dependency order")).action(
    (flags: WaitFlags) => change(flags, { restartedAt: new Date().toISOString() }, "Running", "restarting"),
  );

  waiting(
    program
      .command("patch")
      .description("change the platform's spec; the change rolls out to the running workloads")
      .option("--log-level <level>", `one of ${logLevels.join(", ")}`)
      .option("--set <path=value>", "set a spec field, e.g. components.web.replicas=2 (repeatable)", collect),
  ).action((flags: WaitFlags & { logLevel?: string; set?: string[] }) =>
    change(flags, patchSpecFromFlags(flags), "Running", "patching"),
  );
}
