/** Secret data for the controller: live reads, briefly memoized, and every secret value seen kept for redaction. */
import type { V1Secret } from "@kubernetes/client-node";
import type { Client } from "../kube/types.ts";
import { isRedactable, type PodSecretRefs, secretForms, secretValuesOf } from "./redaction.ts";
import { types } from "./resource-types.ts";

export class SecretNotFoundError extends Error {
  override name = "SecretNotFoundError";
}

export class SecretReader {
  readonly #ttlMs: number;
  readonly #memo = new Map<string, { data: Record<string, string>; at: number }>();
  /** Every text that reveals a secret kept (secretForms), longest first once sorted. */
  readonly #forms = new Set<string>();
  #sorted: string[] = [];

  constructor(ttlMs = 10_000) {
    this.#ttlMs = ttlMs;
  }

  /** The decoded data of a Secret; a missing Secret is a SecretNotFoundError naming it. */
  async read(client: Client, namespace: string, name: string): Promise<Record<string, string>> {
    const key = `${namespace}/${name}`;
    const memo = this.#memo.get(key);
    if (memo && Date.now() - memo.at < this.#ttlMs) return memo.data;
    const secret = await client.get<V1Secret>(types.secret, { namespace, name });
    if (!secret) throw new SecretNotFoundError(`Secret ${name} not found in namespace ${namespace}`);
    const data: Record<string, string> = { ...secret.stringData };
    for (const [k, v] of Object.entries(secret.data ?? {}))
      data[k] = Buffer.from(v, "base64").toString("utf8");
    // by structure (redaction.ts): the values of secret keys; identifiers such as AWS_ACCESS_KEY_ID stay readable
    for (const value of secretValuesOf(data)) this.keep(value);
    this.#memo.set(key, { data, at: Date.now() });
    return data;
  }

  /**
   * Reads the Secrets a pod is given (podSecretRefs) so that what it prints can be redacted: secret
   * keys' values of whole Secrets, and every key used as a secret. A Secret that cannot be read is
   * passed over: redaction is the second line, and the message is written all the same.
   */
  async learn(client: Client, namespace: string, refs: PodSecretRefs): Promise<void> {
    const data = (name: string) => this.read(client, namespace, name).catch(() => undefined);
    for (const name of refs.whole) await data(name);
    for (const { name, key } of refs.keys) {
      const value = (await data(name))?.[key];
      if (value !== undefined) this.keep(value);
    }
  }

  /**
   * Redacts `value` from now on, whatever key it came from: a value used as a secret (a build
   * argument's `valueFrom`). A value too short to redact (minimumSecretLength) is not kept.
   */
  keep(value: string): void {
    if (!isRedactable(value)) return;
    const before = this.#forms.size;
    for (const form of secretForms(value)) this.#forms.add(form);
    if (this.#forms.size !== before) this.#sorted = [...this.#forms].sort((a, b) => b.length - a.length);
  }

  /**
   * Replaces every secret value this reader has kept (secret keys' values and values used as
   * secrets, of at least minimumSecretLength characters), and its base64 and URL encodings; applied
   * to every message before it leaves the controller. Nothing else is touched: user names, access
   * key ids and host names stay as they are.
   */
  redact(text: string): string {
    let result = text;
    for (const form of this.#sorted)
      if (result.includes(form)) result = result.replaceAll(form, "[redacted]");
    return result;
  }
}
