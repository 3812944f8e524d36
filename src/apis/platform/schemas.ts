import { type TString, Type } from "@sinclair/typebox";
import type { PrinterColumn } from "../kind.ts";
import { validations } from "../schema.ts";

export const group = "platform.slipway.dev";
export const version = "v1beta1";

/** Names of the platform's services, in the order the catalog lists them. */
export const componentNames = [
  "postgres",
  "object-store",
  "registry",
  "mlflow",
  "workflow-engine",
  "api-server",
  "web",
] as const;
export type ComponentName = (typeof componentNames)[number];

/** Default volume sizes (also applied by the controller, so an object stored without CRD defaults means the same). */
export const defaultSizes = {
  artifactsSize: "50Gi",
  registrySize: "25Gi",
  builderCacheSize: "25Gi",
  databaseSize: "10Gi",
} as const;

/** What kubectl shows of a Platform and a Component: both report a version, a phase and `ready` (n/m). */
export const phasedColumns: PrinterColumn[] = [
  { name: "Version", type: "string", jsonPath: ".status.version" },
  { name: "Phase", type: "string", jsonPath: ".status.phase" },
  { name: "Ready", type: "string", jsonPath: ".status.ready" },
];

export const logLevels = ["DEBUG", "INFO", "WARNING", "ERROR"] as const;

export const EnvVar = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 256 }),
  value: Type.String({ maxLength: 4096 }),
});

const StringMap = (description: string) =>
  Type.Record(Type.String(), Type.String({ maxLength: 4096 }), { description, maxProperties: 64 });

export const Resources = Type.Object(
  {
    requests: Type.Optional(StringMap("e.g. {cpu: 500m, memory: 1Gi}")),
    limits: Type.Optional(StringMap("e.g. {cpu: 2, memory: 4Gi}")),
  },
  { description: "Container resources, as in a Pod spec" },
);

export const Toleration = Type.Object(
  {
    key: Type.Optional(Type.String({ maxLength: 316 })),
    operator: Type.Optional(Type.Union([Type.Literal("Exists"), Type.Literal("Equal")])),
    value: Type.Optional(Type.String({ maxLength: 256 })),
    effect: Type.Optional(
      Type.Union([Type.Literal("NoSchedule"), Type.Literal("PreferNoSchedule"), Type.Literal("NoExecute")]),
    ),
    // a year at most: the CRDs bound every duration
    tolerationSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 31_536_000 })),
  },
  { description: "A Pod toleration" },
);

/** Scheduling and pod settings shared by a Platform's component overrides and a rendered Component. */
export const podSettings = {
  resources: Type.Optional(Resources),
  nodeSelector: Type.Optional(StringMap("Node labels the component's pods must match")),
  tolerations: Type.Optional(Type.Array(Toleration, { maxItems: 32 })),
  podAnnotations: Type.Optional(StringMap("Annotations added to the component's pods")),
};

/**
 * A quantity (e.g. 50Gi) that can only grow: the API server refuses a smaller value on update with a
 * message naming `field`.
 */
export function growOnlyQuantity(field: string, defaultValue: string): TString {
  return Type.String({
    default: defaultValue,
    maxLength: 64,
    description: `${field}: a storage quantity (e.g. ${defaultValue}); it can grow but never shrink`,
    ...validations(
      { rule: "isQuantity(self)", message: `${field} must be a quantity such as ${defaultValue}` },
      {
        rule: "!isQuantity(self) || !isQuantity(oldSelf) || quantity(self).compareTo(quantity(oldSelf)) >= 0",
        message: `${field} can only grow: a smaller value than the current one is refused`,
      },
    ),
  });
}

const dnsSubdomain = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";

/** A DNS-1123 subdomain whose labels are at most 63 characters: what an Ingress rule's host is ([.]: no escape in CEL's quotes). */
const dnsHost = "^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?([.][a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*$";
/** The Ingress API refuses an IP address as a host (networking.k8s.io/v1 IngressRule.host). */
const dottedNumbers = "^[0-9.]+$";

/** Why `host` cannot be the Ingress's host (the rule `field`'s CEL rule states), or undefined. */
export function ingressHostProblem(field: string, host: string): string | undefined {
  if (host.length <= 253 && new RegExp(dnsHost).test(host) && !new RegExp(dottedNumbers).test(host))
    return undefined;
  return hostRuleMessage(field);
}

const hostRuleMessage = (field: string) =>
  `${field} must be a DNS-1123 host name: lowercase letters, digits, '-' and '.', labels of at most 63 characters, not an IP address (e.g. ml.example.com)`;

/** The Ingress's host (spec.rules[].host and the TLS certificate's name), refused by the API server unless a DNS name. */
export const ingressHost = (field: string, description: string) =>
  Type.String({
    maxLength: 253,
    description,
    ...validations({
      rule: `self.matches('${dnsHost}') && !self.matches('${dottedNumbers}')`,
      message: hostRuleMessage(field),
    }),
  });
const resourceName = (description: string) =>
  Type.String({ minLength: 1, maxLength: 253, pattern: dnsSubdomain, description });

/**
 * TLS of the platform's Ingress: the Secret holding the certificate for spec.host and, when
 * cert-manager issues it, the issuer its ingress-shim reads from the Ingress's annotation.
 */
export const IngressTls = Type.Object(
  {
    secretName: resourceName(
      "The kubernetes.io/tls Secret of spec.host's certificate (cert-manager writes it when an issuer is named)",
    ),
    issuer: Type.Optional(
      resourceName("A cert-manager Issuer of the namespace (annotation cert-manager.io/issuer)"),
    ),
    clusterIssuer: Type.Optional(
      resourceName("A cert-manager ClusterIssuer (annotation cert-manager.io/cluster-issuer)"),
    ),
  },
  {
    description: "Serve the Ingress over HTTPS; the UI and API then send Strict-Transport-Security",
    ...validations({
      rule: "!(has(self.issuer) && has(self.clusterIssuer))",
      message: "issuer and clusterIssuer: name at most one of them",
    }),
  },
);

/**
 * Addresses or CIDRs of the proxies in front of the api-server (`slipway server --trust-proxy`): only
 * their `X-Forwarded-For` names the client its authentication-failure allowance is kept for.
 */
export const TrustedProxies = Type.Array(
  Type.String({
    // the longest spelling of an address with its prefix (`ffff:…:255.255.255.255/128`) is 49
    maxLength: 50,
    ...validations({
      rule: "isIP(self) || isCIDR(self)",
      message: "spec.ingress.trustedProxies: each entry must be an IP address or a CIDR, e.g. 10.244.0.0/16",
    }),
  }),
  {
    // joined into one argument of the api-server, which the Component CRD bounds at 1024 characters
    maxItems: 16,
    description:
      "Proxies (IPs or CIDRs) whose X-Forwarded-For the api-server believes; unset: the cluster's networks the installer gave the operator, else the private ranges; [] believes none",
  },
);

export const Version = Type.String({
  pattern: "^v?[0-9]+\\.[0-9]+\\.[0-9]+(-[0-9A-Za-z.-]+)?$",
  maxLength: 64,
  description: "A Slipway release, e.g. 0.2.0",
});

/** A release gate's name (a DNS-1123 label): what `spec.acknowledgedGates` lists and `--acknowledge` names. */
const gateLabel = "^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$";

const gateRuleMessage = (field: string) =>
  `${field} must be a gate name: lowercase letters, digits and '-', at most 63 characters (e.g. db-migration)`;

/** Why `name` cannot be a gate's name (the rule the CRD states for `field`), or undefined. */
export function gateNameProblem(field: string, name: string): string | undefined {
  return new RegExp(gateLabel).test(name) ? undefined : gateRuleMessage(field);
}

/** The gates of releases a Platform's owner has acknowledged (spec.acknowledgedGates). */
export const AcknowledgedGates = Type.Array(
  Type.String({
    maxLength: 63,
    ...validations({
      rule: `self.matches('${gateLabel}')`,
      message: gateRuleMessage("spec.acknowledgedGates"),
    }),
  }),
  {
    maxItems: 32,
    description:
      "Release gates (a data migration, a breaking change) acknowledged: an update to a release that declares a gate waits until it is listed here",
  },
);
