import { describe, expect, it } from "vitest";
import { answerConversion, parseConversionReview } from "../../../src/webhook/conversion-review.ts";
import { convertsAs, webhookConversion } from "../../../src/webhook/crd-conversion.ts";

const request = (desiredAPIVersion: string, objects: unknown[]) => ({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "ConversionReview",
  request: { uid: "u-1", desiredAPIVersion, objects },
});

const build = (apiVersion: string) => ({
  apiVersion,
  kind: "ImageBuild",
  metadata: { name: "b", namespace: "ml" },
  spec: { project: "p", name: "n", version: "v1" },
});

describe("ConversionReview", () => {
  it("converts every object and answers with the request's uid", () => {
    const parsed = parseConversionReview(
      JSON.stringify(
        request("builds.slipway.dev/v1alpha1", [
          build("builds.slipway.dev/v1beta1"),
          build("builds.slipway.dev/v1alpha1"),
        ]),
      ),
    );
    expect("invalid" in parsed).toBe(false);
    expect(answerConversion(parsed as never)).toEqual({
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "ConversionReview",
      response: {
        uid: "u-1",
        convertedObjects: [build("builds.slipway.dev/v1alpha1"), build("builds.slipway.dev/v1alpha1")],
        result: { status: "Success" },
      },
    });
  });

  it("fails the whole review naming the object it cannot convert", () => {
    const parsed = parseConversionReview(
      JSON.stringify(request("builds.slipway.dev/v9", [build("builds.slipway.dev/v1beta1")])),
    );
    expect(answerConversion(parsed as never).response).toEqual({
      uid: "u-1",
      convertedObjects: [],
      result: {
        status: "Failure",
        message: "ImageBuild b: ImageBuild is not served at builds.slipway.dev/v9",
      },
    });
  });

  it("says why a body is not a review", () => {
    expect(parseConversionReview("{")).toEqual({ invalid: "the body is not JSON" });
    expect(
      parseConversionReview(JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" })),
    ).toEqual({
      invalid: "expected an apiextensions.k8s.io/v1 ConversionReview",
    });
    expect(parseConversionReview(JSON.stringify({ ...request("x/v1", []), request: { uid: "u" } }))).toEqual({
      invalid: "the review's request needs desiredAPIVersion and objects",
    });
  });
});

describe("a CRD's conversion", () => {
  const desired = webhookConversion(
    { service: { namespace: "slipway", name: "hook", port: 443, path: "/convert" } },
    "PEM",
  );

  it("points the CRD at the operator with its CA", () => {
    expect(desired).toEqual({
      strategy: "Webhook",
      webhook: {
        conversionReviewVersions: ["v1"],
        clientConfig: {
          service: { namespace: "slipway", name: "hook", port: 443, path: "/convert" },
          caBundle: Buffer.from("PEM").toString("base64"),
        },
      },
    });
  });

  it("is the same whatever the key order the API server answers in; another CA or strategy is not", () => {
    const served = {
      strategy: "Webhook",
      webhook: {
        clientConfig: {
          caBundle: Buffer.from("PEM").toString("base64"),
          service: { path: "/convert", port: 443, name: "hook", namespace: "slipway" },
        },
        conversionReviewVersions: ["v1"],
      },
    };
    expect(convertsAs(served, desired)).toBe(true);
    expect(convertsAs({ strategy: "None" }, desired)).toBe(false);
    expect(convertsAs(undefined, desired)).toBe(false);
    expect(
      convertsAs(
        {
          ...served,
          webhook: { ...served.webhook, clientConfig: { ...served.webhook.clientConfig, caBundle: "b2xk" } },
        },
        desired,
      ),
    ).toBe(false);
  });
});
