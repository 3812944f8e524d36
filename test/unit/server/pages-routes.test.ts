import { describe, expect, it } from "vitest";
import type { Pipeline } from "../../../src/apis/pipelines/pipeline.ts";
import { HttpError } from "../../../src/server/errors.ts";
import {
  candidateNamespaces,
  candidatesAfter,
  namespaceAccess,
  serviceAccountNamespace,
} from "../../../src/server/namespaces/candidates.ts";
import { versionHistory } from "../../../src/server/pipelines/history.ts";
import { providerUsers } from "../../../src/server/pipelines/provider-usage.ts";
import { runForPipeline } from "../../../src/server/pipelines/run-create.ts";

describe("namespace candidates and access", () => {
  it("asks about the listed namespaces, the caller's ServiceAccount's, the server's and the page's, once each", () => {
    expect(serviceAccountNamespace("system:serviceaccount:team-a:alice")).toBe("team-a");
    expect(serviceAccountNamespace("alice@example.com")).toBeUndefined();
    expect(
      candidateNamespaces({
        listed: undefined,
        username: "system:serviceaccount:team-a:alice",
        configured: "slipway",
        requested: ["team-b", "team-a"],
      }),
    ).toEqual(["slipway", "team-a", "team-b"]);
  });
  it("a page after a continue name starts at the next candidate in name order", () => {
    expect(candidatesAfter(["a", "b", "c"], undefined)).toEqual(["a", "b", "c"]);
    expect(candidatesAfter(["a", "b", "c"], "a")).toEqual(["b", "c"]);
    expect(candidatesAfter(["a", "c"], "b")).toEqual(["c"]); // the last name gone since: still after it
    expect(candidatesAfter(["a", "b"], "b")).toEqual([]);
  });
  it("keeps a namespace with at least one resource allowed there or cluster-wide", () => {
    const here = new Map([["a", new Set(["runs"])]]);
    const access = namespaceAccess(
      ["a", "b"],
      ["imagebuilds", "runs"],
      new Set(),
      (name) => here.get(name) ?? new Set(),
    );
    expect(access).toEqual([{ name: "a", resources: ["runs"] }]);
    expect(
      namespaceAccess(["a", "b"], ["imagebuilds", "runs"], new Set(["imagebuilds"]), () => new Set()),
    ).toEqual([
      { name: "a", resources: ["imagebuilds"] },
      { name: "b", resources: ["imagebuilds"] },
    ]);
  });
});

describe("a pipeline's version history", () => {
  it("newest first, with the version the sync message names and warnings marked", () => {
    const event = (reason: string, message: string, time: string, type = "Normal") => ({
      reason,
      message,
      type,
      metadata: {},
      eventTime: new Date(time),
    });
    expect(
      versionHistory([
        event(
          "Succeeded",
          "Creating → Succeeded: created provider p as x (version aa1)",
          "2026-01-01T10:00:00Z",
        ),
        event("Failed", "update failed (attempt 1): boom", "2026-01-01T11:00:00Z", "Warning"),
      ]),
    ).toEqual([
      {
        at: "2026-01-01T11:00:00.000Z",
        state: "Failed",
        message: "update failed (attempt 1): boom",
        warning: true,
      },
      {
        at: "2026-01-01T10:00:00.000Z",
        state: "Succeeded",
        version: "aa1",
        message: "Creating → Succeeded: created provider p as x (version aa1)",
        warning: false,
      },
    ]);
  });
});

describe("the resources using each Provider", () => {
  it("resolves a bare name in the resource's namespace and namespace/name as written", () => {
    const users = providerUsers([
      { kind: "Run", metadata: { name: "r", namespace: "a" }, spec: { provider: "argo" } },
      { kind: "Pipeline", metadata: { name: "p", namespace: "a" }, spec: { provider: "shared/argo" } },
      { kind: "Pipeline", metadata: { name: "q", namespace: "a" }, spec: { provider: "a/argo" } },
    ]);
    expect(users.get("a/argo")).toEqual([
      { kind: "Pipeline", name: "q" },
      { kind: "Run", name: "r" },
    ]);
    expect(users.get("shared/argo")).toEqual([{ kind: "Pipeline", name: "p" }]);
  });
});

describe("a Run started from a Pipeline", () => {
  const pipeline = {
    metadata: { name: "train", namespace: "a" },
    spec: {
      provider: "argo",
      steps: [{ name: "s" }],
      parameters: [{ name: "epochs", default: "3" }, { name: "data" }],
    },
  } as unknown as Pipeline;
  const refusal = (body: Parameters<typeof runForPipeline>[1]) => {
    try {
      runForPipeline(pipeline, body, "a");
    } catch (error) {
      return error instanceof HttpError ? { field: error.field, message: error.message } : error;
    }
    return undefined;
  };
  it("runs on the Pipeline's Provider, named after it unless named", () => {
    expect(
      runForPipeline(pipeline, { pipeline: "train:abc", parameters: [{ name: "data", value: "x" }] }, "a"),
    ).toEqual({
      apiVersion: "pipelines.slipway.dev/v1beta1",
      kind: "Run",
      metadata: { generateName: "train-", namespace: "a" },
      spec: { provider: "argo", pipeline: "train:abc", parameters: [{ name: "data", value: "x" }] },
    });
  });
  it("refuses an unknown or repeated parameter and a missing one without default, naming the field", () => {
    expect(
      refusal({
        pipeline: "train",
        parameters: [
          { name: "data", value: "x" },
          { name: "lr", value: "1" },
        ],
      }),
    ).toEqual({
      field: "body.parameters.1.name",
      message: "body.parameters.1.name: Pipeline train has no parameter lr (it has epochs, data)",
    });
    expect(
      refusal({
        pipeline: "train",
        parameters: [
          { name: "data", value: "x" },
          { name: "data", value: "y" },
        ],
      }),
    ).toMatchObject({
      field: "body.parameters.1.name",
    });
    expect(refusal({ pipeline: "train" })).toEqual({
      field: "body.parameters",
      message: "body.parameters: parameter data has no default: give it a value",
    });
  });
});
