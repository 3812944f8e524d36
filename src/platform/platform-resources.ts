/**
 * What a Platform owns besides its Components (I/O): its credential Secrets, generated once (a live
 * read tells whether one exists: a lagging cache must never make a second, different password), and
 * the pipelines Provider of its workflow engine, and the builds override of its namespace (ImageBuilds
 * there push to its registry: builds-wiring.ts). Each is sent once per Platform per operator run.
 */
import { randomBytes } from "node:crypto";
import bcrypt from "bcryptjs";
import { resourceTypeOf } from "../apis/kind.ts";
import { ProviderKind } from "../apis/pipelines/provider.ts";
import type { PlatformResource } from "../apis/platform/platform.ts";
import { ownerReference } from "../kube/owners.ts";
import type { Client, KubeObject } from "../kube/types.ts";
import { platformBuildsOverride } from "./builds-wiring.ts";
import { labels } from "./component-objects.ts";
import { platformBucket } from "./contracts.ts";
import {
  type CredentialName,
  type CredentialTools,
  credentialSecret,
  credentialSecrets,
  generateCredential,
  keptCredentialSecret,
} from "./credentials.ts";
import { keptFor } from "./kept-data.ts";
import { types } from "./resource-types.ts";
import { pipelinesServiceAccount } from "./workflow-engine.ts";

export const providerType = resourceTypeOf(ProviderKind);

/** 128 random bits, hex (safe unescaped in a connection URI); bcrypt at cost 10, what htpasswd -B uses. */
export const defaultCredentialTools: CredentialTools = {
  password: () => randomBytes(16).toString("hex"),
  bcrypt: (password) => bcrypt.hashSync(password, 10),
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
   * Creates the credential Secrets that do not exist and the Provider; never changes an existing
   * Secret's data (one `uninstall --keep-data` kept for this Platform is owned by it again).
   */
  async ensure(client: Client, platform: PlatformResource): Promise<void> {
    const name = platform.metadata.name ?? "";
    const namespace = platform.metadata.namespace ?? "";
    const secrets = credentialSecrets(name);
    await Promise.all(
      (Object.keys(secrets) as CredentialName[]).map((credential) =>
        this.#once(platform, secrets[credential], async () => {
          const live = await client.get(types.secret, { namespace, name: secrets[credential] });
          if (live && keptFor(live, name))
            await client.apply(keptCredentialSecret(platform, credential, live));
          if (live) return;
          const data = generateCredential(credential, name, namespace, this.#tools);
          await client.apply(credentialSecret(platform, credential, data));
        }),
      ),
    );
    await this.#once(platform, `provider/${name}`, () => client.apply(platformProvider(platform)));
    // a namespace's own builds override is left as it is
    const override = platformBuildsOverride(platform);
    await this.#once(platform, `configmap/${override.metadata?.name}`, async () => {
      if (await client.get(types.configMap, { namespace, name: override.metadata?.name ?? "" })) return;
      await client.apply(override);
    });
  }

  async #once(platform: PlatformResource, what: string, action: () => Promise<unknown>): Promise<void> {
    const key = `${platform.metadata.uid}/${what}`;
    if (this.#done.has(key)) return;
    await action();
    this.#done.add(key);
  }
}
