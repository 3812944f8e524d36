/**
 * The one ServiceAccount a Platform's own Provider may name without the operator's allowlist: the
 * platform's pipelines account (`<platform>-pipelines`, made by its workflow-engine component), for
 * the Provider the Platform controls under its own name (platformProvider).
 */
import type { Provider } from "../apis/pipelines/provider.ts";
import { PlatformKind } from "../apis/platform/platform.ts";
import { controllerOf } from "../kube/owners.ts";
import { pipelinesServiceAccount } from "./workflow-engine.ts";

/** A ServiceAccountPolicy (src/pipelines/provider-service-accounts.ts), wired in by the operator. */
export function platformPipelinesAccount(provider: Provider, serviceAccount: string): boolean {
  const owner = controllerOf(provider);
  if (owner?.kind !== PlatformKind.kind || owner.apiVersion !== PlatformKind.apiVersion) return false;
  return provider.metadata.name === owner.name && serviceAccount === pipelinesServiceAccount(owner.name);
}
