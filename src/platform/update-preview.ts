/**
 * What `slipway update --dry-run` decides and says (pure): which of a Platform's objects an update
 * would change, create or leave without a rendering, which changes the API server refuses as
 * immutable (immutable-fields.ts decides what the controllers do about those), and what happens to
 * what the new rendering has no place for. The I/O (dry-run applies) is update-dry-run.ts.
 */
import type { Static } from "@sinclair/typebox";
import type { ComponentResource } from "../apis/platform/component.ts";
import type { PlatformResource, PlatformSpec } from "../apis/platform/platform.ts";
import type { KubeObject, ResourceType } from "../kube/types.ts";
import { sameJson } from "../lib/canonical.ts";
import type { Release } from "./catalog.ts";
import { annotated, renderedChildren } from "./component-children.ts";
import { annotations } from "./component-objects.ts";
import { componentObject, type RenderOptions, renderComponents } from "./render.ts";

type Spec = Static<typeof PlatformSpec>;

/** One field an update changes: absent `before` is an addition, absent `after` a removal. */
export interface FieldChange {
  path: string;
  before?: unknown;
  after?: unknown;
}

interface ObjectId {
  kind: string;
  name: string;
}

export type ObjectPreview =
  | (ObjectId & { action: "change"; changes: FieldChange[] })
  | (ObjectId & { action: "create" })
  | (ObjectId & { action: "prune"; resolution: string })
  | (ObjectId & {
      action: "conflict";
      fields: string[];
      message: string;
      resolution: string;
      /** True when the update resolves it (the workload is recreated); false when it will fail. */
      resolved: boolean;
    })
  | (ObjectId & { action: "fail"; message: string });

export interface ComponentPreview {
  /** The catalog's component name, e.g. `mlflow`. */
  component: string;
  /** The Component object's name, e.g. `slipway-mlflow`. */
  objectName: string;
  objects: ObjectPreview[];
  /** How many of its objects the update leaves as they are. */
  unchanged: number;
}

export interface UpdatePreview {
  platform: string;
  namespace: string;
  from?: string;
  to: string;
  components: ComponentPreview[];
}

// --- rendering ------------------------------------------------------------------------------------

/** An object the update would apply, with the kind it is read and written as. */
export interface RenderedObject {
  type: ResourceType;
  object: KubeObject;
  /** Applied with force (a child the Component controls) or not (the Component itself). */
  force: boolean;
}

export interface RenderedComponent {
  component: string;
  objectName: string;
  /** The Component object first, then its children as the component controller writes them. */
  objects: RenderedObject[];
}

/** The owner uid rendered into the children of a Component that does not exist yet. */
export const newComponentUid = "not-yet-created";

/**
 * What the controllers would apply for the Platform at `spec` and `release`: each desired Component
 * and, rendered from its new spec, its children. `live` are the Platform's Components as they are
 * (their uids are the children's owners; a new Component has none yet).
 */
export function renderUpdate(
  platform: PlatformResource,
  spec: Spec,
  release: Release,
  live: readonly ComponentResource[],
  componentType: ResourceType,
  options: RenderOptions = {},
): RenderedComponent[] {
  const name = platform.metadata.name ?? "";
  const namespace = platform.metadata.namespace ?? "";
  const desired = renderComponents(name, namespace, spec, release, options);
  const components = desired.map((entry) => {
    const object = componentObject(platform, entry);
    const current = live.find((component) => component.metadata.name === entry.objectName);
    const generation = current?.metadata.generation ?? 0;
    const resource: ComponentResource = {
      ...object,
      metadata: {
        ...object.metadata,
        // a Component not created yet: its children are only listed as created, never sent
        uid: current?.metadata.uid ?? newComponentUid,
        generation: current && sameJson(current.spec, entry.spec) ? generation : generation + 1,
      },
    };
    return { entry, object, resource };
  });
  const siblings = components.map(({ resource }) => resource);
  return components.map(({ entry, object, resource }) => ({
    component: entry.name,
    objectName: entry.objectName,
    objects: [
      { type: componentType, object, force: false },
      ...renderedChildren(
        resource,
        siblings.filter((sibling) => sibling !== resource),
      ).map(([type, child]) => ({ type, object: annotated(child), force: true })),
    ],
  }));
}

// --- what counts as a change ----------------------------------------------------------------------

/** Metadata the API server writes on every write, and bookkeeping that changes whenever anything does. */
const serverMetadata = [
  "managedFields",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "uid",
  "selfLink",
];
const bookkeeping: readonly string[] = [
  annotations.appliedHash,
  annotations.renderedFrom,
  annotations.templateHash,
];

type Json = Record<string, unknown>;

function withoutBookkeeping(annotationMap: unknown): Json | undefined {
  if (!annotationMap || typeof annotationMap !== "object") return undefined;
  const kept = Object.fromEntries(
    Object.entries(annotationMap as Json).filter(([key]) => !bookkeeping.includes(key)),
  );
  return Object.keys(kept).length > 0 ? kept : undefined;
}

/**
 * The part of an object an update is about: no status, no server-written metadata, no hash
 * annotations (they change whenever what they hash does, which the diff already shows).
 */
export function comparable(object: KubeObject): Json {
  const { status: _status, metadata = {}, ...rest } = object as KubeObject & Json;
  const meta: Json = { ...(metadata as Json) };
  for (const field of serverMetadata) delete meta[field];
  const metaAnnotations = withoutBookkeeping(meta.annotations);
  if (metaAnnotations) meta.annotations = metaAnnotations;
  else delete meta.annotations;
  const result: Json = { ...rest, metadata: meta };
  const spec = result.spec as Json | undefined;
  const template = spec?.template as { metadata?: Json } | undefined;
  if (spec && template?.metadata) {
    const templateAnnotations = withoutBookkeeping(template.metadata.annotations);
    const { annotations: _annotations, ...templateMeta } = template.metadata;
    result.spec = {
      ...spec,
      template: {
        ...template,
        metadata: { ...templateMeta, ...(templateAnnotations ? { annotations: templateAnnotations } : {}) },
      },
    };
  }
  return result;
}

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Items of a list keyed by their `name` (containers, env, ports, volumes) when every one has a unique one. */
function byName(list: unknown[]): Map<string, unknown> | undefined {
  const names = list.map((item) => (isObject(item) && typeof item.name === "string" ? item.name : undefined));
  if (names.some((name) => name === undefined) || new Set(names).size !== names.length) return undefined;
  return new Map(list.map((item, i) => [names[i] as string, item]));
}

/**
 * The leaf fields that differ between `before` and `after` (objects key by key; lists of named
 * items by name, other lists by position), with paths such as
 * `spec.template.spec.containers[mlflow].image`.
 */
export function fieldChanges(before: unknown, after: unknown, path = ""): FieldChange[] {
  if (sameJson(before, after)) return [];
  const at = (key: string) => (path ? `${path}.${key}` : key);
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((key) => fieldChanges(before[key], after[key], at(key)));
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const left = byName(before);
    const right = byName(after);
    if (left && right) {
      const names = [...new Set([...left.keys(), ...right.keys()])];
      return names.flatMap((name) => fieldChanges(left.get(name), right.get(name), `${path}[${name}]`));
    }
    const length = Math.max(before.length, after.length);
    return Array.from({ length }, (_, i) => fieldChanges(before[i], after[i], `${path}[${i}]`)).flat();
  }
  return [
    {
      path,
      ...(before === undefined ? {} : { before }),
      ...(after === undefined ? {} : { after }),
    },
  ];
}

/**
 * What applying would do to `live` given what the API server answered to a dry run of it; undefined
 * when it changes nothing.
 */
export function objectChange(
  id: ObjectId,
  live: KubeObject | undefined,
  stored: KubeObject,
): ObjectPreview | undefined {
  if (!live) return { ...id, action: "create" };
  const changes = fieldChanges(comparable(live), comparable(stored));
  return changes.length > 0 ? { ...id, action: "change", changes } : undefined;
}

// --- pruning --------------------------------------------------------------------------------------

/**
 * What happens to a Component no longer rendered (dropped from the release or disabled); what
 * happens to each of its children, and to a child a Component no longer renders, is the inventory's
 * rule (component-inventory.ts `pruneDecisions`, `verdictResolution`).
 */
export const droppedComponentResolution =
  "deleted by the Platform controller (foreground); before it goes, the component controller deletes its inventory, PersistentVolumeClaims (data) included unless uninstall --keep-data kept them";

// --- output ---------------------------------------------------------------------------------------

const shown = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

const marks = { change: "~", create: "+", prune: "-", conflict: "!", fail: "!" } as const;

/** The preview as a person reads it: per component, one line per object and its changed fields. */
export function formatPreview(preview: UpdatePreview): string[] {
  const lines = [
    `dry run: platform ${preview.platform} in namespace ${preview.namespace}, ${preview.from ?? "(none)"} → ${preview.to}; nothing is applied`,
  ];
  for (const component of preview.components) {
    const unchanged = component.unchanged > 0 ? ` (${component.unchanged} unchanged)` : "";
    if (component.objects.length === 0) {
      lines.push(`${component.component}: no change${unchanged}`);
      continue;
    }
    lines.push(`${component.component}:${unchanged}`);
    for (const object of component.objects) {
      lines.push(`  ${marks[object.action]} ${object.kind} ${preview.namespace}/${object.name}`);
      if (object.action === "change") {
        for (const change of object.changes) {
          if ("before" in change) lines.push(`      - ${change.path}: ${shown(change.before)}`);
          if ("after" in change) lines.push(`      + ${change.path}: ${shown(change.after)}`);
        }
      } else if (object.action === "prune") {
        lines.push(`      ${object.resolution}`);
      } else if (object.action === "conflict") {
        lines.push(`      immutable: ${object.fields.join(", ")}`, `      ${object.resolution}`);
      } else if (object.action === "fail") {
        lines.push(`      will fail: ${object.message}`);
      }
    }
  }
  return lines;
}
