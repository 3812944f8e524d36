/**
 * `slipway uninstall`: the Platform (torn down by the operator in reverse order), the operator, the
 * namespace (only when `slipway install` created it), the CRDs.
 */
import { createInterface } from "node:readline/promises";
import type { Command } from "commander";
import { PlatformKind } from "../../apis/platform/platform.ts";
import type { KubeObject } from "../../kube/types.ts";
import { keepPatch } from "../../platform/kept-data.ts";
import { types } from "../../platform/resource-types.ts";
import { UserError } from "../run.ts";
import { type GlobalFlags, PlatformContext, parseDuration, withGlobalFlags } from "./context.ts";
import { sleep } from "./follow.ts";
import { writableCrds } from "./install.ts";
import { createdByInstall, namespaceObject } from "./install-namespace.ts";
import { platformReleaseBundle, servedOptionalKinds, withoutUnservedOptional } from "./operator-bundle.ts";

interface UninstallFlags extends GlobalFlags {
  yes?: boolean;
  keepCrds?: boolean;
  keepData?: boolean;
  timeout: string;
}

async function confirm(question: string): Promise<boolean> {
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await prompt.question(`${question} [y/N] `)).trim());
  } finally {
    prompt.close();
  }
}

async function waitGone(context: PlatformContext, object: KubeObject, what: string, deadline: number) {
  let lastMessage = "";
  for (;;) {
    const current = await context.read<KubeObject & { status?: { message?: string } }>(object);
    if (!current) return;
    const message = current.status?.message ?? "";
    if (message && message !== lastMessage) {
      lastMessage = message;
      context.say(`  ${what}: ${message}`);
    }
    if (Date.now() > deadline) {
      throw new UserError(`timed out waiting for ${what} to be removed${message ? `: ${message}` : ""}`);
    }
    await sleep(500);
  }
}

/**
 * The platform's PVCs and credential Secrets lose their owner, so deleting the Platform leaves them
 * (the data, and the passwords it was written with) in place for the next install to find.
 */
async function keepData(
  context: PlatformContext,
  resource: "persistentvolumeclaims" | "secrets",
  platform: string,
): Promise<number> {
  const path = `/api/v1/namespaces/${context.namespace}/${resource}`;
  const list = await context.call(() =>
    context.rest.request<{ items: KubeObject[] }>("GET", path, {
      query: { labelSelector: "app.kubernetes.io/part-of=slipway" },
    }),
  );
  const owned = list.items.filter((item) => item.metadata?.ownerReferences?.length);
  for (const item of owned) {
    await context.call(() =>
      context.rest.request("PATCH", `${path}/${item.metadata?.name}`, {
        body: keepPatch(platform),
        contentType: "application/merge-patch+json",
      }),
    );
  }
  return owned.length;
}

async function uninstall(flags: UninstallFlags): Promise<void> {
  const context = new PlatformContext(flags);
  const deadline = Date.now() + parseDuration(flags.timeout);
  const namespace = namespaceObject(context.namespace);
  const bundle = await platformReleaseBundle(context);
  // Slipway's and the workflow engine's (unless Argo's own: writableCrds)
  const crds = await writableCrds(context, bundle);
  const liveNamespace = await context.read(namespace);
  const namespaceExists = liveNamespace !== undefined;
  // only a namespace `slipway install` created is Slipway's to delete
  const deleteNamespace = createdByInstall(liveNamespace) && !flags.keepData;
  const platformCrdExists =
    (await context.read({
      ...crds[0],
      metadata: { name: `${types.platform.plural}.${types.platform.group}` },
    })) !== undefined;
  const crdsExist = (await Promise.all(crds.map((crd) => context.read(crd)))).some(Boolean);
  if (!namespaceExists && (flags.keepCrds || !crdsExist)) {
    context.say(`nothing to uninstall: namespace ${context.namespace} does not exist`);
    return;
  }
  if (!flags.yes) {
    const what = `the platform, the operator${deleteNamespace ? ` and namespace ${context.namespace}` : ""}${flags.keepCrds ? "" : " and the CRDs of Slipway and its workflow engine"}`;
    if (!process.stdin.isTTY) throw new UserError(`uninstall removes ${what}: pass --yes to confirm`);
    if (!(await confirm(`Remove ${what}?`))) throw new UserError("uninstall cancelled");
  }

  const platform = platformCrdExists && namespaceExists ? await context.readPlatform() : undefined;
  if (platform) {
    if (flags.keepData) {
      const name = platform.metadata.name ?? "";
      const claims = await keepData(context, "persistentvolumeclaims", name);
      const secrets = await keepData(context, "secrets", name);
      context.say(`kept ${claims} volume claim(s) and their data, ${secrets} credential Secret(s)`);
    }
    context.say(`removing platform ${platform.metadata.name} (components in reverse dependency order)`);
    const object = {
      apiVersion: PlatformKind.apiVersion,
      kind: PlatformKind.kind,
      metadata: context.platformKey,
    };
    await context.remove(object);
    await waitGone(context, object, `platform ${platform.metadata.name}`, deadline);
  }
  const operatorObjects = withoutUnservedOptional(
    bundle.filter((o) => o.kind !== "CustomResourceDefinition" && o.kind !== "Namespace"),
    await servedOptionalKinds(context),
  );
  let removed = 0;
  for (const object of operatorObjects) if (await context.remove(object as KubeObject)) removed++;
  if (removed) context.say(`removed the operator (${removed} objects)`);
  if (deleteNamespace) {
    await context.remove(namespace);
    await waitGone(context, namespace, `namespace ${context.namespace}`, deadline);
    context.say(`removed namespace ${context.namespace}`);
  } else if (namespaceExists && !flags.keepData) {
    context.say(`left namespace ${context.namespace}: slipway install did not create it`);
  }
  if (!flags.keepCrds) {
    for (const crd of crds) await context.remove(crd);
    // the API server first deletes every object of a CRD; only then is it gone
    for (const crd of crds) await waitGone(context, crd, `CRD ${crd.metadata?.name}`, deadline);
    context.say(`removed ${crds.length} CRDs`);
  }
  context.say("uninstalled");
}

export function registerUninstall(program: Command): void {
  withGlobalFlags(
    program
      .command("uninstall")
      .description(
        "remove the platform, the operator, the namespace install created and (unless kept) the CRDs; idempotent",
      )
      .option("--yes", "do not ask for confirmation")
      .option("--keep-crds", "leave the CustomResourceDefinitions (other installs may use them)")
      .option("--keep-data", "leave the volume claims (and so the namespace) in place")
      .option("--timeout <duration>", "how long to wait for the removal", "15m"),
  ).action(uninstall);
}
