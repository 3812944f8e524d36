/** `slipway update --dry-run`: prints what the update would change per component, applying nothing. */
import { operatorClusterNetworks } from "../../bundle/operator-environment.ts";
import { previewPlatformChange } from "../../platform/update-dry-run.ts";
import { formatPreview, type UpdatePreview } from "../../platform/update-preview.ts";
import { fieldManager, type PlatformContext } from "./context.ts";

/** Previews the merge patch `spec` (the version and Ingress fields `update` would write) and prints it. */
export async function dryRunUpdate(
  context: PlatformContext,
  spec: Record<string, unknown>,
): Promise<UpdatePreview> {
  const preview = await context.call(async () => {
    const clusterNetworks = await operatorClusterNetworks(context.rest, context.namespace);
    return previewPlatformChange(context.rest, context.platformKey, spec, { fieldManager, clusterNetworks });
  });
  if (context.json) process.stdout.write(`${JSON.stringify(preview, null, 2)}\n`);
  else process.stdout.write(`${formatPreview(preview).join("\n")}\n`);
  return preview;
}
