/**
 * A build Job's own registry credential (`registry.scopedCredentials`, pure): what it grants — push
 * and pull on the build's repository, pull on its base image's when that is in the same registry —
 * until the build's timeout and a margin, and the dockerconfigjson Secret next to the Job that carries
 * it (owned by the Job once it has a uid, so it goes with it). The operator mints it
 * (backends.ts); the registry's token issuer checks it (src/builds/registry/build-credentials.ts).
 */
import type { V1Job, V1Secret } from "@kubernetes/client-node";
import { ownerReference } from "../kube/owners.ts";
import { type BuildJobInput, timeoutSeconds } from "./build-job.ts";
import { registryCredentialsSecretName } from "./build-namespace.ts";
import { parseImageReference } from "./naming.ts";
import type { BuildGrant } from "./registry/build-credentials.ts";
import { type BasicCredentials, dockerConfigFor } from "./registry/credentials.ts";

/**
 * Beyond the build's timeout (the Job's activeDeadlineSeconds, counted from the Job's start, which
 * follows the mint by the Job's creation): the push that ends a build just in time still gets a token.
 */
export const credentialMarginSeconds = 300;

/** The repository of `image` (tag, digest or neither) when it is in `registry`; undefined otherwise or unparsable. */
export function repositoryIn(image: string, registry: string): string | undefined {
  const withoutDigest = image.split("@")[0] ?? "";
  const lastSlash = withoutDigest.lastIndexOf("/");
  const tagged = withoutDigest.lastIndexOf(":") > lastSlash ? withoutDigest : `${withoutDigest}:latest`;
  try {
    const reference = parseImageReference(tagged);
    return reference.registry === registry ? reference.repository : undefined;
  } catch {
    return undefined;
  }
}

export function buildCredentialGrant(input: BuildJobInput, nowSeconds: number): BuildGrant {
  const { build, image } = input;
  const base = build.spec.baseImage ? repositoryIn(build.spec.baseImage, image.registry) : undefined;
  return {
    repository: image.repository,
    pull: base && base !== image.repository ? [base] : [],
    expiresAt: nowSeconds + timeoutSeconds(build, input.config) + credentialMarginSeconds,
  };
}

/** The per-build credential's Secret: a dockerconfigjson for the build's registry, labelled like its Job. */
export function buildCredentialSecret(
  job: V1Job,
  registry: string,
  credentials: BasicCredentials,
  jobUid?: string,
): V1Secret {
  const jobName = job.metadata?.name ?? "";
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: registryCredentialsSecretName(jobName),
      namespace: job.metadata?.namespace ?? "",
      labels: job.metadata?.labels ?? {},
      ...(jobUid
        ? {
            ownerReferences: [
              ownerReference(
                { apiVersion: "batch/v1", kind: "Job", metadata: { name: jobName, uid: jobUid } },
                { controller: true },
              ),
            ],
          }
        : {}),
    },
    type: "kubernetes.io/dockerconfigjson",
    data: { ".dockerconfigjson": Buffer.from(dockerConfigFor(registry, credentials)).toString("base64") },
  };
}
