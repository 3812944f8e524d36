/**
 * What a Platform owns besides its Components (I/O): its credential Secrets, generated once (a live
 * read tells whether one exists: a lagging cache must never make a second, different password), and
 * the pipelines Provider of its workflow engine, and the builds override of its namespace (ImageBuilds
 * there push to its registry: builds-wiring.ts). Each is sent once per Platform per operator run.
 */
import { randomBytes } from "node:crypto";
import type { V1ConfigMap, V1Secret } from "@kubernetes/client-node";
import { resourceTypeOf } from "../apis/kind.ts";
import { ProviderKind } from "../apis/pipelines/provider.ts";
import type { PlatformResource } from "../apis/platform/platform.ts";
import { ownerReference } from "../kube/owners.ts";
import type { Client, KubeObject } from "../kube/types.ts";
import { issueSelfSignedCertificate } from "../webhook/certificates.ts";
import { platformBuildsOverride } from "./builds-wiring.ts";
import { labels } from "./component-objects.ts";
import { platformBucket } from "./contracts.ts";
import {
  adoptedCredentialSecret,
  type CredentialName,
  type CredentialTools,
  credentialAdoption,
  credentialSecret,
  credentialSecrets,
  generateCredential,
  missingCredentialData,
} from "./credentials.ts";
import { controlledBy } from "./platform-owner.ts";
import { types } from "./resource-types.ts";
import { pipelinesServiceAccount } from "./workflow-engine.ts";

export const providerType = resourceTypeOf(ProviderKind);

/** A token signer's certificate outlives any platform: the registry refuses tokens once it expires. */
const tokenCertificateDays = 3650;

/** 128 random bits, hex (safe unescaped in a connection URI); a P-256 key with a self-signed certificate. */
export const defaultCredentialTools: CredentialTools = {
  password: () => randomBytes(16).toString("hex"),
  tokenSigner: () => issueSelfSignedCertificate("slipway-registry-token", new Date(), tokenCertificateDays),
};

/**
 * The pipelines Provider of `platform`'s workflow engine: the platform's name, in its namespace. Its
 * pipelineRootStorage is the platform's bucket: Argo's default artifact repository records an
 * output's key alone (the bucket is the repository's), so a Run's artifact location is that bucket + key.
 */
export function platformProvider(platform: PlatformResource): KubeObject & { spec: Record<string, unknown> } {
  const name = platform.metadata.name ?? "";
  return {
    apiVersion: ProviderKind.apiVersion,
    kind: ProviderKind.kind,
    metadata: {
      name,
      namespace: platform.metadata.namespace,
      labels: { "app.kubernetes.io/part-of": "slipway", [labels.platform]: name },
      ownerReferences: [ownerReference(platform)],
    },
    spec: {
      type: "argo",
      serviceAccount: pipelinesServiceAccount(name),
      pipelineRootStorage: `s3://${platformBucket}`,
    },
  };
}

export class PlatformResources {
  readonly #tools: CredentialTools;
  /** `<platform uid>/<object name>` of what is known to exist. */
  readonly #done = new Set<string>();

  constructor(tools: CredentialTools = defaultCredentialTools) {
    this.#tools = tools;
  }

  /**
   * Creates the credential Secrets that do not exist, adds to the Platform's own (or one
   * `uninstall --keep-data` kept for it) what it lacks without changing what it has, and the Provider
   * and the builds override. A Secret of a credential's name that is neither is not used: the answer
   * is why (the Platform fails with it), and nothing else is made.
   */
  async ensure(client: Client, platform: PlatformResource): Promise<{ refused: string } | undefined> {
    const name = platform.metadata.name ?? "";
    const namespace = platform.metadata.namespace ?? "";
    const secrets = credentialSecrets(name);
    const refusals: string[] = [];
    await Promise.all(
      (Object.keys(secrets) as CredentialName[]).map((credential) =>
        this.#once(platform, secrets[credential], async () => {
          const live = await client.get<V1Secret>(types.secret, { namespace, name: secrets[credential] });
          if (!live) {
            const data = await generateCredential(credential, name, namespace, this.#tools);
            await client.apply(credentialSecret(platform, credential, data));
            return true;
          }
          const adoption = credentialAdoption(live, platform);
          if (typeof adoption === "object") {
            refusals.push(adoption.refused);
            return false;
          }
          const added = await missingCredentialData(credential, live.data, this.#tools);
          if (adoption === "kept" || Object.keys(added).length > 0)
            await client.apply(adoptedCredentialSecret(platform, credential, live, added));
          return true;
        }),
      ),
    );
    if (refusals.length) return { refused: refusals.sort().join("; ") };
    await this.#once(platform, `provider/${name}`, () => client.apply(platformProvider(platform)));
    // a namespace's own builds override (one the Platform does not control) is left as it is; the
    // Platform's own is kept as this release renders it (an older one lacks scopedCredentials), a hand
    // edit of its data undone as the component controller undoes those of its children
    const override = platformBuildsOverride(platform);
    await this.#once(platform, `configmap/${override.metadata?.name}`, async () => {
      const live = await client.get<V1ConfigMap>(types.configMap, {
        namespace,
        name: override.metadata?.name ?? "",
      });
      if (!live) await client.apply(override);
      else if (controlledBy(live, platform)) await client.apply(override, { force: true });
    });
    return undefined;
  }

  /** Runs `action` unless it was done for this Platform; it is done unless it answers false. */
  async #once(platform: PlatformResource, what: string, action: () => Promise<unknown>): Promise<void> {
    const key = `${platform.metadata.uid}/${what}`;
    if (this.#done.has(key)) return;
    if ((await action()) !== false) this.#done.add(key);
  }
}
