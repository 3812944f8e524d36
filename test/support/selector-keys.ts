/**
 * The label keys Slipway selects pods by: every key of every pod and namespace selector of the
 * NetworkPolicies it renders for a platform (their peers included), and the labels it puts on a
 * build Job. An ImageBuild's `spec.labels` may set none of them (src/apis/builds/imagebuild.ts).
 */
import type { ComponentResource } from "../../src/apis/platform/component.ts";
import { jobLabels } from "../../src/builds/build-job.ts";
import { releases } from "../../src/platform/catalog.ts";
import { renderNetworkPolicies } from "../../src/platform/network-policies.ts";
import { renderComponents } from "../../src/platform/render.ts";

interface Selector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string }[];
}

function selectorKeys(value: unknown, keys: Set<string>): void {
  if (Array.isArray(value)) for (const item of value) selectorKeys(item, keys);
  if (typeof value !== "object" || value === null) return;
  for (const [field, inner] of Object.entries(value)) {
    if (field === "podSelector" || field === "namespaceSelector") {
      const selector = inner as Selector;
      for (const key of Object.keys(selector.matchLabels ?? {})) keys.add(key);
      for (const expression of selector.matchExpressions ?? []) keys.add(expression.key);
    } else selectorKeys(inner, keys);
  }
}

/** The keys, sorted. */
export function slipwaySelectorKeys(): string[] {
  const keys = new Set<string>();
  for (const release of releases) {
    const components: ComponentResource[] = renderComponents("slipway", "ns", {}, release).map((c) => ({
      apiVersion: "platform.slipway.dev/v1beta1",
      kind: "Component",
      metadata: { name: c.objectName, namespace: "ns", uid: `u-${c.name}` },
      spec: c.spec,
    }));
    selectorKeys(renderNetworkPolicies(components), keys);
  }
  const build = { metadata: {}, spec: { project: "p", name: "n", version: "v", artifactUri: "s3://b/k" } };
  for (const key of Object.keys(jobLabels(build as never, "registry/p/n:v"))) keys.add(key);
  return [...keys].sort();
}
