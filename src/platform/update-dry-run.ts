/**
 * `slipway update --dry-run`'s I/O: reads the Platform's objects and server-side applies each object
 * the update would write with `dryRun=All`, as the operator's field manager, so the API server
 * answers the object it would store (defaults, admission and immutability included) and stores
 * nothing. What the answers mean is decided in update-preview.ts.
 */
import type { Static } from "@sinclair/typebox";
import type { ComponentResource } from "../apis/platform/component.ts";
import type { PlatformResource, PlatformSpec } from "../apis/platform/platform.ts";
import { KubeClient } from "../kube/client.ts";
import { ResourceTypes } from "../kube/discovery.ts";
import { keyOf, resourcePath } from "../kube/keys.ts";
import { controllerOf } from "../kube/owners.ts";
import { ApiError, type RestClient } from "../kube/rest.ts";
import type { KubeObject, ObjectKey } from "../kube/types.ts";
import { findRelease, ownVersion, type Release } from "./catalog.ts";
import { childTypeOf, childTypes } from "./component-children.ts";
import {
  entryKey,
  type InventoryEntry,
  inventoryEntry,
  pruneDecisions,
  renderedKey,
  sortedInventory,
  verdictResolution,
} from "./component-inventory.ts";
import { labels } from "./component-objects.ts";
import { childAccess, foreignChildrenMessage } from "./component-ownership.ts";
import { conflictResolution, immutableRefusal, resolveImmutable } from "./immutable-fields.ts";
import { keptFor } from "./kept-data.ts";
import { operatorFieldManager } from "./names.ts";
import type { RenderOptions } from "./render.ts";
import { types } from "./resource-types.ts";
import {
  type ComponentPreview,
  droppedComponentResolution,
  type ObjectPreview,
  objectChange,
  type RenderedObject,
  renderUpdate,
  type UpdatePreview,
} from "./update-preview.ts";

/**
 * What merge-patching the Platform `key`'s spec with `specPatch` (its version, its Ingress fields)
 * would do. The new spec is the API server's answer to a dry-run of that patch (defaults and the
 * CRD's rules applied; sent as `fieldManager`, whoever asks); `clusterNetworks` are the ones the
 * operator renders with (its installer's SLIPWAY_OUTBOUND_DENY: bundle/operator-environment.ts).
 */
export async function previewPlatformChange(
  rest: RestClient,
  key: ObjectKey,
  specPatch: Record<string, unknown>,
  options: { fieldManager: string; clusterNetworks: readonly string[] },
): Promise<UpdatePreview> {
  const platform = await rest.request<PlatformResource>("PATCH", resourcePath(types.platform, key), {
    body: { spec: specPatch },
    contentType: "application/merge-patch+json",
    query: { fieldManager: options.fieldManager, dryRun: "All" },
  });
  const version = platform.spec.version ?? ownVersion;
  const release = findRelease(version);
  if (!release) throw new Error(`spec.version ${version} is not a release this Slipway knows`);
  const operator = new KubeClient(rest, new ResourceTypes(rest), { fieldManager: operatorFieldManager });
  return previewUpdate(operator, platform, {
    spec: platform.spec,
    release,
    render: { clusterNetworks: options.clusterNetworks },
  });
}

export interface UpdateTarget {
  /** The Platform's spec as the update would leave it. */
  spec: Static<typeof PlatformSpec>;
  release: Release;
  render?: RenderOptions;
}

/**
 * What updating `platform` to `target` would do, per component. `client` applies as the operator's
 * field manager (operatorFieldManager) and may read and patch the Platform's objects.
 */
export async function previewUpdate(
  client: KubeClient,
  platform: PlatformResource,
  target: UpdateTarget,
): Promise<UpdatePreview> {
  const namespace = platform.metadata.namespace ?? "";
  const name = platform.metadata.name ?? "";
  const live = (
    await client.list<ComponentResource>(types.component, {
      namespace,
      labelSelector: `${labels.platform}=${name}`,
    })
  )
    .filter((component) => controllerOf(component)?.uid === platform.metadata.uid)
    .map((component) => ({ ...component, kind: types.component.kind }));
  const rendered = renderUpdate(platform, target.spec, target.release, live, types.component, target.render);

  const components: ComponentPreview[] = [];
  for (const component of rendered) {
    const current = live.find((c) => c.metadata.name === component.objectName);
    const claims = component.objects
      .filter(({ object }) => object.kind === "PersistentVolumeClaim")
      .map(({ object }) => object.metadata?.name ?? "");
    const objects: ObjectPreview[] = [];
    let unchanged = 0;
    for (const item of component.objects) {
      const preview = await previewObject(client, item, current, name, claims);
      if (preview) objects.push(preview);
      else unchanged++;
    }
    if (current) objects.push(...(await inventoryPreviews(client, current, component.objects, name, false)));
    components.push({ component: component.component, objectName: component.objectName, objects, unchanged });
  }
  for (const dropped of live.filter((c) => !rendered.some((r) => r.objectName === c.metadata.name))) {
    const droppedComponent: ObjectPreview = {
      kind: dropped.kind ?? types.component.kind,
      name: dropped.metadata.name ?? "",
      action: "prune",
      resolution: droppedComponentResolution,
    };
    components.push({
      component: dropped.spec.component,
      objectName: dropped.metadata.name ?? "",
      objects: [droppedComponent, ...(await inventoryPreviews(client, dropped, [], name, true))],
      unchanged: 0,
    });
  }
  return {
    platform: name,
    namespace,
    ...(platform.status?.version ? { from: platform.status.version } : {}),
    to: target.release.version,
    components,
  };
}

/**
 * What the component controller would do with the objects of `component`'s inventory that
 * `rendered` has no place for (all of them when `removing`), decided by its own rule
 * (pruneDecisions): the pruned and the kept, each with what happens to it.
 */
async function inventoryPreviews(
  client: KubeClient,
  component: ComponentResource,
  rendered: readonly RenderedObject[],
  platform: string,
  removing: boolean,
): Promise<ObjectPreview[]> {
  const inventory = component.status?.inventory ?? (await ownedChildren(client, component));
  const live = new Map<string, KubeObject | undefined>();
  for (const entry of inventory) {
    const type = childTypeOf(entry);
    live.set(
      entryKey(entry),
      type && (await client.get(type, { namespace: entry.namespace, name: entry.name })),
    );
  }
  const verdicts = pruneDecisions({
    componentUid: component.metadata.uid ?? "",
    platform,
    inventory,
    rendered: new Set(rendered.map(({ type, object }) => renderedKey(type, object))),
    removing,
    live: (entry) => live.get(entryKey(entry)),
  });
  return verdicts.flatMap((verdict): ObjectPreview[] => {
    const resolution = verdictResolution(verdict, removing);
    return resolution
      ? [{ kind: verdict.entry.kind, name: verdict.entry.name, action: "prune", resolution }]
      : [];
  });
}

/** The inventory of a Component an operator made before the inventory: the children it controls. */
async function ownedChildren(client: KubeClient, component: ComponentResource): Promise<InventoryEntry[]> {
  const lists = await Promise.all(
    childTypes.map(async (type) =>
      (
        await client.list<KubeObject>(type, {
          namespace: component.metadata.namespace ?? "",
          labelSelector: `${labels.component}=${component.metadata.name}`,
        })
      )
        .filter((object) => controllerOf(object)?.uid === component.metadata.uid)
        .flatMap((object) => {
          const entry = inventoryEntry(type, object);
          return entry ? [entry] : [];
        }),
    ),
  );
  return sortedInventory(lists.flat());
}

/** What applying one rendered object would do: read it, dry-run apply it, compare. */
export async function previewObject(
  client: KubeClient,
  item: RenderedObject,
  component: ComponentResource | undefined,
  platform: string,
  claims: readonly string[],
): Promise<ObjectPreview | undefined> {
  const { type, object, force } = item;
  const id = { kind: object.kind ?? type.kind, name: object.metadata?.name ?? "" };
  const live = await client.get<KubeObject>(type, keyOf(object));
  if (live && type !== types.component && component && !mayWrite(component, live, platform)) {
    return { ...id, action: "fail", message: foreignChildrenMessage([{ ...live, kind: id.kind }]) };
  }
  if (!component && type !== types.component) {
    // a Component not created yet has no uid for its children to name as owner: nothing to dry-run
    if (!live) return { ...id, action: "create" };
    return { ...id, action: "fail", message: foreignChildrenMessage([{ ...live, kind: id.kind }]) };
  }
  try {
    const stored = await client.apply(object, { force, dryRun: true });
    return objectChange(id, live, stored);
  } catch (error) {
    if (!(error instanceof ApiError) || (error.status !== 422 && error.status !== 409)) throw error;
    const refusal = immutableRefusal(error, id.kind, live, object);
    if (!refusal) return { ...id, action: "fail", message: error.message };
    const namespace = object.metadata?.namespace ?? "";
    const resolution = resolveImmutable(refusal);
    return {
      ...id,
      action: "conflict",
      fields: [...refusal.fields],
      message: error.message,
      resolution: conflictResolution(resolution, { ...id, namespace }, claims),
      resolved: resolution.action === "recreate",
    };
  }
}

/** The component controller writes a child it controls, or a claim kept for this Platform (it adopts it). */
function mayWrite(component: ComponentResource, live: KubeObject, platform: string): boolean {
  return (
    childAccess(component, live) !== "foreign" ||
    (live.kind === "PersistentVolumeClaim" && keptFor(live, platform))
  );
}
