import { describe, expect, it } from "vitest";
import { providerMatchConditions } from "../../../src/pipelines/admission/configuration.ts";
import {
  providerSecretReferences,
  providerSecretRefusal,
} from "../../../src/pipelines/admission/secret-references.ts";
import { firstUnreadable } from "../../../src/webhook/secret-references.ts";

const provider = (type: string, parameters: Record<string, unknown>) => ({
  spec: { type: type as "kfp", parameters },
});

describe("the Secrets a Provider names", () => {
  it("names kfp's bearer token Secret and vertex's key Secret with their fields", () => {
    expect(
      providerSecretReferences(
        provider("kfp", { endpoint: "https://kfp", auth: { bearerTokenSecret: { name: "kfp-token" } } }),
      ),
    ).toEqual([{ field: "spec.parameters.auth.bearerTokenSecret.name", secret: "kfp-token" }]);
    expect(
      providerSecretReferences(
        provider("vertex", { project: "p", credentials: { keySecret: { name: "sa-key", key: "key.json" } } }),
      ),
    ).toEqual([{ field: "spec.parameters.credentials.keySecret.name", secret: "sa-key" }]);
  });

  it("looks at every path whatever the type says, and finds none without a Secret name", () => {
    const both = provider("argo", {
      auth: { bearerTokenSecret: { name: "a" } },
      credentials: { keySecret: { name: "b" } },
    });
    expect(providerSecretReferences(both).map((r) => r.secret)).toEqual(["a", "b"]);
    expect(providerSecretReferences({ spec: { type: "argo" } })).toEqual([]);
    expect(
      providerSecretReferences(
        provider("kfp", { auth: { serviceAccountToken: { serviceAccount: "x" } }, credentials: "ambient" }),
      ),
    ).toEqual([]);
    expect(providerSecretReferences(provider("kfp", { auth: { bearerTokenSecret: { name: 7 } } }))).toEqual(
      [],
    );
  });

  it("refuses naming the field and the Secret the user may not get; none when it may get them all", () => {
    const references = providerSecretReferences(
      provider("kfp", { auth: { bearerTokenSecret: { name: "admin-token" } } }),
    );
    const refused = firstUnreadable(references, new Set());
    expect(refused && providerSecretRefusal(refused, "bob", "team")).toBe(
      "spec.parameters.auth.bearerTokenSecret.name: user bob may not get Secret team/admin-token; a Provider may name a Secret only if whoever creates or changes its spec may read it (the operator sends its value to the Provider's endpoint)",
    );
    expect(firstUnreadable(references, new Set(["admin-token"]))).toBeUndefined();
  });

  it("is called only for a created or changed spec that may name a Secret", () => {
    expect(providerMatchConditions.map((c) => c.expression)).toEqual([
      "request.operation == 'CREATE' || object.spec != oldObject.spec",
      "has(object.spec.parameters) && ((has(object.spec.parameters.auth) && has(object.spec.parameters.auth.bearerTokenSecret)) || (has(object.spec.parameters.credentials) && has(object.spec.parameters.credentials.keySecret)))",
    ]);
  });
});
