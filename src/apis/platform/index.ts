import { Component } from "./component.ts";
import { Platform } from "./platform.ts";

export { Component, type ComponentResource } from "./component.ts";
export { Platform, type PlatformResource } from "./platform.ts";

/** The kinds of platform.slipway.dev, for the registry in src/apis/index.ts. */
export const platformKinds = [Platform, Component];
