import { ComponentKind } from "./component.ts";
import { PlatformKind } from "./platform.ts";

export { ComponentKind, type ComponentResource } from "./component.ts";
export { PlatformKind, type PlatformResource } from "./platform.ts";

/** The kinds of platform.slipway.dev, for the registry in src/apis/index.ts. */
export const platformKinds = [PlatformKind, ComponentKind];
