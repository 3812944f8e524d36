/** Where build artifacts live: one small interface over S3 and GCS. */
import type { Readable } from "node:stream";
import type { BlobUri } from "../blob-uri.ts";

export class BlobStoreError extends Error {
  override name = "BlobStoreError";
  readonly kind: "denied" | "unavailable";
  constructor(kind: "denied" | "unavailable", message: string) {
    super(message);
    this.kind = kind;
  }
}

/** An object of an artifact, as listed. */
export interface BlobObject {
  key: string;
  size: number;
}

export interface BlobStore {
  /**
   * The exact object or the objects under `<key>/`, at most `limit` of them (the listing stops
   * there); a missing bucket is none.
   */
  list(uri: BlobUri, limit: number): Promise<BlobObject[]>;
  /** The object's content as a stream (never held in memory whole). */
  read(uri: BlobUri, key: string): Promise<Readable>;
  upload(uri: BlobUri, body: Uint8Array | string): Promise<void>;
}

/** True when the exact object or any object under `<key>/` exists. */
export async function artifactExists(store: BlobStore, uri: BlobUri): Promise<boolean> {
  return (await store.list(uri, 1)).length > 0;
}

/** The keys of `uri` that belong to it: the object itself, or those under it as a directory. */
export function belongsTo(uri: BlobUri, key: string): boolean {
  const directory = uri.key.endsWith("/") ? uri.key : `${uri.key}/`;
  return key === uri.key || (key.startsWith(directory) && key.length > directory.length);
}

/** The path of an object inside the download directory; refuses keys that would escape it. */
export function relativePath(uri: BlobUri, key: string): string {
  const directory = uri.key.endsWith("/") ? uri.key : `${uri.key}/`;
  const relative = key === uri.key ? (key.split("/").pop() ?? key) : key.slice(directory.length);
  if (relative.split("/").some((part) => part === ".." || part === "")) {
    throw new BlobStoreError("unavailable", `object ${key} has a path that cannot be written safely`);
  }
  return relative;
}
