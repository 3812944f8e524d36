/** `slipway uninstall`: the Platform (torn down by the operator in reverse order), the operator, the namespace, the CRDs. */
import { createInterface } from "node:readline/promises";
import type { KubernetesObject } from "@kubernetes/client-node";
import type { Command } from "commander";
import { crdManifest } from "../../apis/crd.ts";
import { allKinds } from "../../apis/index.ts";
import { releaseBundle } from "../../bundle/release.ts";
import { UserError } from "../run.ts";
import {
  call,
  type GlobalFlags,
  PlatformContext,
  parseDuration,
  readOptional,
  withGlobalFlags,
} from "./context.ts";

interface UninstallFlags extends GlobalFlags {
  yes?: boolean;
  keepCrds?: boolean;
  keepData?: boolean;
  timeout: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function confirm(question: string): Promise<boolean> {
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await prompt.question(`${question} [y/N] `)).trim());
  } finally {
    prompt.close();
  }
}

async function deleteObject(context: PlatformContext, object: KubernetesObject): Promise<boolean> {
  const gone = await readOptional(
    () => context.objects.delete(object, undefined, undefined, undefined, undefined, "Background"),
    context,
  );
  return gone !== undefined;
}

async function waitGone(context: PlatformContext, object: KubernetesObject, what: string, deadline: number) {
  let lastMessage = "";
  for (;;) {
    const current = (await readOptional(() => context.objects.read(object as never), context)) as
      | { status?: { message?: string } }
      | undefined;
    if (!current) return;
    const message = current.status?.message ?? "";
    if (message && message !== lastMessage) {
      lastMessage = message;
      context.say(`  ${what}: ${message}`);
    }
    if (Date.now() > deadline)
      throw new UserError(`timed out waiting for ${what} to be removed${message ? `: ${message}` : ""}`);
    await sleep(500);
  }
}

/** PVCs of the platform lose their owner, so deleting the Platform leaves them (and their data) in place. */
async function keepClaims(context: PlatformContext): Promise<number> {
  const claims = await call(
    () =>
      context.objects.list(
        "v1",
        "PersistentVolumeClaim",
        context.namespace,
        undefined,
        undefined,
        undefined,
        undefined,
        "app.kubernetes.io/part-of=slipway",
      ),
    context,
  );
  for (const claim of claims.items) {
    await call(
      () =>
        context.objects.patch(
          {
            apiVersion: "v1",
            kind: "PersistentVolumeClaim",
            metadata: { name: claim.metadata?.name, namespace: context.namespace, ownerReferences: null },
          } as unknown as KubernetesObject,
          undefined,
          undefined,
          "slipway-cli",
          undefined,
          "application/merge-patch+json" as never,
        ),
      context,
    );
  }
  return claims.items.length;
}

async function uninstall(flags: UninstallFlags): Promise<void> {
  const context = new PlatformContext(flags);
  const deadline = Date.now() + parseDuration(flags.timeout);
  const namespace = { apiVersion: "v1", kind: "Namespace", metadata: { name: context.namespace } };
  const crds = allKinds.map((kind) => crdManifest(kind) as KubernetesObject);
  const namespaceExists = (await readOptional(() => context.objects.read(namespace), context)) !== undefined;
  const crdsExist = (
    await Promise.all(crds.map((crd) => readOptional(() => context.objects.read(crd as never), context)))
  ).some(Boolean);
  if (!namespaceExists && (flags.keepCrds || !crdsExist)) {
    context.say(`nothing to uninstall: namespace ${context.namespace} does not exist`);
    return;
  }
  if (!flags.yes) {
    const what = `the platform, the operator and namespace ${context.namespace}${flags.keepCrds ? "" : " and the Slipway CRDs"}`;
    if (!process.stdin.isTTY) throw new UserError(`uninstall removes ${what}: pass --yes to confirm`);
    if (!(await confirm(`Remove ${what}?`))) throw new UserError("uninstall cancelled");
  }

  const platform = crdsExist && namespaceExists ? await context.readPlatform() : undefined;
  if (platform) {
    if (flags.keepData) context.say(`kept ${await keepClaims(context)} volume claim(s) and their data`);
    context.say(`removing platform ${platform.metadata.name} (components in reverse dependency order)`);
    await deleteObject(context, context.platformHeader());
    await waitGone(context, context.platformHeader(), `platform ${platform.metadata.name}`, deadline);
  }
  const operatorObjects = releaseBundle(context.namespace).filter(
    (o) => o.kind !== "CustomResourceDefinition",
  );
  let removed = 0;
  for (const object of operatorObjects) if (await deleteObject(context, object)) removed++;
  if (removed) context.say(`removed the operator (${removed} objects)`);
  if (namespaceExists && !flags.keepData) {
    await deleteObject(context, namespace);
    await waitGone(context, namespace, `namespace ${context.namespace}`, deadline);
    context.say(`removed namespace ${context.namespace}`);
  }
  if (!flags.keepCrds) {
    for (const crd of crds) await deleteObject(context, crd);
    context.say(`removed ${crds.length} CRDs`);
  }
  context.say("uninstalled");
}

export function registerUninstall(program: Command): void {
  withGlobalFlags(
    program
      .command("uninstall")
      .description("remove the platform, the operator, the namespace and (unless kept) the CRDs; idempotent")
      .option("--yes", "do not ask for confirmation")
      .option("--keep-crds", "leave the CustomResourceDefinitions (other installs may use them)")
      .option("--keep-data", "leave the volume claims (and so the namespace) in place")
      .option("--timeout <duration>", "how long to wait for the removal", "15m"),
  ).action(uninstall);
}
