/**
 * The texts to redact for one secret value: the value and the common encodings a build's output may
 * carry it in (base64, standard and URL-safe, at any of the three byte alignments it can have inside
 * a longer encoded text; URL-encoding). Pure.
 */

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

/** Every text that reveals `value`, longest first (so a longer match is replaced before its parts). */
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
