#!/usr/bin/env node
import { Command } from "commander";
import { registerDevCommands } from "./dev.ts";
import { registerOperatorCommand } from "./operator.ts";
import { registerPipelinesCommands } from "./pipelines.ts";
import { registerPlatformCommands } from "./platform/register.ts";
import { runCli } from "./run.ts";
import { registerServerCommand } from "./server.ts";

const program = new Command("slipway")
  .description("Runs an ML platform on Kubernetes: operator, API server, CLI and web UI")
  .showHelpAfterError();
registerDevCommands(program);
registerPlatformCommands(program);
registerOperatorCommand(program);
registerServerCommand(program);
registerPipelinesCommands(program);

await runCli(program, process.argv);
