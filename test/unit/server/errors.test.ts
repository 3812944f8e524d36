import { describe, expect, it } from "vitest";
import { ApiError } from "../../../src/kube/rest.ts";
import { bearerToken } from "../../../src/server/auth.ts";
import { HttpError, notFoundAs, toErrorBody } from "../../../src/server/errors.ts";

const validation = (context: string, issue: Record<string, unknown>) =>
  Object.assign(new Error("invalid"), { statusCode: 400, validationContext: context, validation: [issue] });

describe("toErrorBody", () => {
  it("names the field of a schema violation", () => {
    const body = toErrorBody(
      validation("body", {
        instancePath: "/version",
        keyword: "type",
        params: {},
        message: "must be string",
      }),
    );
    expect(body).toEqual({
      statusCode: 400,
      error: "Bad Request",
      message: "body.version must be string",
      field: "body.version",
    });
  });
  it("names a missing and an unknown property", () => {
    expect(
      toErrorBody(
        validation("body", { instancePath: "", keyword: "required", params: { missingProperty: "version" } }),
      ),
    ).toMatchObject({ field: "body.version", message: "body.version is required" });
    expect(
      toErrorBody(
        validation("body", {
          instancePath: "",
          keyword: "additionalProperties",
          params: { additionalProperty: "x" },
        }),
      ),
    ).toMatchObject({ field: "body.x", message: "body.x is not a known field" });
  });
  it("answers a refusal of the Kubernetes API (ApiError) by its status and the API server's message", () => {
    const forbidden = new ApiError(403, "GET", "/apis/x", { message: 'platforms "p" is forbidden: no' });
    expect(toErrorBody(forbidden)).toEqual({
      statusCode: 403,
      error: "Forbidden",
      message: 'platforms "p" is forbidden: no',
    });
    expect(toErrorBody(new ApiError(404, "GET", "/apis/x", "not json")).message).toBe(
      "GET /apis/x: 404 not json",
    );
    expect(toErrorBody(new ApiError(401, "GET", "/apis/x", {})).message).toBe(
      "the Kubernetes API refused the credentials",
    );
    expect(toErrorBody(new ApiError(503, "GET", "/apis/x", {})).statusCode).toBe(502);
  });
  it("turns a Kubernetes 5xx into 502 and anything unexpected into a generic 500", () => {
    expect(toErrorBody(new ApiError(500, "GET", "/apis/x", { message: "boom" })).statusCode).toBe(502);
    expect(toErrorBody(new Error("secret detail"))).toEqual({
      statusCode: 500,
      error: "Internal Server Error",
      message: "internal server error",
    });
  });
  it("passes an HttpError through", () => {
    expect(toErrorBody(new HttpError(409, "downgrade", "body.version"))).toMatchObject({
      statusCode: 409,
      error: "Conflict",
      field: "body.version",
    });
  });
});

describe("notFoundAs", () => {
  const thrownBy = (error: unknown) => {
    try {
      notFoundAs("ImageBuild ml/b")(error);
    } catch (thrown) {
      return thrown;
    }
  };
  it("turns a Kubernetes 404 into a 404 naming what does not exist", () => {
    const thrown = thrownBy(new ApiError(404, "GET", "/apis/x", {}));
    expect(thrown).toBeInstanceOf(HttpError);
    expect(toErrorBody(thrown)).toEqual({
      statusCode: 404,
      error: "Not Found",
      message: "ImageBuild ml/b does not exist",
    });
  });
  it("passes any other error on unchanged", () => {
    const forbidden = new ApiError(403, "GET", "/apis/x", {});
    expect(thrownBy(forbidden)).toBe(forbidden);
  });
});

describe("bearerToken", () => {
  it("reads the token of a Bearer header only", () => {
    expect(bearerToken("Bearer abc.def")).toBe("abc.def");
    expect(bearerToken("bearer abc")).toBe("abc");
    expect(bearerToken("Basic abc")).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
    expect(bearerToken("Bearer ")).toBeUndefined();
  });
});
