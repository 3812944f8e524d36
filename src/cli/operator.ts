import type { Command } from "commander";
import { loadClusterAccess } from "../kube/kubeconfig.ts";
import { defaultClientRateLimit } from "../kube/rate-limit.ts";
import { clientRateLimitFlags, parseClientRateLimit } from "../operator/client-rate-limit.ts";
import { namespacesFromFlags } from "../operator/namespaces.ts";
import { UserError } from "./run.ts";

/** `parse()`'s error as a UserError (a message for the user, not a stack trace). */
function userError<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new UserError((error as Error).message);
  }
}

function port(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new UserError(`${flag} must be a port number (0-65535), not ${value}`);
  return n;
}

/** `slipway operator`: runs every controller (src/operator/controllers.ts) with leader election. */
export function registerOperatorCommand(program: Command): void {
  program
    .command("operator")
    .description(
      "run the Slipway controllers (leader-elected; /metrics, /healthz, /readyz, /namespaces/{ns}/platforms/{name}/status)",
    )
    .option(
      "--kubeconfig <path>",
      "kubeconfig file (default: $KUBECONFIG, ~/.kube/config, else in-cluster credentials)",
    )
    .option("--context <name>", "kubeconfig context (default: its current context)")
    .option("--namespaces <a,b>", "serve only these namespaces (default: all namespaces)")
    .option("--namespace <name>", "serve only this namespace (as --namespaces with one name)")
    .option("--all-namespaces", "serve every namespace (the default)")
    .option("--metrics-port <port>", "port for /metrics", "8080")
    .option("--health-port <port>", "port for /healthz and /readyz", "8081")
    .option(
      "--ops-bind-address <address>",
      "address of the metrics and health ports (in a pod: 0.0.0.0)",
      "127.0.0.1",
    )
    .option(
      "--ops-require-token",
      "/metrics and the status route answer only bearer tokens RBAC allows to get the path (TokenReview + SubjectAccessReview)",
      false,
    )
    .option("--leader-elect", "campaign for the leader Lease; only the leader runs controllers", true)
    .option("--no-leader-elect", "run controllers without leader election")
    .option("--lease-namespace <name>", "namespace of the leader Lease (default: the pod's namespace)")
    .option("--webhook-port <port>", "serve the admission webhooks (HTTPS) on this port (default: none)")
    .option(
      "--webhook-conversion-service <name>",
      "also serve the CRDs' version conversion, through this Service of the operator's namespace (port 443), and migrate stored objects to the storage version once leading",
    )
    .option(
      "--webhook-conversion-url <url>",
      "as --webhook-conversion-service, for an API server that calls the operator by URL (an operator outside the cluster)",
    )
    .option(
      "--webhook-hosts <a,b>",
      "names the API server calls the webhooks by (the serving certificate's)",
      "127.0.0.1",
    )
    .option(
      "--webhook-configuration <names>",
      "ValidatingWebhookConfigurations whose caBundle the operator keeps (comma-separated)",
    )
    .option("--shutdown-timeout <seconds>", "how long in-flight reconciles may run after SIGTERM", "30")
    .option(
      `${clientRateLimitFlags.qps.flag} <qps>`,
      `API requests a second, on average (watches not counted; or ${clientRateLimitFlags.qps.env}; default ${defaultClientRateLimit.qps})`,
    )
    .option(
      `${clientRateLimitFlags.burst.flag} <requests>`,
      `API requests at once above the rate (or ${clientRateLimitFlags.burst.env}; default ${defaultClientRateLimit.burst})`,
    )
    .action(
      async (options: {
        kubeconfig?: string;
        context?: string;
        namespace?: string;
        namespaces?: string;
        allNamespaces?: boolean;
        metricsPort: string;
        healthPort: string;
        opsBindAddress: string;
        opsRequireToken: boolean;
        leaderElect: boolean;
        leaseNamespace?: string;
        shutdownTimeout: string;
        webhookPort?: string;
        webhookHosts: string;
        webhookConfiguration?: string;
        webhookConversionService?: string;
        webhookConversionUrl?: string;
        kubeApiQps?: string;
        kubeApiBurst?: string;
      }) => {
        const shutdown = Number(options.shutdownTimeout);
        if (!Number.isFinite(shutdown) || shutdown < 0) {
          throw new UserError(
            `--shutdown-timeout must be a number of seconds, not ${options.shutdownTimeout}`,
          );
        }
        const metricsPort = port("--metrics-port", options.metricsPort);
        const healthPort = port("--health-port", options.healthPort);
        const namespaces = userError(() => namespacesFromFlags(options));
        const clientRateLimit = userError(() =>
          parseClientRateLimit({ qps: options.kubeApiQps, burst: options.kubeApiBurst }),
        );
        const webhookPort = port("--webhook-port", options.webhookPort);
        const list = (text: string | undefined) => (text ?? "").split(",").filter(Boolean);
        // not client-node's KubeConfig: it imports the whole generated API (+71 MB resident)
        const kubeConfig = await loadClusterAccess({
          kubeconfig: options.kubeconfig,
          context: options.context,
        }).catch((error: Error) => {
          throw new UserError(error.message);
        });
        // loaded on use: the controllers are heavy and other commands do not need them
        const { runOperator } = await import("../operator/main.ts");
        process.exitCode = await runOperator({
          kubeConfig,
          namespaces,
          metricsPort,
          healthPort,
          opsBindAddress: options.opsBindAddress,
          opsRequireToken: options.opsRequireToken,
          leaderElect: options.leaderElect,
          leaseNamespace: options.leaseNamespace,
          shutdownDeadlineMs: shutdown * 1000,
          clientRateLimit,
          ...(webhookPort === undefined
            ? {}
            : {
                webhook: {
                  port: webhookPort,
                  hosts: list(options.webhookHosts),
                  configurations: list(options.webhookConfiguration),
                  ...(options.webhookConversionService
                    ? { conversion: { service: options.webhookConversionService } }
                    : options.webhookConversionUrl
                      ? { conversion: { url: options.webhookConversionUrl } }
                      : {}),
                },
              }),
        });
      },
    );
}
