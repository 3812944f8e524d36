import { describe, expect, it } from "vitest";
import type { ComponentResource } from "../../../src/apis/platform/component.ts";
import { findRelease } from "../../../src/platform/catalog.ts";
import {
  renderClaims,
  renderIngress,
  renderWorkload,
  workloadDrifted,
} from "../../../src/platform/component-objects.ts";
import { renderComponents } from "../../../src/platform/render.ts";

const release = findRelease("0.1.0");
if (!release) throw new Error("release 0.1.0 missing");

const asResource = (spec: ReturnType<typeof renderComponents>[number]): ComponentResource => ({
  apiVersion: "platform.slipway.dev/v1beta1",
  kind: "Component",
  metadata: { name: spec.objectName, namespace: "ns", uid: "u-1", generation: 4 },
  spec: spec.spec,
});

describe("rendering", () => {
  it("renders default sizes, ReadWriteOnce and no class (the cluster's default) for a single node", () => {
    const components = renderComponents("slipway", "ns", {}, release);
    const store = components.find((c) => c.name === "object-store");
    expect(store?.spec.volumes).toEqual([
      { name: "artifacts", mountPath: "/data", size: "50Gi", accessMode: "ReadWriteOnce" },
    ]);
    const claim = renderClaims(asResource(store as never))[0];
    expect(claim?.spec?.storageClassName).toBeUndefined();
    expect(claim?.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: "Component",
      uid: "u-1",
      controller: true,
    });
  });

  it("renders ReadWriteMany, the named class and grown sizes for multiple nodes", () => {
    const components = renderComponents(
      "slipway",
      "ns",
      { singleNode: false, storage: { storageClassName: "nfs", registrySize: "40Gi" } },
      release,
    );
    expect(components.find((c) => c.name === "registry")?.spec.volumes[0]).toMatchObject({
      size: "40Gi",
      accessMode: "ReadWriteMany",
      storageClassName: "nfs",
    });
  });

  it("applies overrides: image, replicas, env (overrides win), pod annotations; log level in every component", () => {
    const [web] = renderComponents(
      "slipway",
      "ns",
      {
        logLevel: "DEBUG",
        allowImageOverrides: true,
        components: {
          web: {
            image: "example.com/web:1",
            replicas: 3,
            env: [{ name: "SLIPWAY_LOG_LEVEL", value: "ERROR" }],
            podAnnotations: { a: "b" },
          },
        },
      },
      release,
    ).filter((c) => c.name === "web");
    expect(web?.spec).toMatchObject({ image: "example.com/web:1", replicas: 3, podAnnotations: { a: "b" } });
    expect(web?.spec.env.filter((e) => e.name === "SLIPWAY_LOG_LEVEL")).toEqual([
      { name: "SLIPWAY_LOG_LEVEL", value: "ERROR" },
    ]);
  });

  it("keeps the release's image unless the Platform allows image overrides", () => {
    const web = (spec: Parameters<typeof renderComponents>[2]) =>
      renderComponents("slipway", "ns", spec, release).find((c) => c.name === "web")?.spec.image;
    const override = { web: { image: "example.com/anything:1" } };
    expect(web({ components: override })).toBe(release.images.web);
    expect(web({ components: override, allowImageOverrides: false })).toBe(release.images.web);
    expect(web({ components: override, allowImageOverrides: true })).toBe("example.com/anything:1");
  });

  it("renders the workload with the generation it came from, 0 replicas when stopped, and the Ingress path", () => {
    const components = renderComponents("slipway", "ns", { stopped: true, host: "ml.example.com" }, release);
    const api = asResource(components.find((c) => c.name === "api-server") as never);
    const workload = renderWorkload(api);
    expect(workload.kind).toBe("Deployment");
    expect(workload.spec?.replicas).toBe(0);
    expect(workload.metadata?.annotations?.["platform.slipway.dev/component-generation"]).toBe("4");
    const ingress = renderIngress(api);
    expect(ingress?.spec?.rules?.[0]).toMatchObject({ host: "ml.example.com" });
    expect(ingress?.spec?.rules?.[0]?.http?.paths[0]?.path).toBe("/api");
    const postgres = renderWorkload(asResource(components.find((c) => c.name === "postgres") as never));
    expect(postgres.kind).toBe("StatefulSet");
  });
});

describe("workloadDrifted", () => {
  const rendered = renderWorkload(asResource(renderComponents("slipway", "ns", {}, release)[3] as never));
  const live = (edit: (w: typeof rendered) => void) => {
    const copy = structuredClone(rendered);
    // what the API server adds is not drift
    copy.metadata = { ...copy.metadata, resourceVersion: "7", generation: 3 };
    const container = copy.spec?.template.spec?.containers[0];
    if (container) container.imagePullPolicy = "IfNotPresent";
    edit(copy);
    return copy;
  };

  it("sees a scaled workload and a changed image, not the API server's defaults or others' annotations", () => {
    expect(
      workloadDrifted(
        live(() => {}),
        rendered,
      ),
    ).toBe(false);
    expect(
      workloadDrifted(
        live((w) => {
          w.spec = {
            ...w.spec,
            template: { ...w.spec?.template, metadata: { annotations: { x: "y" } } },
          } as never;
        }),
        rendered,
      ),
    ).toBe(false);
    const scaled = live((w) => {
      if (w.spec) w.spec.replicas = 3;
    });
    expect(workloadDrifted(scaled, rendered)).toBe(true);
    const retagged = live((w) => {
      const container = w.spec?.template.spec?.containers[0];
      if (container) container.image = "docker.io/library/busybox:1.36";
    });
    expect(workloadDrifted(retagged, rendered)).toBe(true);
  });
});
