/** Artifact locations: `s3://bucket/key` or `gs://bucket/key`, nothing else. */

export type BlobScheme = "s3" | "gs";

export interface BlobUri {
  scheme: BlobScheme;
  bucket: string;
  /** The object key or prefix, without a leading slash; never empty. */
  key: string;
}

export class BlobUriError extends Error {
  override name = "BlobUriError";
}

const bucketPattern = /^[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]$/;

export function parseBlobUri(uri: string): BlobUri {
  const match = /^(s3|gs):\/\/([^/]*)\/(.*)$/.exec(uri);
  if (!match) throw new BlobUriError(`artifactUri "${uri}": must be s3://bucket/key or gs://bucket/key`);
  const [, scheme, bucket = "", key = ""] = match;
  if (!bucketPattern.test(bucket)) {
    throw new BlobUriError(
      `artifactUri "${uri}": bucket "${bucket}" must be 3-222 lowercase letters, digits, ".", "_" or "-"`,
    );
  }
  if (!key) throw new BlobUriError(`artifactUri "${uri}": the key (the part after the bucket) is empty`);
  return { scheme: scheme as BlobScheme, bucket, key };
}

export function formatBlobUri(uri: BlobUri): string {
  return `${uri.scheme}://${uri.bucket}/${uri.key}`;
}
