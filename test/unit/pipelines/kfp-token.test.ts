import { describe, expect, it } from "vitest";
import { type Secret, tokenOfSecret } from "../../../src/pipelines/kfp/auth.ts";

const auth = { type: "secret" as const, name: "kfp", key: "token" };
const secret = (token: string): Secret => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name: "kfp", namespace: "team" },
  data: { token: Buffer.from(token).toString("base64") },
});

describe("the bearer token of a kfp Provider's Secret", () => {
  it("is the key's value, trimmed", () => {
    expect(tokenOfSecret(secret("kfp-token-7f3a9c\n"), "team", auth)).toBe("kfp-token-7f3a9c");
  });

  it("is refused, naming the field and the rule, when missing or too short to be a token", () => {
    expect(() => tokenOfSecret(undefined, "team", auth)).toThrow(
      "spec.parameters.auth.bearerTokenSecret: Secret team/kfp does not exist",
    );
    expect(() => tokenOfSecret(secret("x"), "team", { ...auth, key: "other" })).toThrow(
      "spec.parameters.auth.bearerTokenSecret: Secret team/kfp has no key other",
    );
    // a one-letter token would have every "t" of a message redacted
    expect(() => tokenOfSecret(secret("t"), "team", auth)).toThrow(
      "spec.parameters.auth.bearerTokenSecret: key token of Secret team/kfp is 1 character long, shorter than 8: not a bearer token",
    );
  });
});
