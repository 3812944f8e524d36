/** `slipway install`: the release bundle (or only the CRDs with --dev), the namespace, the Platform; then waits for Running. */

import type { Command } from "commander";
import { PlatformKind } from "../../apis/platform/platform.ts";
import { type BundleObject, type BundleOptions, inNamespace } from "../../bundle/bundle.ts";
import { grantsFor } from "../../bundle/grants.ts";
import { crdWithoutConversion } from "../../bundle/webhook.ts";
import { newestRelease } from "../../dev/real-node/images.ts";
import type { KubeObject } from "../../kube/types.ts";
import { deepMerge } from "../../lib/merge.ts";
import { describeNamespaces, namespacesFromFlags } from "../../operator/namespaces.ts";
import { isEngineCrd, replaceableEngineCrd } from "../../pipelines/argo/crds.ts";
import { ownVersion } from "../../platform/catalog.ts";
import { UserError } from "../run.ts";
import { PlatformContext, parseDuration, type WaitFlags, withGlobalFlags, withWaitFlags } from "./context.ts";
import { type DevPlacement, devPlacement, devPlaneOf } from "./dev-plane.ts";
import { followPlatform, reportDone } from "./follow.ts";
import { type IngressFlags, ingressSpecFromFlags } from "./ingress-flags.ts";
import { createdNamespace, namespaceObject, withoutNamespaces } from "./install-namespace.ts";
import {
  type InstallerPolicyFlags,
  installerPolicyFromFlags,
  withInstallerPolicyFlags,
} from "./installer-policy.ts";
import { collect, setExpression } from "./lifecycle.ts";
import { readManifest } from "./manifest.ts";
import { platformReleaseBundle, servedObjects } from "./operator-bundle.ts";
import { migrateAfterRollout } from "./storage.ts";
import { knownVersion } from "./versions.ts";

interface InstallFlags extends WaitFlags, IngressFlags, InstallerPolicyFlags {
  version?: string;
  storageClass?: string;
  artifactsSize?: string;
  registrySize?: string;
  builderCacheSize?: string;
  multiNode?: boolean;
  manifest?: string;
  dev?: boolean;
  realNode?: boolean;
  namespaces?: string;
  allNamespaces?: boolean;
  set?: string[];
}

const quantity = /^[0-9]+(\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$/;

function sizeFlag(flag: string, value: string | undefined): string | undefined {
  if (value !== undefined && !quantity.test(value)) {
    throw new UserError(`${flag} must be a storage quantity such as 50Gi, not ${JSON.stringify(value)}`);
  }
  return value;
}

/** The Platform spec the flags ask for (unset flags are left to the CRD's defaults). */
export function platformSpecFromFlags(flags: InstallFlags): Record<string, unknown> {
  const storage = Object.fromEntries(
    Object.entries({
      storageClassName: flags.storageClass,
      artifactsSize: sizeFlag("--artifacts-size", flags.artifactsSize),
      registrySize: sizeFlag("--registry-size", flags.registrySize),
      builderCacheSize: sizeFlag("--builder-cache-size", flags.builderCacheSize),
    }).filter(([, value]) => value !== undefined),
  );
  const base: Record<string, unknown> = {
    version: knownVersion(flags.version ?? ownVersion),
    ...ingressSpecFromFlags(flags),
    ...(flags.multiNode ? { singleNode: false } : {}),
    ...(Object.keys(storage).length ? { storage } : {}),
  };
  const spec = (flags.set ?? []).reduce<Record<string, unknown>>(
    (merged, expression) => deepMerge(merged, setExpression(expression)),
    base,
  );
  // the CRD's rule too, but it would refuse the Platform only after the bundle is applied
  if (flags.tlsSecret !== undefined && spec.host === undefined)
    throw new UserError("--tls-secret needs --host: the name the certificate is for");
  return spec;
}

async function install(given: InstallFlags): Promise<void> {
  const context = new PlatformContext(given);
  if (given.realNode && !given.dev) {
    throw new UserError(
      "--real-node needs --dev: it places the platform on a `slipway dev` plane's real node",
    );
  }
  const placement: DevPlacement = given.dev
    ? devPlacement(
        await devPlaneOf(given.kubeconfig ?? process.env.KUBECONFIG),
        given,
        newestRelease().version,
      )
    : { flags: {} };
  const flags: InstallFlags = { ...given, ...placement.flags };
  const spec = platformSpecFromFlags(flags);
  const policy = installerPolicyFromFlags(flags);
  if (flags.dev && Object.keys(policy).length > 0)
    throw new UserError(
      "the operator's policy flags (--provider-service-accounts, --outbound-*, --ambient-credentials-namespaces) need the operator in the cluster: with --dev it runs outside, configured by its own environment (docs/security.md)",
    );
  const timeoutMs = parseDuration(flags.timeout);
  const existing = await readCrdAware(context);
  if (existing) {
    const status = existing.status ?? {};
    context.say(
      `platform ${existing.metadata.name} already exists in namespace ${context.namespace} (${status.phase ?? "Pending"} at ${
        status.version ?? existing.spec.version ?? "?"
      }); nothing changed: use \`slipway update\`, \`slipway patch\` or \`slipway status\``,
    );
    return;
  }
  // an existing namespace is left as it is (unlabelled: uninstall will not delete it)
  if (!(await context.read(namespaceObject(context.namespace)))) {
    await context.apply(createdNamespace(context.namespace));
  }
  // the api-server's right to review tokens, for this platform's name
  const binding = inNamespace(grantsFor(flags.platform)(ownVersion), context.namespace) as KubeObject[];
  const serves = servesFromFlags(flags);
  const bundle = await platformReleaseBundle(context, serves, policy);
  // Slipway's and the workflow engine's
  const writable = await writableCrds(context, bundle);
  // with --dev the operator outside the cluster sets the conversion (its URL) itself
  const crds = flags.dev
    ? writable.map((crd) => crdWithoutConversion(crd as BundleObject) as KubeObject)
    : writable;
  const objects: KubeObject[] = flags.dev
    ? [...crds, ...binding]
    : await servedObjects(
        context,
        flags.manifest
          ? withMissing(withoutNamespaces(await readManifest(flags.manifest, context.namespace)), binding)
          : withoutNamespaces(bundle),
      );
  for (const object of objects) {
    if (object.kind === "CustomResourceDefinition" && !crds.includes(object)) continue;
    await context.apply(object);
  }
  context.say(
    flags.dev
      ? `applied ${crds.length} CRDs and the api-server's ClusterRoleBinding; run the operator yourself (\`slipway dev up\` does)`
      : `applied the release bundle ${flags.manifest ?? ownVersion} (${objects.length} objects) to namespace ${context.namespace}; the operator serves ${servedText(serves, context.namespace)}`,
  );
  if (placement.notice) context.say(placement.notice);
  // CRDs kept from an earlier release may list v1alpha1 in storedVersions: the installer, who sees
  // every namespace, finishes the migration the operator of some namespaces cannot
  if (!flags.dev) await migrateAfterRollout(context, spec.version as string, Date.now() + timeoutMs);
  await waitForCrd(context);
  const created = await context.apply<KubeObject>({
    apiVersion: PlatformKind.apiVersion,
    kind: PlatformKind.kind,
    metadata: context.platformKey,
    spec,
  } as KubeObject);
  context.say(`created platform ${context.flags.platform} at ${spec.version}`);
  if (!flags.wait) {
    if (placement.simulated) context.say(placement.simulated);
    return;
  }
  const platform = await followPlatform(context, {
    until: "Running",
    generation: created.metadata?.generation ?? 1,
    version: spec.version as string,
    timeoutMs,
  });
  reportDone(context, platform);
  if (placement.simulated) context.say(placement.simulated);
}

/**
 * The bundle's CRDs an install may write or remove: Slipway's, and the workflow engine's unless the
 * cluster has Argo's own (with full schemas: see replaceableEngineCrd).
 */
export async function writableCrds(context: PlatformContext, objects: KubeObject[]): Promise<KubeObject[]> {
  const writable: KubeObject[] = [];
  for (const crd of objects.filter((object) => object.kind === "CustomResourceDefinition")) {
    if (isEngineCrd(crd) && !replaceableEngineCrd(await context.read<KubeObject & { spec?: unknown }>(crd))) {
      continue;
    }
    writable.push(crd);
  }
  return writable;
}

/** What the operator should serve: its own namespace (no flag), the --namespaces list, or all. */
function servesFromFlags(flags: InstallFlags): BundleOptions["serves"] {
  if (flags.namespaces === undefined && !flags.allNamespaces) return undefined;
  try {
    return namespacesFromFlags({ namespaces: flags.namespaces, allNamespaces: flags.allNamespaces }) ?? "all";
  } catch (error) {
    throw new UserError((error as Error).message);
  }
}

export function servedText(serves: BundleOptions["serves"], own: string): string {
  return describeNamespaces(serves === "all" ? undefined : (serves ?? [own]));
}

const platformCrd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "platforms.platform.slipway.dev" },
};

type CrdView = KubeObject & { status?: { conditions?: { type: string; status: string }[] } };

const readPlatformCrd = (context: PlatformContext) => context.read<CrdView>(platformCrd);

/** Reads the Platform; before the CRD exists there is none. */
/** `objects` with those of `extra` it does not already hold (by kind and name) added. */
function withMissing(objects: KubeObject[], extra: KubeObject[]): KubeObject[] {
  const held = (e: KubeObject) =>
    objects.some((o) => o.kind === e.kind && o.metadata?.name === e.metadata?.name);
  return [...objects, ...extra.filter((e) => !held(e))];
}

async function readCrdAware(context: PlatformContext) {
  return (await readPlatformCrd(context)) ? context.readPlatform() : undefined;
}

async function waitForCrd(context: PlatformContext): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const crd = await readPlatformCrd(context);
    if (crd?.status?.conditions?.some((c) => c.type === "Established" && c.status === "True")) return;
    if (Date.now() > deadline) throw new UserError("the Platform CRD did not become Established within 30s");
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export function registerInstall(program: Command): void {
  const command = withWaitFlags(
    withGlobalFlags(
      program
        .command("install")
        .description("install the platform into one namespace and wait until it is Running")
        .option("--version <version>", `the Slipway release (default ${ownVersion})`)
        .option("--host <fqdn>", "host name of the Ingress (every rule's host; the TLS certificate's name)")
        .option(
          "--tls-secret <name>",
          "serve the Ingress over HTTPS with this kubernetes.io/tls Secret of the namespace (needs --host)",
        )
        .option("--storage-class <name>", "storage class of the volumes (default: the cluster's default)")
        .option("--artifacts-size <quantity>", "size of the object store's volume (default 50Gi)")
        .option("--registry-size <quantity>", "size of the registry's volume (default 25Gi)")
        .option("--builder-cache-size <quantity>", "size of the image builder's cache (default 25Gi)")
        .option("--multi-node", "ReadWriteMany volumes (default: single node, ReadWriteOnce)")
        .option(
          "--manifest <file|https-url>",
          "a release bundle to apply instead of this release's (a file or an https:// URL)",
        )
        .option("--dev", "apply only the CRDs: the operator runs outside the cluster")
        .option(
          "--real-node",
          "with --dev on a `slipway dev` plane: every component on its real node (default: kwok's fake nodes, where nothing runs)",
        )
        .option("--namespaces <a,b>", "the namespaces the operator serves (default: the install namespace)")
        .option("--all-namespaces", "the operator serves every namespace (a ClusterRole instead of Roles)")
        .option(
          "--set <path=value>",
          "set a Platform spec field, e.g. components.web.replicas=2 (repeatable)",
          collect,
        ),
    ),
  );
  withInstallerPolicyFlags(command).action(install);
}
