/** The CLI's global options at their defaults, as the platform commands receive them. */
export const defaultGlobals = {
  namespace: "slipway",
  platform: "slipway",
  output: "text" as const,
  timeout: "15m",
  wait: true,
};
