/** The registry of every Slipway kind: the CRDs, the bundle and the Helm chart are generated from it. */
import { buildKinds } from "./builds/index.ts";
import type { Kind } from "./kind.ts";
import { pipelineKinds } from "./pipelines/index.ts";
import { platformKinds } from "./platform/index.ts";

// Each group adds its kinds here (one import line per group).

export const allKinds: Kind[] = [...platformKinds, ...pipelineKinds, ...buildKinds];
