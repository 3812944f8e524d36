/** Why a dev directory has no real node when its person asked for none. */
export const realNodeTurnedOff = "turned off (--no-real-node or SLIPWAY_REAL_NODE=0)";

/** Why a dev directory has no real node when another directory holds the machine's one. */
export const realNodeHeldBy = (holder: string) =>
  `the real node of ${holder} runs on this machine (one per machine)`;

/** Matches every `realNodeHeldBy` reason. */
export const realNodeHeldPattern = /^the real node of .+ runs on this machine \(one per machine\)$/;
