/** Secret data for the controller: live reads, briefly memoized, and every value seen kept for redaction. */
import type { V1Secret } from "@kubernetes/client-node";
import type { Client } from "../kube/types.ts";
import { dockerConfigSecrets, secretForms } from "./redaction.ts";
import { types } from "./resource-types.ts";

/**
 * Keys whose value names an account rather than proving it: a user name is not a secret, and
 * redacting it (the platform's registry user is `slipway`) would mask every host and namespace
 * that contains the word.
 */
const accountNameKeys = new Set(["username", "user"]);

export class SecretNotFoundError extends Error {
  override name = "SecretNotFoundError";
}

export class SecretReader {
  readonly #ttlMs: number;
  readonly #memo = new Map<string, { data: Record<string, string>; at: number }>();
  /** Every text that reveals a secret seen (secretForms), longest first once sorted. */
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
    for (const [key, value] of Object.entries(data)) {
      if (!accountNameKeys.has(key.toLowerCase())) this.#remember(value);
      if (key === ".dockerconfigjson") for (const inner of dockerConfigSecrets(value)) this.#remember(inner);
    }
    this.#memo.set(key, { data, at: Date.now() });
    return data;
  }

  #remember(value: string) {
    if (value.length < 4) return;
    const before = this.#forms.size;
    for (const form of secretForms(value)) this.#forms.add(form);
    if (this.#forms.size !== before) this.#sorted = [...this.#forms].sort((a, b) => b.length - a.length);
  }

  /**
   * Replaces every secret value this reader has seen, and its base64 and URL encodings; applied to
   * every message before it leaves the controller.
   */
  redact(text: string): string {
    let result = text;
    for (const form of this.#sorted)
      if (result.includes(form)) result = result.replaceAll(form, "[redacted]");
    return result;
  }
}
