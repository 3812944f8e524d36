/**
 * The rule of the ImageBuild admission webhook: a build argument may take a Secret
 * (`valueFrom.secretKeyRef`) only if the user who creates or changes the build may `get` that Secret
 * itself. Pure: which Secrets a build names, and the refusal for those the user may not read.
 */
import type { ImageBuild } from "../../apis/builds/imagebuild.ts";

export interface SecretReference {
  /** Its index in spec.buildArgs. */
  index: number;
  argument: string;
  secret: string;
}

/** Every build argument that takes a Secret, in spec order. */
export function secretReferences(build: Pick<ImageBuild, "spec">): SecretReference[] {
  return (build.spec?.buildArgs ?? []).flatMap((arg, index) =>
    arg.valueFrom ? [{ index, argument: arg.name, secret: arg.valueFrom.secretKeyRef.name }] : [],
  );
}

/** The Secrets to ask about, each once. */
export function secretsToReview(references: SecretReference[]): string[] {
  return [...new Set(references.map((reference) => reference.secret))];
}

/**
 * The refusal naming the first build argument whose Secret `user` may not get (`readable`: the
 * Secrets it may), or undefined when it may read them all.
 */
export function secretRefusal(
  references: SecretReference[],
  readable: ReadonlySet<string>,
  user: string,
  namespace: string,
): string | undefined {
  const refused = references.find((reference) => !readable.has(reference.secret));
  if (!refused) return undefined;
  return `spec.buildArgs[${refused.index}] (${refused.argument}): user ${user} may not get Secret ${refused.secret} in namespace ${namespace}; a build argument may take a Secret only if whoever creates or changes the ImageBuild may read it`;
}
