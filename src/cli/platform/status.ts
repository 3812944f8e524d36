/**
 * `slipway status`: phase, version and a table of components with their in-cluster endpoints;
 * `--wait PHASE` follows until that phase.
 */
import type { Command } from "commander";
import { type PlatformPhase, type PlatformResource, platformPhases } from "../../apis/platform/platform.ts";
import { servesFromArgs } from "../../bundle/bundle.ts";
import { UserError } from "../run.ts";
import { type GlobalFlags, PlatformContext, parseDuration, withGlobalFlags } from "./context.ts";
import { followPlatform, summary } from "./follow.ts";
import { servedText } from "./install.ts";
import { operatorArgs } from "./operator-bundle.ts";

/** The text form of a Platform's status; `operator` says where the operator runs and what it serves. */
export function statusText(platform: PlatformResource, operator?: string): string {
  const status = platform.status ?? {};
  const rows = (status.components ?? []).map((c) => [
    c.name,
    c.phase,
    c.ready,
    c.version ?? "",
    c.endpoint ?? "",
    c.message ?? "",
  ]);
  const table = [["COMPONENT", "PHASE", "READY", "VERSION", "ENDPOINT", "MESSAGE"], ...rows];
  const widths =
    table[0]?.map((_, column) => Math.max(...table.map((row) => (row[column] ?? "").length))) ?? [];
  const lines = table.map((row) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join("  ")
      .trimEnd(),
  );
  return [
    `platform ${platform.metadata.name} (namespace ${platform.metadata.namespace})`,
    `phase:   ${status.phase ?? "Pending"}${status.message ? ` — ${status.message}` : ""}`,
    `version: ${status.version ?? "-"}${platform.spec.version && platform.spec.version !== status.version ? ` (target ${platform.spec.version})` : ""}`,
    `ready:   ${status.ready ?? "0/0"}`,
    ...(status.provider ? [`pipelines: Provider ${status.provider} (the platform's workflow engine)`] : []),
    ...(operator ? [`operator: ${operator}`] : []),
    "",
    ...lines,
  ].join("\n");
}

/** Which namespaces the operator in the platform's namespace serves, or that it runs outside the cluster. */
async function operatorText(context: PlatformContext): Promise<string> {
  const args = await operatorArgs(context);
  if (!args)
    return `not in namespace ${context.namespace} (runs outside the cluster; \`slipway dev up\`'s serves all namespaces)`;
  return `serves ${servedText(servesFromArgs(args), context.namespace)}`;
}

export function registerStatus(program: Command): void {
  withGlobalFlags(
    program
      .command("status")
      .description("the platform's phase, version and components")
      .option("--wait <phase>", `wait until the platform is in this phase (${platformPhases.join(", ")})`)
      .option("--timeout <duration>", "how long --wait waits", "15m"),
  ).action(async (flags: GlobalFlags & { wait?: string; timeout: string }) => {
    const context = new PlatformContext(flags);
    let platform = await context.requirePlatform();
    if (flags.wait) {
      if (!(platformPhases as readonly string[]).includes(flags.wait)) {
        throw new UserError(`--wait must be one of ${platformPhases.join(", ")}, not ${flags.wait}`);
      }
      platform = await followPlatform(context, {
        until: flags.wait as PlatformPhase,
        generation: platform.metadata.generation ?? 0,
        timeoutMs: parseDuration(flags.timeout),
      });
    }
    const operator = await operatorText(context);
    process.stdout.write(
      context.json
        ? `${JSON.stringify({ ...summary(platform), operator }, null, 2)}\n`
        : `${statusText(platform, operator)}\n`,
    );
  });
}
