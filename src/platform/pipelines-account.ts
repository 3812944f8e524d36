/**
 * The one ServiceAccount a Platform's own Provider may name without the operator's allowlist: the
 * platform's pipelines account (`<platform>-pipelines`, made by its workflow-engine component), for
 * the Provider the Platform controls under its own name (platformProvider). Controls means the
 * controller reference's uid is that of the Platform of that name in the Provider's namespace
 * (platform-owner.ts): whoever may create Providers writes any reference, kind, name and uid alike.
 */
import type { Provider } from "../apis/pipelines/provider.ts";
import { PlatformKind } from "../apis/platform/platform.ts";
import { controllerOf } from "../kube/owners.ts";
import type { Cache } from "../kube/types.ts";
import { controlledBy, referencedPlatform } from "./platform-owner.ts";
import { types } from "./resource-types.ts";
import { pipelinesServiceAccount } from "./workflow-engine.ts";

function namesPlatformAccount(provider: Provider, serviceAccount: string, cache: Pick<Cache, "get">) {
  const owner = controllerOf(provider);
  if (owner?.kind !== PlatformKind.kind || owner.apiVersion !== PlatformKind.apiVersion) return false;
  if (provider.metadata.name !== owner.name || serviceAccount !== pipelinesServiceAccount(owner.name))
    return false;
  return controlledBy(provider, referencedPlatform(cache, provider));
}

/** A ServiceAccountPolicy (src/pipelines/provider-service-accounts.ts), wired in by the operator; it reads Platforms. */
export const platformPipelinesAccount = Object.assign(namesPlatformAccount, { reads: [types.platform] });
