/**
 * `slipway uninstall`: the Platform (torn down by the operator in reverse order), the objects that go
 * with the namespace or the CRDs (while the operator still runs: uninstall-plan.ts), the operator,
 * the namespace (only when `slipway install` created it), the CRDs (only when no other namespace
 * holds objects of them, unless --delete-crds).
 */

import { createInterface } from "node:readline/promises";
import type { Command } from "commander";
import { crdName } from "../../apis/kind.ts";
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
import { type CrdDecision, crdDecision, type HeldObject, objectsToDrain } from "./uninstall-plan.ts";

interface UninstallFlags extends GlobalFlags {
  yes?: boolean;
  keepCrds?: boolean;
  deleteCrds?: boolean;
  keepData?: boolean;
  timeout: string;
  finalizerWait: string;
}

interface CrdObject extends KubeObject {
  spec?: {
    group?: string;
    scope?: string;
    names?: { plural?: string; kind?: string };
    versions?: { name: string; storage?: boolean }[];
  };
}

/** An object of a CRD's kind, with the path to delete or patch it. */
type ListedObject = HeldObject & { path: string };

/** A list, asked again while the API server answers 429 (a just-installed CRD's storage still initializing). */
async function listing(
  context: PlatformContext,
  path: string,
  until: number,
): Promise<{ items: KubeObject[] }> {
  for (;;) {
    try {
      return await context.rest.request<{ items: KubeObject[] }>("GET", path);
    } catch (error) {
      if ((error as { status?: number }).status !== 429 || Date.now() > until) throw error;
      await sleep(500);
    }
  }
}

/** Every object of the CRDs' kinds in the cluster (a CRD not installed has none). */
async function census(context: PlatformContext, crds: CrdObject[]): Promise<ListedObject[]> {
  const objects: ListedObject[] = [];
  for (const crd of crds) {
    const { group, names, versions } = crd.spec ?? {};
    const version = versions?.find((v) => v.storage)?.name ?? versions?.[0]?.name;
    if (!group || !names?.plural || !version) continue;
    if (!(await context.read(crd))) continue;
    const list = await context.call(() =>
      listing(context, `/apis/${group}/${version}/${names.plural}`, Date.now() + 30_000),
    );
    for (const item of list.items) {
      const namespace = item.metadata?.namespace;
      const name = item.metadata?.name ?? "";
      const where = namespace ? `/namespaces/${namespace}` : "";
      objects.push({
        kind: names.kind ?? item.kind ?? names.plural,
        ...(namespace ? { namespace } : {}),
        name,
        finalizers: item.metadata?.finalizers ?? [],
        path: `/apis/${group}/${version}${where}/${names.plural}/${name}`,
      });
    }
  }
  return objects;
}

async function stillThere(context: PlatformContext, objects: ListedObject[]): Promise<ListedObject[]> {
  const present: ListedObject[] = [];
  for (const object of objects) {
    const live = await context.call(() =>
      context.rest.request<KubeObject>("GET", object.path).catch((error: { status?: number }) => {
        if (error.status === 404) return undefined;
        throw error;
      }),
    );
    if (live) present.push({ ...object, finalizers: live.metadata?.finalizers ?? [] });
  }
  return present;
}

/**
 * Deletes `objects` while the operator still runs and gives it `waitMs` to process their finalizers;
 * then clears the finalizers of those left (nothing would ever remove them once the operator is
 * gone) and waits for them to go.
 */
async function drain(context: PlatformContext, objects: ListedObject[], waitMs: number, deadline: number) {
  if (objects.length === 0) return;
  context.say(`removing ${objects.length} object(s) of Slipway's kinds while the operator can finalize them`);
  for (const object of objects)
    await context.call(() =>
      context.rest.request("DELETE", object.path).catch((error: { status?: number }) => {
        if (error.status !== 404) throw error;
      }),
    );
  const waitUntil = Math.min(deadline, Date.now() + waitMs);
  let left = await stillThere(context, objects);
  while (left.length > 0 && Date.now() < waitUntil) {
    await sleep(500);
    left = await stillThere(context, left);
  }
  const held = left.filter((object) => object.finalizers.length > 0);
  if (held.length > 0) {
    for (const object of held)
      await context.call(() =>
        context.rest
          .request("PATCH", object.path, {
            body: { metadata: { finalizers: null } },
            contentType: "application/merge-patch+json",
          })
          .catch((error: { status?: number }) => {
            if (error.status !== 404) throw error;
          }),
      );
    const names = held.map((o) => `${o.kind} ${o.namespace ? `${o.namespace}/` : ""}${o.name}`);
    context.say(`cleared the finalizers the operator did not process: ${names.join(", ")}`);
  }
  while (left.length > 0) {
    if (Date.now() > deadline)
      throw new UserError(`timed out waiting for ${left.length} object(s) of Slipway's kinds to be removed`);
    await sleep(500);
    left = await stillThere(context, left);
  }
}

function crdsNote(decision: CrdDecision, count: number): string {
  if (decision.delete) return `removed ${count} CRDs`;
  if (decision.why === "held")
    return `kept the CRDs: other namespaces hold objects of them (${decision.held}); --delete-crds deletes them with every such object`;
  return "";
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
  if (flags.keepCrds && flags.deleteCrds) throw new UserError("--keep-crds and --delete-crds: pick one");
  const context = new PlatformContext(flags);
  const deadline = Date.now() + parseDuration(flags.timeout);
  const finalizerWait = parseDuration(flags.finalizerWait, "--finalizer-wait");
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
      metadata: { name: crdName(types.platform) },
    })) !== undefined;
  const crdsExist = (await Promise.all(crds.map((crd) => context.read(crd)))).some(Boolean);
  const objects = flags.keepCrds || !crdsExist ? [] : await census(context, crds as CrdObject[]);
  const decision = crdDecision(flags, crdsExist, objects, context.namespace);
  if (!namespaceExists && !decision.delete) {
    context.say(`nothing to uninstall: namespace ${context.namespace} does not exist`);
    const note = crdsNote(decision, crds.length);
    if (note) context.say(note);
    return;
  }
  if (!flags.yes) {
    const what = `the platform, the operator${deleteNamespace ? ` and namespace ${context.namespace}` : ""}${decision.delete ? ` and the CRDs of Slipway and its workflow engine${flags.deleteCrds ? ", with every object of them in every namespace" : ""}` : ""}`;
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
  // before the operator goes: it finalizes what goes with the namespace or the CRDs
  const draining = decision.delete || deleteNamespace ? await census(context, crds as CrdObject[]) : [];
  await drain(
    context,
    objectsToDrain(draining, context.namespace, { crds: decision.delete, namespace: deleteNamespace }),
    finalizerWait,
    deadline,
  );
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
  if (decision.delete) {
    for (const crd of crds) await context.remove(crd);
    // the API server first deletes every object of a CRD; only then is it gone
    for (const crd of crds) await waitGone(context, crd, `CRD ${crd.metadata?.name}`, deadline);
  }
  const note = crdsNote(decision, crds.length);
  if (note) context.say(note);
  context.say("uninstalled");
}

export function registerUninstall(program: Command): void {
  withGlobalFlags(
    program
      .command("uninstall")
      .description(
        "remove the platform, the operator, the namespace install created and the CRDs (unless another namespace holds objects of them); idempotent",
      )
      .option("--yes", "do not ask for confirmation")
      .option("--keep-crds", "leave the CustomResourceDefinitions (other installs may use them)")
      .option(
        "--delete-crds",
        "delete the CustomResourceDefinitions even when other namespaces hold objects of them (deleting those too)",
      )
      .option(
        "--finalizer-wait <duration>",
        "how long the operator gets to finalize the objects that go, before uninstall clears their finalizers",
        "1m",
      )
      .option("--keep-data", "leave the volume claims (and so the namespace) in place")
      .option("--timeout <duration>", "how long to wait for the removal", "15m"),
  ).action(uninstall);
}
