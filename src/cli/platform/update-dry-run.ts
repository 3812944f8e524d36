/**
 * `slipway update --dry-run`: what the update would change per component, applying nothing. The
 * Platform's new spec is what the API server answers to a dry-run patch (defaults and the CRD's
 * rules applied); each object is then dry-run applied as the operator (platform/update-dry-run.ts).
 */
import type { PlatformResource } from "../../apis/platform/platform.ts";
import { KubeClient } from "../../kube/client.ts";
import { resourcePath } from "../../kube/keys.ts";
import { operatorFieldManager } from "../../operator/field-manager.ts";
import { clusterNetworksFromEnvironment } from "../../pipelines/outbound-policy.ts";
import { findRelease } from "../../platform/catalog.ts";
import { types } from "../../platform/resource-types.ts";
import { previewUpdate } from "../../platform/update-dry-run.ts";
import { formatPreview, type UpdatePreview } from "../../platform/update-preview.ts";
import { UserError } from "../run.ts";
import { fieldManager, type PlatformContext } from "./context.ts";
import { operatorEnvironment } from "./operator-bundle.ts";

/** Previews the merge patch `spec` (the version and Ingress fields `update` would write) and prints it. */
export async function dryRunUpdate(
  context: PlatformContext,
  spec: Record<string, unknown>,
): Promise<UpdatePreview> {
  const platform = await context.call(() =>
    context.rest.request<PlatformResource>("PATCH", resourcePath(types.platform, context.platformKey), {
      body: { spec },
      contentType: "application/merge-patch+json",
      query: { fieldManager, dryRun: "All" },
    }),
  );
  const version = platform.spec.version ?? "";
  const release = findRelease(version);
  if (!release) throw new UserError(`--version ${version} is not a known Slipway release`);
  // the operator renders with the cluster networks its installer gave it (the api-server's trusted proxies)
  const environment = await operatorEnvironment(context);
  const clusterNetworks = environment ? clusterNetworksFromEnvironment(environment) : [];
  const operator = new KubeClient(context.rest, context.types, { fieldManager: operatorFieldManager });
  const preview = await context.call(() =>
    previewUpdate(operator, platform, {
      spec: platform.spec,
      release,
      render: { clusterNetworks },
    }),
  );
  if (context.json) process.stdout.write(`${JSON.stringify(preview, null, 2)}\n`);
  else process.stdout.write(`${formatPreview(preview).join("\n")}\n`);
  return preview;
}
