/**
 * The storage migration with the installer's rights: every namespace, so the CRDs'
 * `status.storedVersions` is trimmed even where the operator serves only some namespaces (it can
 * rewrite only what it can list; src/operator/storage-migration.ts). `slipway install` and `update`
 * run it once this release's operator has rolled out; `slipway storage migrate` runs it on its own
 * (for an install by `kubectl apply -f deploy/slipway.yaml` or Helm).
 */
import type { Command } from "commander";
import pino from "pino";
import { allKinds } from "../../apis/index.ts";
import { crdName } from "../../apis/kind.ts";
import { storageVersion } from "../../apis/versions.ts";
import { crdType } from "../../kube/core-types.ts";
import { resourcePath } from "../../kube/keys.ts";
import { ApiError, isNotFound } from "../../kube/rest.ts";
import {
  type KindMigration,
  migratedKinds,
  migrateStorage,
  migrationLine,
  nothingToMigrate,
  storagePlan,
} from "../../operator/storage-migration.ts";
import { UserError } from "../run.ts";
import { apiMessage, type GlobalFlags, PlatformContext } from "./context.ts";
import { sleep } from "./follow.ts";
import { operatorInCluster, waitForOperatorRollout } from "./operator-bundle.ts";

/** What the migration needs, named when the API server refuses it. */
const neededRights =
  "storage migration needs list and update on every Slipway kind in every namespace, and get and patch on Slipway's CustomResourceDefinitions and their status";

/**
 * True for the API server's answer when the conversion webhook (the operator) does not answer: a 500
 * for a read, a 429 "storage is (re)initializing" for a list served from its watch cache.
 */
export function isConversionFailure(error: unknown): boolean {
  return error instanceof ApiError && /conversion webhook/i.test(error.message);
}

/**
 * The CRDs of this release (storing the storage version) whose `status.storedVersions` lists another
 * version; an older release's CRDs (`install --manifest` of one) are not this CLI's to migrate.
 */
export async function pendingStorage(context: PlatformContext): Promise<string[]> {
  const pending: string[] = [];
  for (const kind of migratedKinds(allKinds)) {
    const crd = await context.call(() =>
      context.rest
        .request<{
          spec?: { versions?: { name: string; storage?: boolean }[] };
          status?: { storedVersions?: string[] };
        }>("GET", resourcePath(crdType, { name: crdName(kind) }))
        .catch((error) => {
          if (isNotFound(error)) return undefined;
          throw error;
        }),
    );
    const stores = crd?.spec?.versions?.find((version) => version.storage)?.name;
    if (crd && stores === storageVersion && storagePlan(crd.status?.storedVersions, true) !== "none")
      pending.push(crdName(kind));
  }
  return pending;
}

/**
 * Migrates every Slipway kind in every namespace and trims storedVersions, printing one line per CRD
 * that had anything to do. Until `conversionDeadline` (ms since the epoch) a failing conversion
 * webhook (the operator not answering yet) is waited out; after it, it is an error.
 */
export async function migrateAllNamespaces(
  context: PlatformContext,
  conversionDeadline = 0,
): Promise<KindMigration[]> {
  for (;;) {
    try {
      const results = await migrateStorage({
        rest: context.rest,
        kinds: allKinds,
        namespaces: undefined,
        log: pino({ level: "silent" }),
      });
      const lines = results.map(migrationLine).filter((line) => line !== undefined);
      for (const line of lines.length > 0 ? lines : [nothingToMigrate]) context.say(line);
      return results;
    } catch (error) {
      if (isConversionFailure(error) && Date.now() < conversionDeadline) {
        await sleep(500);
        continue;
      }
      throw migrationError(error);
    }
  }
}

/** The migration's failure as one line: what was refused and what it needs. */
function migrationError(error: unknown): unknown {
  if (!(error instanceof ApiError)) return error;
  if (error.status === 401 || error.status === 403)
    return new UserError(`the API server refused: ${apiMessage(error)} (${neededRights})`);
  if (isConversionFailure(error))
    return new UserError(
      `storage migration: ${apiMessage(error)} (the operator serves the conversion from v1alpha1 to ${storageVersion}: is this release's operator running?)`,
    );
  return new UserError(`storage migration: ${apiMessage(error)}`);
}

/**
 * After an install or update applied this release's bundle: when some CRD still stores an older
 * version, waits for the operator's rollout (its webhook converts what is read at the storage
 * version) and migrates every namespace.
 */
export async function migrateAfterRollout(
  context: PlatformContext,
  version: string,
  deadline: number,
): Promise<void> {
  const pending = await pendingStorage(context);
  if (pending.length === 0) return;
  if (!(await operatorInCluster(context))) {
    context.say(
      `objects of ${pending.join(", ")} may be stored at an older version: run \`slipway storage migrate\` once the operator runs`,
    );
    return;
  }
  await waitForOperatorRollout(context, version, deadline);
  context.say(`migrating the storage of ${pending.join(", ")} to ${storageVersion} in every namespace`);
  await migrateAllNamespaces(context, deadline);
}

export function registerStorage(program: Command): void {
  program
    .command("storage")
    .description("the storage of Slipway's objects (its API versions)")
    .command("migrate")
    .description(
      `rewrite every Slipway object stored at an older version at ${storageVersion}, in every namespace, and trim the CRDs' status.storedVersions (install and update do it; for an install by kubectl apply or Helm; needs the operator running: it converts)`,
    )
    .option("--kubeconfig <file>", "kubeconfig file (default: $KUBECONFIG or ~/.kube/config)")
    .option("--context <name>", "kubeconfig context")
    .action(async (flags: { kubeconfig?: string; context?: string }) => {
      const global: GlobalFlags = { ...flags, namespace: "default", platform: "slipway", output: "text" };
      await migrateAllNamespaces(new PlatformContext(global));
    });
}
