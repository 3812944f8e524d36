import { describe, expect, it } from "vitest";
import { dockerConfigSecrets } from "../../../src/builds/redaction.ts";
import { SecretReader } from "../../../src/builds/secrets.ts";
import type { Client } from "../../../src/kube/types.ts";

/** A SecretReader that has read one Secret with `data` (a stand-in for the API server's answer). */
async function readerOf(data: Record<string, string>): Promise<SecretReader> {
  const reader = new SecretReader();
  const client = { get: async () => ({ stringData: data }) } as unknown as Client;
  await reader.read(client, "ns", "s");
  return reader;
}

describe("redaction", () => {
  const token = "pip-token-5b3e8a11";

  it("catches a secret's base64 alone, inside a longer encoded text at every alignment, URL-safe, and URL-encoded", async () => {
    const reader = await readerOf({ token });
    for (const prefix of ["", "a", "ab", "user:"]) {
      for (const suffix of ["", "\n", "xyz"]) {
        const encoded = Buffer.from(`${prefix}${token}${suffix}`).toString("base64");
        expect(reader.redact(`leaked ${encoded}`)).toContain("[redacted]");
        expect(reader.redact(`leaked ${encoded}`)).not.toContain(
          Buffer.from(token).toString("base64").slice(4, 16),
        );
      }
    }
    expect(reader.redact(Buffer.from(token).toString("base64url"))).toBe("[redacted]");
    const special = await readerOf({ password: "p@ss w/rd&more" });
    expect(special.redact(`url?p=${encodeURIComponent("p@ss w/rd&more")}`)).toBe("url?p=[redacted]");
    expect(special.redact("p%40ss+w%2Frd%26more")).toBe("[redacted]");
    expect(reader.redact("nothing secret here: build failed")).toBe("nothing secret here: build failed");
  });

  it("knows the passwords inside a docker config, and the password inside its auth", async () => {
    const auth = Buffer.from("builder:reg-pass-7d1f0c9e").toString("base64");
    const config = JSON.stringify({ auths: { "registry.example.com": { auth } } });
    expect(dockerConfigSecrets(config)).toEqual([auth, "reg-pass-7d1f0c9e"]);
    const reader = await readerOf({ ".dockerconfigjson": config });
    expect(reader.redact("denied for reg-pass-7d1f0c9e")).toBe("denied for [redacted]");
  });

  it("keeps a user name readable: only the password of a username/password Secret is redacted", async () => {
    const reader = await readerOf({ username: "slipway", password: "reg-pass-41c9e0aa" });
    expect(reader.redact("built and pushed slipway-registry.slipway.svc:5000/model:v1")).toBe(
      "built and pushed slipway-registry.slipway.svc:5000/model:v1",
    );
    expect(reader.redact("login slipway:reg-pass-41c9e0aa refused")).toBe("login slipway:[redacted] refused");
  });
});
