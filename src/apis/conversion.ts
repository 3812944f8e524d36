/**
 * Conversion between a kind's served versions (versions.ts), pure: the conversion webhook's answer
 * for one object. Lossless both ways: renamed fields move, and the fields an older version lacks
 * travel in an annotation while the object is read at it (as Kubernetes' own conversions do), so
 * reading at v1alpha1 and writing back keeps them.
 */
import { lackedFieldsAnnotation, type OlderVersion, olderVersionsOf, storageVersion } from "./versions.ts";

export interface ConvertibleObject {
  apiVersion: string;
  kind: string;
  metadata?: { annotations?: Record<string, string> } & Record<string, unknown>;
  [field: string]: unknown;
}

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Removes the field at `path` (dotted) and returns it; undefined when absent. */
function take(object: Fields, path: string): unknown {
  const names = path.split(".");
  let node: unknown = object;
  for (const name of names.slice(0, -1)) {
    node = isObject(node) ? node[name] : undefined;
  }
  const leaf = names.at(-1) ?? "";
  if (!isObject(node) || !(leaf in node)) return undefined;
  const value = node[leaf];
  delete node[leaf];
  return value;
}

/** Sets the field at `path`, making the objects on the way. */
function put(object: Fields, path: string, value: unknown): void {
  const names = path.split(".");
  let node = object;
  for (const name of names.slice(0, -1)) {
    if (!isObject(node[name])) node[name] = {};
    node = node[name] as Fields;
  }
  node[names.at(-1) ?? ""] = value;
}

function split(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.lastIndexOf("/");
  return { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** The storage version's object read at `older`: renamed fields moved, lacked ones in the annotation. */
export function toOlder(object: ConvertibleObject, older: OlderVersion): ConvertibleObject {
  const converted = structuredClone(object);
  const lacked: Fields = {};
  for (const path of older.lacks) {
    const value = take(converted, path);
    if (value !== undefined) lacked[path] = value;
  }
  for (const [from, to] of Object.entries(older.renames)) {
    const value = take(converted, from);
    if (value !== undefined) put(converted, to, value);
  }
  converted.apiVersion = `${split(object.apiVersion).group}/${older.name}`;
  if (Object.keys(lacked).length > 0) {
    const metadata = converted.metadata ?? {};
    metadata.annotations = { ...metadata.annotations, [lackedFieldsAnnotation]: JSON.stringify(lacked) };
    converted.metadata = metadata;
  }
  return converted;
}

/** An object read at `older` as the storage version: renames undone, lacked fields back from the annotation. */
export function fromOlder(object: ConvertibleObject, older: OlderVersion): ConvertibleObject {
  const converted = structuredClone(object);
  for (const [to, from] of Object.entries(older.renames)) {
    const value = take(converted, from);
    if (value !== undefined) put(converted, to, value);
  }
  const annotations = converted.metadata?.annotations;
  const kept = annotations?.[lackedFieldsAnnotation];
  if (annotations && kept !== undefined) {
    delete annotations[lackedFieldsAnnotation];
    if (Object.keys(annotations).length === 0) delete converted.metadata?.annotations;
    let lacked: unknown;
    try {
      lacked = JSON.parse(kept);
    } catch {
      lacked = undefined; // someone else's edit of the annotation: what it held is lost, the object is not
    }
    if (isObject(lacked))
      for (const path of older.lacks) if (path in lacked) put(converted, path, lacked[path]);
  }
  converted.apiVersion = `${split(object.apiVersion).group}/${storageVersion}`;
  return converted;
}

/** Why an object cannot be converted to `desiredAPIVersion`, or the converted object. */
export function convert(
  object: ConvertibleObject,
  desiredAPIVersion: string,
): { converted: ConvertibleObject } | { refused: string } {
  if (object.apiVersion === desiredAPIVersion) return { converted: object };
  const from = split(object.apiVersion);
  const to = split(desiredAPIVersion);
  if (from.group !== to.group)
    return { refused: `cannot convert ${object.apiVersion} to another group's ${desiredAPIVersion}` };
  const older = olderVersionsOf({ group: from.group, kind: object.kind });
  const version = (name: string) => older.find((served) => served.name === name);
  const known = (name: string) => name === storageVersion || version(name) !== undefined;
  for (const name of [from.version, to.version])
    if (!known(name)) return { refused: `${object.kind} is not served at ${from.group}/${name}` };
  const stored =
    from.version === storageVersion ? object : fromOlder(object, version(from.version) as OlderVersion);
  const target = version(to.version);
  return { converted: target ? toOlder(stored, target) : stored };
}
