import { withHashSuffix } from "../../lib/canonical.ts";
import type { Owner } from "../backend.ts";

/** Argo keeps workflow names within 63 characters (they become label values). */
const maxName = 63;

/** The name of the Argo object for `owner`: `<namespace>.<name>`, shortened with a hash when too long. */
export function argoName(owner: Pick<Owner, "namespace" | "name">, suffix = ""): string {
  const full = `${owner.namespace}.${owner.name}${suffix}`;
  return full.length <= maxName ? full : withHashSuffix(full, full, maxName);
}

export const labels = {
  kind: "pipelines.slipway.dev/kind",
  namespace: "pipelines.slipway.dev/namespace",
  name: "pipelines.slipway.dev/name",
  version: "pipelines.slipway.dev/version",
  experiment: "pipelines.slipway.dev/experiment",
};

/** `Kind/namespace/name` of the owner, in full (labels are cut to 63 characters). */
export const ownerAnnotation = "pipelines.slipway.dev/owner";

function labelValue(value: string): string {
  return value.length <= 63 ? value : value.slice(0, 63).replace(/[^a-zA-Z0-9]+$/, "");
}

export function ownerMetadata(owner: Owner, version?: string) {
  return {
    labels: {
      [labels.kind]: owner.kind,
      [labels.namespace]: labelValue(owner.namespace),
      [labels.name]: labelValue(owner.name),
      ...(version ? { [labels.version]: version } : {}),
    },
    annotations: { [ownerAnnotation]: `${owner.kind}/${owner.namespace}/${owner.name}` },
  };
}

/** The owner named by an Argo object's annotation, if it is of `kind`. */
export function ownerOf(
  object: { metadata?: { annotations?: Record<string, string> } },
  kind: string,
): { namespace: string; name: string } | undefined {
  const value = object.metadata?.annotations?.[ownerAnnotation];
  const [ownerKind, namespace, name] = value?.split("/") ?? [];
  return ownerKind === kind && namespace && name ? { namespace, name } : undefined;
}
