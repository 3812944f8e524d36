/**
 * Redaction by structure. Secret values are kept out of messages by never formatting them in; this is
 * the second line: the values a message must never carry, and the texts that reveal them. A value is
 * redacted only when it is actually secret and cannot be an ordinary word:
 * - its key names a secret (isSecretKey: a password, token, secret key such as AWS_SECRET_ACCESS_KEY,
 *   private key, a docker config's password, auth or tokens, a Google key file's private key), or it
 *   is used as a secret (a build argument's `valueFrom`);
 * - and it is at least `minimumSecretLength` (12) characters long: a shorter value would match words,
 *   host names and namespaces (the demo's object-store key id is `slipway`).
 * Identifiers — user names, access key ids (AWS_ACCESS_KEY_ID), host names — are never redacted:
 * they are what a message must be able to name. Pure.
 */

import type { V1PodSpec } from "@kubernetes/client-node";

/** Shorter values are never redacted: they could be ordinary words, host or namespace names. */
export const minimumSecretLength = 12;

/** Shorter encoded fragments would match ordinary text. */
const minimumFragment = 8;

/**
 * The part of the base64 of `<shift bytes> + value + <anything>` that depends on the value alone:
 * whole 4-character groups whose 3 bytes all come from it.
 */
function base64Fragments(value: Buffer): string[] {
  const fragments: string[] = [];
  for (const shift of [0, 1, 2]) {
    const padded = Buffer.concat([Buffer.alloc(shift), value]);
    const firstGroup = shift === 0 ? 0 : 1;
    const lastGroup = Math.floor(padded.length / 3);
    if (lastGroup <= firstGroup) continue;
    const encoded = padded.subarray(firstGroup * 3, lastGroup * 3);
    fragments.push(encoded.toString("base64"), encoded.toString("base64url"));
  }
  return fragments;
}

/**
 * Every text that reveals `value`, longest first (so a longer match is replaced before its parts):
 * the value and the common encodings a build's output may carry it in (base64, standard and
 * URL-safe, at any of the three byte alignments it can have inside a longer encoded text;
 * URL-encoding).
 */
export function secretForms(value: string): string[] {
  const forms = new Set<string>([value]);
  const bytes = Buffer.from(value, "utf8");
  forms.add(bytes.toString("base64"));
  for (const fragment of base64Fragments(bytes)) if (fragment.length >= minimumFragment) forms.add(fragment);
  const urlEncoded = encodeURIComponent(value);
  forms.add(urlEncoded);
  forms.add(urlEncoded.replaceAll("%20", "+"));
  return [...forms].sort((a, b) => b.length - a.length);
}

/** The values inside a docker config (its passwords, auth strings and tokens), which a message may carry alone. */
export function dockerConfigSecrets(text: string): string[] {
  try {
    const auths = (JSON.parse(text) as { auths?: Record<string, Record<string, unknown>> }).auths ?? {};
    return Object.values(auths).flatMap((entry) =>
      ["password", "auth", "identitytoken", "registrytoken"].flatMap((key) => {
        const value = entry[key];
        if (typeof value !== "string") return [];
        // `auth` is base64 of user:password: its password is a secret of its own
        const password =
          key === "auth" ? Buffer.from(value, "base64").toString("utf8").split(":").slice(1).join(":") : "";
        return [value, ...(password ? [password] : [])];
      }),
    );
  } catch {
    return [];
  }
}

/**
 * Keys whose value proves an identity (secretKeyWords, secretFileKeys) rather than naming it
 * (identifierKey): an id or a name (AWS_ACCESS_KEY_ID, username, client_email, private_key_id) is
 * not secret even when it mentions a key or a token.
 */
const secretKeyWords = /password|passwd|secret|token|private[-_.]?key|api[-_]?key|credential/i;
const identifierKey = /(^|[-_.])(id|name|user|username|email)$/i;
const secretFileKeys = new Set([
  ".dockerconfigjson",
  ".dockercfg",
  "key.json",
  "tls.key",
  "ssh-privatekey",
  "htpasswd",
]);

/** Whether a Secret's key holds a secret (true) or an identifier or setting (false). */
export function isSecretKey(key: string): boolean {
  if (secretFileKeys.has(key.toLowerCase())) return true;
  return secretKeyWords.test(key) && !identifierKey.test(key);
}

/** Whether `value` is long enough to redact (see minimumSecretLength). */
export function isRedactable(value: string): boolean {
  return value.length >= minimumSecretLength;
}

/** The private key of a Google service-account key file, which a message may carry alone. */
function serviceAccountKeySecrets(text: string): string[] {
  try {
    const key = (JSON.parse(text) as { private_key?: unknown }).private_key;
    return typeof key === "string" ? [key] : [];
  } catch {
    return [];
  }
}

/**
 * The values of a Secret's data to redact: those of secret keys, and the secrets inside a docker
 * config or a key file — each only if redactable. Identifiers and short values are left out.
 */
export function secretValuesOf(data: Record<string, string>): string[] {
  const values = Object.entries(data).flatMap(([key, value]) => {
    if (!isSecretKey(key)) return [];
    const lower = key.toLowerCase();
    if (lower === ".dockerconfigjson") return [value, ...dockerConfigSecrets(value)];
    if (lower === "key.json") return [value, ...serviceAccountKeySecrets(value)];
    return [value];
  });
  return [...new Set(values)].filter(isRedactable);
}

/** Replaces `values` (those redactable) and the texts that reveal them (secretForms) by `[redacted]`. */
export function redactorOf(values: string[]): (text: string) => string {
  const forms = [...new Set(values.filter(isRedactable).flatMap(secretForms))].sort(
    (a, b) => b.length - a.length,
  );
  return (text) => forms.reduce((result, form) => result.replaceAll(form, "[redacted]"), text);
}

/** The Secrets a pod is given: whole (envFrom, volumes) and single keys used as secrets (env `valueFrom`). */
export interface PodSecretRefs {
  whole: string[];
  keys: { name: string; key: string }[];
}

/**
 * What a build pod may print of its Secrets, read from its spec: a failed build's termination
 * message is redacted of these even when this operator has not read them itself (a Job started
 * before it restarted, secret build arguments a Job in the build's namespace takes directly).
 */
export function podSecretRefs(pod: V1PodSpec | undefined): PodSecretRefs {
  const containers = [...(pod?.initContainers ?? []), ...(pod?.containers ?? [])];
  const whole = [
    ...containers.flatMap((c) =>
      (c.envFrom ?? []).flatMap((e) => (e.secretRef?.name ? [e.secretRef.name] : [])),
    ),
    ...(pod?.volumes ?? []).flatMap((v) => (v.secret?.secretName ? [v.secret.secretName] : [])),
  ];
  const keys = containers.flatMap((c) =>
    (c.env ?? []).flatMap((e) => {
      const ref = e.valueFrom?.secretKeyRef;
      return ref?.name && ref.key ? [{ name: ref.name, key: ref.key }] : [];
    }),
  );
  const unique = new Map(keys.map((k) => [`${k.name}/${k.key}`, k]));
  return { whole: [...new Set(whole)], keys: [...unique.values()] };
}
