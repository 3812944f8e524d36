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

/** The refusal naming the build argument whose Secret `user` may not get. */
export function secretRefusal(refused: SecretReference, user: string, namespace: string): string {
  return `spec.buildArgs[${refused.index}] (${refused.argument}): user ${user} may not get Secret ${refused.secret} in namespace ${namespace}; a build argument may take a Secret only if whoever creates or changes the ImageBuild may read it`;
}
