#!/usr/bin/env node
import { Command } from "commander";
import { registerOperatorCommand } from "./operator.ts";
import { runCli } from "./run.ts";

const program = new Command("slipway")
  .description("Runs an ML platform on Kubernetes: operator, API server, CLI and web UI")
  .showHelpAfterError();

/**
 * `slipway operator` (the image's entry point) registers only its own command: the other commands'
 * modules (dev, platform, server, pipelines) would add ~50 MB to the operator's resident memory.
 */
async function commandRegistrations(command: string | undefined): Promise<((program: Command) => void)[]> {
  if (command === "operator") return [registerOperatorCommand];
  const [dev, platform, server, pipelines] = await Promise.all([
    import("./dev.ts"),
    import("./platform/register.ts"),
    import("./server.ts"),
    import("./pipelines.ts"),
  ]);
  return [
    dev.registerDevCommands,
    platform.registerPlatformCommands,
    registerOperatorCommand,
    server.registerServerCommand,
    pipelines.registerPipelinesCommands,
  ];
}

for (const register of await commandRegistrations(process.argv[2])) register(program);
await runCli(program, process.argv);
