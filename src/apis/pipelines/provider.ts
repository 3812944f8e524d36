import { Type } from "@sinclair/typebox";
import { Conditions } from "../condition.ts";
import { defineKind, type Resource } from "../kind.ts";
import { preserveUnknownFields, validations } from "../schema.ts";
import { CachePolicy } from "./caching.ts";
import { dnsLabelPattern, group, NamedValues, StringEnum, version } from "./common.ts";
import { EventSinks } from "./events.ts";

export const providerTypes = ["argo", "kfp", "vertex"] as const;

export const ProviderKind = defineKind({
  group,
  version,
  kind: "Provider",
  plural: "providers",
  singular: "provider",
  shortNames: ["pvd"],
  scope: "Namespaced",
  description:
    "A pipeline backend and its configuration; every pipeline resource names the Provider it uses.",
  spec: Type.Object(
    {
      type: StringEnum(providerTypes, { description: "The built-in backend: argo, kfp or vertex." }),
      image: Type.Optional(
        Type.String({ minLength: 1, description: "Image of the provider's helper steps." }),
      ),
      serviceAccount: Type.Optional(
        Type.String({ pattern: dnsLabelPattern, description: "Service account the workflows run as." }),
      ),
      executionMode: Type.Optional(StringEnum(["v1", "v2"] as const)),
      pipelineRootStorage: Type.Optional(Type.String({ description: "Where pipeline outputs are stored." })),
      defaultBeamArgs: Type.Optional(
        NamedValues("Beam arguments every pipeline gets unless it sets its own."),
      ),
      parameters: Type.Optional(
        preserveUnknownFields(
          "Backend-specific settings (kfp: apiUrl, namespace; vertex: project, location, ...).",
        ),
      ),
      allowedNamespaces: Type.Optional(
        Type.Array(Type.String({ pattern: "^([a-z0-9]([-a-z0-9]*[a-z0-9])?|\\*)$" }), {
          maxItems: 256,
          "x-kubernetes-list-type": "set",
          description: "Namespaces whose resources may use this Provider (`*`: all); empty: only its own.",
        }),
      ),
      eventSinks: Type.Optional(EventSinks),
      defaultCaching: Type.Optional(
        CachePolicy(
          "Caching of its pipelines' steps where neither the Run, the step nor the Pipeline says (default: off).",
        ),
      ),
    },
    {
      additionalProperties: false,
      ...validations({
        rule: "!has(self.defaultCaching) || !has(self.defaultCaching.maxAge) || self.type == 'argo'",
        message:
          "kfp and vertex have no maximum age of a cached execution (KFP's CachingOptions has enable_cache and cache_key only): leave maxAge unset",
        fieldPath: ".defaultCaching.maxAge",
      }),
    },
  ),
  status: Type.Object({
    observedGeneration: Type.Optional(Type.Integer()),
    conditions: Type.Optional(Conditions),
  }),
  printerColumns: [
    { name: "Type", type: "string", jsonPath: ".spec.type" },
    { name: "Ready", type: "string", jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
  ],
});

export type Provider = Resource<typeof ProviderKind>;
