import packageJson from "../../package.json" with { type: "json" };

/** The release this build of Slipway is (the operator's own version, the default for a new Platform). */
export const ownVersion: string = packageJson.version;
