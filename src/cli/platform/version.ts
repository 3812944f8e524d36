/** `slipway version`: the CLI's, the operator's and the platform's versions, and the releases the catalog knows. */
import type { Command } from "commander";
import { operatorName } from "../../bundle/bundle.ts";
import { ownVersion, releases } from "../../platform/catalog.ts";
import { type GlobalFlags, PlatformContext, withGlobalFlags } from "./context.ts";

export function registerVersion(program: Command): void {
  withGlobalFlags(
    program.command("version").description("CLI, operator and platform versions; known releases"),
  ).action(async (flags: GlobalFlags) => {
    const context = new PlatformContext(flags);
    const operator = await context
      .read({
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: operatorName, namespace: context.namespace },
      })
      .catch(() => undefined);
    const platform = await context.readPlatform().catch(() => undefined);
    const versions = {
      cli: ownVersion,
      operator: operator?.metadata?.labels?.["app.kubernetes.io/version"] ?? null,
      platform: platform?.status?.version ?? null,
      catalog: releases.map((release) => release.version),
    };
    if (context.json) {
      process.stdout.write(`${JSON.stringify(versions, null, 2)}\n`);
      return;
    }
    process.stdout.write(
      `${[
        `cli:      ${versions.cli}`,
        `operator: ${versions.operator ?? `not running in namespace ${context.namespace}`}`,
        `platform: ${versions.platform ?? "not installed"}`,
        `catalog:  ${versions.catalog.join(", ")}`,
      ].join("\n")}\n`,
    );
  });
}
