/**
 * The bundle's API Priority and Fairness objects on the real API server: applied as the release
 * builds them for a namespace, they classify every request of that namespace's operator
 * ServiceAccount (resource and non-resource) into the operator's own level, which the API server
 * says on each response (X-Kubernetes-PF-FlowSchema-UID, X-Kubernetes-PF-PriorityLevel-UID); another
 * ServiceAccount of the same namespace stays with the built-in schemas.
 */
import https from "node:https";
import {
  CoreV1Api,
  FlowcontrolApiserverV1Api,
  type KubeConfig,
  type KubernetesObject,
  KubernetesObjectApi,
  PatchStrategy,
} from "@kubernetes/client-node";
import { describe, expect, it, onTestFinished } from "vitest";
import { toClientModel } from "../../../src/apis/wire.ts";
import { operatorName } from "../../../src/bundle/bundle.ts";
import { flowControlKinds } from "../../../src/bundle/flow-control.ts";
import { releaseBundle } from "../../../src/bundle/release.ts";
import { RestClient } from "../../../src/kube/rest.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";
import { serviceAccountConfig } from "../../support/service-account.ts";

interface Classified {
  status: number;
  flowSchema: string | undefined;
  priorityLevel: string | undefined;
}

/** One request as the user of `config`, and where API Priority and Fairness put it (its response headers). */
async function classified(
  config: KubeConfig,
  method: string,
  path: string,
  body?: unknown,
): Promise<Classified> {
  const options: https.RequestOptions = {};
  await config.applyToHTTPSOptions(options);
  const url = new URL(path, config.getCurrentCluster()?.server);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = https.request(
      url,
      {
        ...options,
        method,
        headers: { ...options.headers, accept: "application/json", "content-type": "application/json" },
      },
      (response) => {
        response.resume();
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            flowSchema: response.headers["x-kubernetes-pf-flowschema-uid"] as string | undefined,
            priorityLevel: response.headers["x-kubernetes-pf-prioritylevel-uid"] as string | undefined,
          }),
        );
      },
    );
    request.on("error", reject);
    request.end(payload);
  });
}

/** The API server's seat limits of priority level `name` (its /metrics, as admin). */
async function levelSeats(name: string): Promise<{ nominal?: number; upper?: number }> {
  const text = await new RestClient(adminConfig()).request<string>("GET", "/metrics");
  const seats = (metric: string) => {
    const line = text.split("\n").find((l) => l.startsWith(`${metric}{priority_level="${name}"}`));
    return line === undefined ? undefined : Number(line.split(" ").at(-1));
  };
  return {
    nominal: seats("apiserver_flowcontrol_nominal_limit_seats"),
    upper: seats("apiserver_flowcontrol_upper_limit_seats"),
  };
}

/** A resource request every authenticated user may make (system:basic-user), and a non-resource one. */
const requests: [method: string, path: string, body?: unknown][] = [
  [
    "POST",
    "/apis/authentication.k8s.io/v1/selfsubjectreviews",
    { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
  ],
  ["GET", "/version"],
];

describe("the operator's priority level and FlowSchema", () => {
  it("put every request of the install namespace's operator ServiceAccount in the operator's level, and no other account's", async () => {
    const namespace = await testNamespace("apf");
    const core = adminConfig().makeApiClient(CoreV1Api);
    for (const name of [operatorName, "teammate"])
      await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });

    const objects = releaseBundle(namespace).filter((o) => flowControlKinds.includes(o.kind ?? ""));
    expect(objects.map((o) => o.kind)).toEqual(flowControlKinds);
    const api = KubernetesObjectApi.makeApiClient(adminConfig());
    onTestFinished(async () => {
      for (const object of objects) await api.delete(toClientModel(object)).catch(() => {});
    });
    for (const object of objects)
      await api.patch(
        toClientModel<KubernetesObject>(object),
        undefined,
        undefined,
        "flow-control-test",
        true,
        PatchStrategy.ServerSideApply,
      );
    const flowControl = adminConfig().makeApiClient(FlowcontrolApiserverV1Api);
    const name = `${operatorName}-${namespace}`;
    const level = await flowControl.readPriorityLevelConfiguration({ name });
    // the schema's level exists: the API server marks it not dangling
    const schema = await eventually(
      "the FlowSchema's Dangling condition False",
      () => flowControl.readFlowSchema({ name }),
      (s) => s.status?.conditions?.some((c) => c.type === "Dangling" && c.status === "False") ?? false,
      30_000,
    );
    expect(level.metadata?.uid).toBeTruthy();
    expect(schema.metadata?.uid).toBeTruthy();
    // ahead of the built-in schema that would otherwise take every ServiceAccount's requests
    const builtIn = await flowControl.readFlowSchema({ name: "service-accounts" });
    expect(schema.spec?.matchingPrecedence).toBeLessThan(builtIn.spec?.matchingPrecedence ?? 0);

    // the level borrows no seats: its upper limit is its nominal one
    const seats = await eventually(
      "the API server's seat limits of the operator's level",
      () => levelSeats(name),
      (limits) => limits.nominal !== undefined && limits.upper !== undefined,
      30_000,
    );
    expect(seats.nominal).toBeGreaterThan(0);
    expect(seats.upper).toBe(seats.nominal);

    const operator = await serviceAccountConfig(adminConfig(), namespace, operatorName);
    const ownLevel = { flowSchema: schema.metadata?.uid, priorityLevel: level.metadata?.uid };
    for (const [method, path, body] of requests) {
      // the API server's flow control takes up a new configuration from its informers: wait for it
      const seen = await eventually(
        `${method} ${path} as the operator classified into its own FlowSchema`,
        () => classified(operator, method, path, body),
        (response) => response.flowSchema === ownLevel.flowSchema,
        30_000,
      );
      expect(seen.status).toBeLessThan(300);
      expect(seen).toMatchObject(ownLevel);
    }

    const teammate = await serviceAccountConfig(adminConfig(), namespace, "teammate");
    for (const [method, path, body] of requests) {
      const other = await classified(teammate, method, path, body);
      expect(other.status).toBeLessThan(300);
      expect(other.flowSchema).toBeTruthy();
      expect(other.flowSchema).not.toBe(ownLevel.flowSchema);
      expect(other.priorityLevel).not.toBe(ownLevel.priorityLevel);
    }
  });
});
