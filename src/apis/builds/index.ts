import { ImageBuildKind } from "./imagebuild.ts";

export { type ImageBuild, ImageBuildKind } from "./imagebuild.ts";

/** The kinds of builds.slipway.dev, for the registry in src/apis/index.ts. */
export const buildKinds = [ImageBuildKind];
