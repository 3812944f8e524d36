import { existsSync } from "node:fs";
import { isIP } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Command, Option } from "commander";
import { limitFlags, parseLimits, type ServerLimits } from "../server/limits/config.ts";
import type { IssuerSettings } from "../server/registry-token/issuer.ts";
import { loadKubeConfig } from "./kubeconfig.ts";
import { UserError } from "./run.ts";

/** The built UI of this checkout or package (npm run build:web). */
const builtWebUi = fileURLToPath(new URL("../../web/dist", import.meta.url));

interface ServerFlags {
  kubeconfig?: string;
  context?: string;
  namespace: string;
  platform: string;
  port: string;
  host: string;
  webRoot: string;
  logLevel: string;
  uiOnly?: boolean;
  trustProxy?: string;
  hsts?: boolean;
  registryTokenDir?: string;
}

/**
 * `--trust-proxy a,b`: each entry an IP address or a CIDR (what the Platform's
 * spec.ingress.trustedProxies renders); an error naming the flag and the entry otherwise.
 */
export function parseTrustProxy(text: string): string[] {
  const entries = text
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [address = "", prefix, ...rest] = entry.split("/");
    const family = isIP(address);
    const max = family === 6 ? 128 : 32;
    const prefixOk = prefix === undefined || (/^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= max);
    if (family === 0 || rest.length > 0 || !prefixOk)
      throw new UserError(`--trust-proxy: ${JSON.stringify(entry)} is not an IP address or a CIDR`);
  }
  return entries;
}

async function apiServer(flags: ServerFlags & Partial<Record<keyof ServerLimits, string>>) {
  let limits: ServerLimits;
  try {
    limits = parseLimits(flags);
  } catch (error) {
    throw new UserError((error as Error).message);
  }
  // loaded on use: the server and its routes are heavy and other commands do not need them
  const { buildServer } = await import("../server/app.ts");
  const { releaseCatalog } = await import("../platform/version-change.ts");
  const platform = { namespace: flags.namespace, name: flags.platform };
  let registryToken: IssuerSettings | undefined;
  if (flags.registryTokenDir) {
    const { issuerSettingsFromDir } = await import("../server/registry-token/settings.ts");
    try {
      registryToken = issuerSettingsFromDir(flags.registryTokenDir, platform);
    } catch (error) {
      throw new UserError((error as Error).message);
    }
  }
  return buildServer({
    kubeConfig: loadKubeConfig(flags),
    platform,
    releases: releaseCatalog,
    webRoot: flags.webRoot,
    logLevel: flags.logLevel,
    prettyLogs: process.stdout.isTTY,
    limits,
    ...(flags.hsts ? { hsts: true } : {}),
    ...(flags.trustProxy ? { trustProxy: parseTrustProxy(flags.trustProxy) } : {}),
    ...(registryToken ? { registryToken } : {}),
  });
}

async function uiServer(flags: ServerFlags) {
  if (!existsSync(join(flags.webRoot, "index.html")))
    throw new UserError(
      `--ui-only: no built UI in ${flags.webRoot} (run npm run build:web, or pass --web-root)`,
    );
  const { buildUiServer } = await import("../server/app.ts");
  return buildUiServer({
    webRoot: flags.webRoot,
    logLevel: flags.logLevel,
    prettyLogs: process.stdout.isTTY,
    ...(flags.hsts ? { hsts: true } : {}),
  });
}

/** `slipway server`: the REST API, event streams and the web UI (or, with --ui-only, the UI alone). */
export function registerServerCommand(program: Command): void {
  const command = program
    .command("server")
    .description("serve the REST API, server-sent events and the web UI")
    .option(
      "--kubeconfig <file>",
      "kubeconfig of the server's own identity (default: $KUBECONFIG or ~/.kube/config)",
    )
    .option("--context <name>", "kubeconfig context")
    .option("-n, --namespace <namespace>", "namespace of the Platform", "slipway")
    .option("--platform <name>", "name of the Platform", "slipway")
    .option("--port <port>", "port to listen on (0: any free port)", "8080")
    .option("--host <address>", "address to listen on (0.0.0.0: every interface, as in a pod)", "127.0.0.1")
    .option("--ui-only", "serve only the built UI and /healthz: no API, no Kubernetes identity")
    .option("--web-root <dir>", "directory of the built UI", builtWebUi)
    .option("--log-level <level>", "trace, debug, info, warn, error", "info")
    .option(
      "--trust-proxy <addresses>",
      "proxies (comma-separated addresses or CIDRs) whose X-Forwarded-For names the client",
    )
    .option("--hsts", "served over HTTPS (behind a TLS Ingress): send Strict-Transport-Security")
    .option(
      "--registry-token-dir <dir>",
      "issue the platform registry's tokens at /registry/token, with the keys of its registry credentials Secret mounted here (one directory per key)",
    )
    .action(async (flags: ServerFlags) => {
      const port = Number(flags.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        throw new UserError(`--port must be an integer from 0 to 65535, not ${flags.port}`);
      }
      const app = flags.uiOnly ? await uiServer(flags) : await apiServer(flags);
      const address = await app.listen({ port, host: flags.host }).catch((error: NodeJS.ErrnoException) => {
        throw new UserError(`cannot listen on ${flags.host}:${port}: ${error.code ?? error.message}`);
      });
      process.stdout.write(`slipway server listening on ${address}\n`);
      await new Promise<void>((resolve) => {
        const stop = () => {
          process.off("SIGINT", stop);
          process.off("SIGTERM", stop);
          void app.close().then(() => resolve());
        };
        process.on("SIGINT", stop);
        process.on("SIGTERM", stop);
      });
    });
  for (const limit of limitFlags)
    command.addOption(new Option(`${limit.flag} <n>`, limit.description).env(limit.env));
}
