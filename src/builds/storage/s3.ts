import { Readable } from "node:stream";
import type { S3Client } from "@aws-sdk/client-s3";
import { onFirstUse } from "../../lib/on-first-use.ts";
import type { BlobUri } from "../blob-uri.ts";
import { type BlobObject, type BlobStore, BlobStoreError, belongsTo } from "./blob-store.ts";

export interface S3Options {
  endpoint?: string;
  region: string;
  forcePathStyle: boolean;
  /** From the credentials Secret (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY); none means the SDK's default chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

/** The AWS SDK (+26 MB resident), loaded by the first S3 call. */
const s3Sdk = onFirstUse(() => import("@aws-sdk/client-s3"));
type S3Sdk = Awaited<ReturnType<typeof s3Sdk>>;

export class S3BlobStore implements BlobStore {
  readonly #options: S3Options;
  #made: S3Client | undefined;

  constructor(options: S3Options) {
    this.#options = options;
  }

  #client({ S3Client }: S3Sdk): S3Client {
    this.#made ??= new S3Client({
      region: this.#options.region,
      forcePathStyle: this.#options.forcePathStyle,
      ...(this.#options.endpoint ? { endpoint: this.#options.endpoint } : {}),
      ...(this.#options.credentials ? { credentials: this.#options.credentials } : {}),
      maxAttempts: 3,
    });
    return this.#made;
  }

  async list(uri: BlobUri, limit: number): Promise<BlobObject[]> {
    const objects: BlobObject[] = [];
    let token: string | undefined;
    do {
      const page = await this.#call(uri, (sdk, client) =>
        client.send(
          new sdk.ListObjectsV2Command({
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
    const object = await this.#call(uri, (sdk, client) =>
      client.send(new sdk.GetObjectCommand({ Bucket: uri.bucket, Key: key })),
    );
    // in Node the SDK's body is an IncomingMessage: a Readable
    return (object?.Body as Readable | undefined) ?? Readable.from([]);
  }

  async upload(uri: BlobUri, body: Uint8Array | string): Promise<void> {
    await this.#call(uri, (sdk, client) =>
      client.send(new sdk.PutObjectCommand({ Bucket: uri.bucket, Key: uri.key, Body: body })),
    );
  }

  /** A missing bucket or key is undefined; denial and the rest become BlobStoreErrors. */
  async #call<T>(uri: BlobUri, call: (sdk: S3Sdk, client: S3Client) => Promise<T>): Promise<T | undefined> {
    const sdk = await s3Sdk();
    try {
      return await call(sdk, this.#client(sdk));
    } catch (error) {
      const status = error instanceof sdk.S3ServiceException ? error.$metadata.httpStatusCode : undefined;
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
