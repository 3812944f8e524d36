/** Where build artifacts live: one small interface over S3 and GCS. */
import type { BlobUri } from "../blob-uri.ts";

export class BlobStoreError extends Error {
  override name = "BlobStoreError";
  readonly kind: "denied" | "unavailable";
  constructor(kind: "denied" | "unavailable", message: string) {
    super(message);
    this.kind = kind;
  }
}

export interface BlobStore {
  /** True when the exact object or any object under `<key>/` exists; a missing bucket is false. */
  exists(uri: BlobUri): Promise<boolean>;
  /** Writes the exact object (as its base name) or every object under `<key>/` (by relative path) into `dir`; returns the count. */
  download(uri: BlobUri, dir: string): Promise<number>;
  upload(uri: BlobUri, body: Uint8Array | string): Promise<void>;
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
