import { readFileSync } from "node:fs";
import pino, { type Logger } from "pino";
import { allKinds } from "../apis/index.ts";
import { buildsConfigFromEnvironment, devModeFromEnvironment } from "../builds/config.ts";
import type { ClusterAccess } from "../kube/kubeconfig.ts";
import { Manager } from "../kube/manager.ts";
import type { CacheRoute } from "../kube/ops-server.ts";
import type { ClientRateLimit } from "../kube/rate-limit.ts";
import type { ControllerSpec } from "../kube/types.ts";
import { argoSettingsFromEnvironment } from "../pipelines/argo/backend.ts";
import { eventsConfigFromEnvironment } from "../pipelines/events/config.ts";
import {
  clusterNetworksFromEnvironment,
  outboundPolicyFromEnvironment,
} from "../pipelines/outbound-policy.ts";
import {
  parseServiceAccountAllowlist,
  serviceAccountsVariable,
} from "../pipelines/provider-service-accounts.ts";
import { operatorFieldManager } from "../platform/names.ts";
import { platformStatusRoute } from "../platform/status-route.ts";
import { allControllers } from "./controllers.ts";
import { describeNamespaces } from "./namespaces.ts";
import { migrateStorage } from "./storage-migration.ts";
import { type OperatorWebhookOptions, operatorWebhooks } from "./webhooks.ts";

export interface OperatorOptions {
  kubeConfig: ClusterAccess;
  /** Serve only these namespaces; default all. */
  namespaces?: string[];
  metricsPort?: number;
  healthPort?: number;
  /** ManagerOptions.opsBindAddress / opsRequireToken. */
  opsBindAddress?: string;
  opsRequireToken?: boolean;
  leaderElect: boolean;
  leaseNamespace?: string;
  shutdownDeadlineMs?: number;
  /** ManagerOptions.clientRateLimit (default controller-runtime's 20 qps, burst 30). */
  clientRateLimit?: ClientRateLimit;
  controllers?: ControllerSpec[];
  /** Read-only endpoints on the health port; default: the Platform status endpoint. */
  routes?: CacheRoute[];
  log?: Logger;
  /** Stops the operator as SIGTERM does (for a caller that runs it in its own process). */
  stop?: AbortSignal;
  /** Serve the admission webhooks (every replica, leader or not); the namespace defaults to the lease's. */
  webhook?: Omit<OperatorWebhookOptions, "namespace" | "host"> & { namespace?: string; host?: string };
}

const serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount";

/** Where the leader Lease lives: the flag, else the pod's own namespace, else the first served one, else "default". */
function defaultLeaseNamespace(served?: string[]): string {
  if (process.env.POD_NAMESPACE) return process.env.POD_NAMESPACE;
  try {
    return readFileSync(`${serviceAccountDir}/namespace`, "utf8").trim();
  } catch {
    return served?.[0] ?? "default";
  }
}

/**
 * Runs the operator until SIGTERM/SIGINT (clean stop: exit 0) or lost leadership (exit 1, so the
 * pod restarts and campaigns again with fresh caches).
 */
export async function runOperator(options: OperatorOptions): Promise<number> {
  const log =
    options.log ?? pino({ base: { component: "operator" }, level: process.env.LOG_LEVEL ?? "info" });
  const manager = new Manager({
    kubeConfig: options.kubeConfig,
    namespaces: options.namespaces,
    fieldManager: operatorFieldManager,
    leaderElection: options.leaderElect
      ? {
          // the Manager's default Lease name: the one the bundle's RBAC lets it read and renew
          leaseNamespace: options.leaseNamespace ?? defaultLeaseNamespace(options.namespaces),
        }
      : false,
    metricsPort: options.metricsPort,
    healthPort: options.healthPort,
    ...(options.opsBindAddress ? { opsBindAddress: options.opsBindAddress } : {}),
    opsRequireToken: options.opsRequireToken ?? false,
    routes: options.routes ?? [platformStatusRoute],
    shutdownDeadlineMs: options.shutdownDeadlineMs,
    ...(options.clientRateLimit ? { clientRateLimit: options.clientRateLimit } : {}),
    log,
  });
  const controllers =
    options.controllers ??
    allControllers({
      builds: buildsConfigFromEnvironment(),
      devMode: devModeFromEnvironment(),
      events: eventsConfigFromEnvironment(),
      providerServiceAccounts: parseServiceAccountAllowlist(process.env[serviceAccountsVariable]),
      outbound: outboundPolicyFromEnvironment(),
      clusterNetworks: clusterNetworksFromEnvironment(),
      argo: argoSettingsFromEnvironment(),
    });
  for (const spec of controllers) manager.add(spec);
  const webhooks =
    options.webhook &&
    operatorWebhooks(
      manager.rest,
      {
        ...options.webhook,
        namespace:
          options.webhook.namespace ?? options.leaseNamespace ?? defaultLeaseNamespace(options.namespaces),
        host: options.webhook.host ?? options.opsBindAddress ?? "127.0.0.1",
      },
      log,
    );
  await webhooks?.start();
  const onSignal = (signal: NodeJS.Signals) => {
    log.info({ signal }, "stopping: no new work, finishing in-flight reconciles");
    void manager.stop();
  };
  process.once("SIGTERM", onSignal);
  process.once("SIGINT", onSignal);
  const onStop = () => void manager.stop();
  options.stop?.addEventListener("abort", onStop, { once: true });
  log.info(
    { identity: manager.identity, namespaces: options.namespaces ?? "(all)" },
    `operator starting: serves ${describeNamespaces(options.namespaces)}`,
  );
  await manager.start();
  // the leader (start resolves once it leads) migrates what older versions stored, in the
  // background: the webhook already converts, so nothing waits on it
  const stopMigration = new AbortController();
  const migration =
    options.webhook?.conversion && manager.leading
      ? migrateStorage({
          rest: manager.rest,
          kinds: allKinds,
          namespaces: options.namespaces,
          log,
          signal: stopMigration.signal,
        }).catch((error: unknown) => {
          if (!stopMigration.signal.aborted)
            log.error({ err: error }, "storage migration failed; it runs again when the operator restarts");
        })
      : undefined;
  const outcome = await manager.done;
  stopMigration.abort(); // an unfinished migration starts again with the next leader
  await migration;
  await webhooks?.stop();
  process.off("SIGTERM", onSignal);
  process.off("SIGINT", onSignal);
  options.stop?.removeEventListener("abort", onStop);
  log.info({ outcome }, "operator stopped");
  return outcome === "stopped" ? 0 : 1;
}
