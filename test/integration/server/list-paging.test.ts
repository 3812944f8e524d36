import { CustomObjectsApi } from "@kubernetes/client-node";
import { beforeAll, describe, expect, it } from "vitest";
import { ImageBuildKind } from "../../../src/apis/builds/imagebuild.ts";
import type { Kind } from "../../../src/apis/kind.ts";
import {
  PipelineKind,
  ProviderKind,
  pipelineKinds,
  RunConfigurationKind,
  RunKind,
} from "../../../src/apis/pipelines/index.ts";
import { maxPageSize } from "../../../src/server/paging.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { grantRole } from "../../support/service-account.ts";
import { buildSpec } from "./build-pods.ts";
import { serviceAccountToken, startServer } from "./server.ts";

/** Every list route of the server, with a valid spec for its kind. */
const listRoutes: { kind: Kind; spec: unknown }[] = [
  { kind: ImageBuildKind, spec: buildSpec },
  { kind: PipelineKind, spec: { provider: "argo", image: "img:1", steps: [{ name: "train" }] } },
  { kind: RunKind, spec: { provider: "argo", pipeline: "train" } },
  {
    kind: RunConfigurationKind,
    spec: {
      provider: "argo",
      run: { pipeline: "train" },
      triggers: { schedules: [{ cronExpression: "@daily" }] },
    },
  },
  { kind: ProviderKind, spec: { type: "argo" } },
];

interface Page {
  items: { name: string }[];
  continue?: string;
  remainingItemCount?: number;
}

describe("paging of every list route (limit + continue, as the caller)", () => {
  beforeAll(() => installCrds([ImageBuildKind, ...pipelineKinds]));

  it("pages of N hold exactly the N+1 objects, the last page has no continue; a bad limit is a 400 naming it", async () => {
    const namespace = await testNamespace("paging");
    const objects = adminConfig().makeApiClient(CustomObjectsApi);
    const pageSize = 2;
    const names = ["a-one", "b-two", "c-three"]; // pageSize + 1
    for (const { kind, spec } of listRoutes) {
      for (const name of names) {
        await objects.createNamespacedCustomObject({
          group: kind.group,
          version: kind.version,
          plural: kind.plural,
          namespace,
          body: { apiVersion: kind.apiVersion, kind: kind.kind, metadata: { name, namespace }, spec },
        });
      }
    }
    const url = await startServer(namespace);
    const token = await serviceAccountToken(namespace, "viewer");
    await grantRole(namespace, "viewer", "viewer-lists", [
      { apiGroups: [ImageBuildKind.group], resources: ["imagebuilds"], verbs: ["list"] },
      {
        apiGroups: [PipelineKind.group],
        resources: ["pipelines", "runs", "runconfigurations", "providers", "runschedules", "experiments"],
        verbs: ["list"],
      },
    ]);
    const get = async (path: string) => {
      const response = await fetch(`${url}/api/v1/namespaces/${namespace}/${path}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return {
        status: response.status,
        type: response.headers.get("content-type"),
        body: (await response.json()) as Page & { field?: string; message?: string },
      };
    };

    for (const { kind } of listRoutes) {
      // a CRD another file has just applied again has its watch cache rebuilt: 429 "storage is (re)initializing" until then
      const first = await eventually(
        `${kind.plural}: the first page`,
        () => get(`${kind.plural}?limit=${pageSize}`),
        (page) => page.status !== 429,
      );
      expect(first.status, `${kind.plural}: ${JSON.stringify(first.body)}`).toBe(200);
      expect(first.body.items, kind.plural).toHaveLength(pageSize);
      expect(first.body.continue, kind.plural).toEqual(expect.any(String));
      expect(first.body.remainingItemCount, kind.plural).toBe(1);
      const second = await get(
        `${kind.plural}?limit=${pageSize}&continue=${encodeURIComponent(first.body.continue ?? "")}`,
      );
      expect(second.status, kind.plural).toBe(200);
      expect(second.body.continue, kind.plural).toBeUndefined();
      const listed = [...first.body.items, ...second.body.items].map((item) => item.name);
      expect(listed.sort(), kind.plural).toEqual(names);

      // without a limit: one page of the default size (all three here)
      const whole = await get(kind.plural);
      expect(whole.body.items.map((item) => item.name).sort(), kind.plural).toEqual(names);
      expect(whole.body.continue, kind.plural).toBeUndefined();

      for (const [limit, rule] of [
        ["0", ">= 1"],
        [String(maxPageSize + 1), `<= ${maxPageSize}`],
        ["ten", "must be integer"],
        ["1.5", "must be integer"],
      ]) {
        const bad = await get(`${kind.plural}?limit=${limit}`);
        expect(bad.status, `${kind.plural} limit=${limit}`).toBe(400);
        expect(bad.type).toContain("application/json");
        expect(bad.body.field).toBe("querystring.limit");
        expect(bad.body.message).toContain(rule);
      }
      const garbled = await get(`${kind.plural}?limit=1&continue=not-a-token`);
      expect(garbled.status, `${kind.plural} continue=not-a-token`).toBe(400);
      expect(garbled.body.message).toMatch(/continue/);
    }
  });
});
