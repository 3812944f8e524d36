import { Type } from "@sinclair/typebox";
import { defineKind, type Resource } from "../kind.ts";
import { group, ProviderReference, providerColumns, synchronizedStatus, version } from "./common.ts";

export const ExperimentKind = defineKind({
  group,
  version,
  kind: "Experiment",
  plural: "experiments",
  singular: "experiment",
  shortNames: ["exp"],
  scope: "Namespaced",
  description: "A group of runs, created in the Provider's backend.",
  spec: Type.Object(
    { provider: ProviderReference, description: Type.Optional(Type.String({ maxLength: 4096 })) },
    { additionalProperties: false },
  ),
  status: Type.Object(synchronizedStatus),
  printerColumns: providerColumns,
});

export type Experiment = Resource<typeof ExperimentKind>;
