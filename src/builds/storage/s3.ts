import { Readable } from "node:stream";
import {
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from "@aws-sdk/client-s3";
import type { BlobUri } from "../blob-uri.ts";
import { type BlobObject, type BlobStore, BlobStoreError, belongsTo } from "./blob-store.ts";

export interface S3Options {
  endpoint?: string;
  region: string;
  forcePathStyle: boolean;
  /** From the credentials Secret (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY); none means the SDK's default chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

export class S3BlobStore implements BlobStore {
  readonly #client: S3Client;

  constructor(options: S3Options) {
    this.#client = new S3Client({
      region: options.region,
      forcePathStyle: options.forcePathStyle,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      ...(options.credentials ? { credentials: options.credentials } : {}),
      maxAttempts: 3,
    });
  }

  async list(uri: BlobUri, limit: number): Promise<BlobObject[]> {
    const objects: BlobObject[] = [];
    let token: string | undefined;
    do {
      const page = await this.#call(uri, () =>
        this.#client.send(
          new ListObjectsV2Command({
            Bucket: uri.bucket,
            Prefix: uri.key,
            ContinuationToken: token,
            MaxKeys: Math.min(1000, Math.max(limit, 2)),
          }),
        ),
      );
      if (!page) return [];
      for (const o of page.Contents ?? [])
        if (o.Key && belongsTo(uri, o.Key)) objects.push({ key: o.Key, size: o.Size ?? 0 });
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token && objects.length < limit);
    return objects.slice(0, limit);
  }

  async read(uri: BlobUri, key: string): Promise<Readable> {
    const object = await this.#call(uri, () =>
      this.#client.send(new GetObjectCommand({ Bucket: uri.bucket, Key: key })),
    );
    // in Node the SDK's body is an IncomingMessage: a Readable
    return (object?.Body as Readable | undefined) ?? Readable.from([]);
  }

  async upload(uri: BlobUri, body: Uint8Array | string): Promise<void> {
    await this.#call(uri, () =>
      this.#client.send(new PutObjectCommand({ Bucket: uri.bucket, Key: uri.key, Body: body })),
    );
  }

  /** A missing bucket or key is undefined; denial and the rest become BlobStoreErrors. */
  async #call<T>(uri: BlobUri, call: () => Promise<T>): Promise<T | undefined> {
    try {
      return await call();
    } catch (error) {
      const status = error instanceof S3ServiceException ? error.$metadata.httpStatusCode : undefined;
      const name = error instanceof Error ? error.name : "";
      if (name === "NoSuchBucket" || name === "NoSuchKey" || status === 404) return undefined;
      const where = `s3://${uri.bucket}/${uri.key}`;
      if (
        status === 403 ||
        name === "AccessDenied" ||
        name === "InvalidAccessKeyId" ||
        name === "SignatureDoesNotMatch"
      ) {
        throw new BlobStoreError("denied", `${where}: ${name || `HTTP ${status}`}`);
      }
      throw new BlobStoreError(
        "unavailable",
        `${where}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}
