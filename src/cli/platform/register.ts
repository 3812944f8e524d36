import type { Command } from "commander";
import { registerInstall } from "./install.ts";
import { registerLifecycle } from "./lifecycle.ts";
import { registerStatus } from "./status.ts";
import { registerStorage } from "./storage.ts";
import { registerUninstall } from "./uninstall.ts";
import { registerVersion } from "./version.ts";

/** install, status, update, stop, start, restart, patch, uninstall, version, storage migrate. */
export function registerPlatformCommands(program: Command): void {
  registerInstall(program);
  registerStatus(program);
  registerLifecycle(program);
  registerUninstall(program);
  registerVersion(program);
  registerStorage(program);
}
