/**
 * The operator's outbound-endpoint policy (pure): which addresses a tenant may make the operator
 * call — a kfp Provider's endpoint, a vertex Provider's apiEndpoint, a Provider's or Run's event
 * sinks. Set by the installer: `SLIPWAY_OUTBOUND_ALLOW` (hosts or CIDRs let through),
 * `SLIPWAY_OUTBOUND_DENY` (the cluster's node and pod networks, CIDRs, refused unless allowed) and
 * `SLIPWAY_AMBIENT_CREDENTIALS_NAMESPACES` (where a vertex Provider may use the operator's own cloud
 * credentials). Always refused unless allowed: loopback, link-local (cloud metadata), unspecified.
 * A host name is checked again once resolved (outbound-lookup.ts), so DNS cannot turn a public name
 * into the operator's loopback.
 */
import type { LookupAddress } from "node:dns";
import { STATUS_CODES } from "node:http";
import { BlockList, isIP } from "node:net";

export const outboundAllowVariable = "SLIPWAY_OUTBOUND_ALLOW";
export const outboundDenyVariable = "SLIPWAY_OUTBOUND_DENY";
export const ambientNamespacesVariable = "SLIPWAY_AMBIENT_CREDENTIALS_NAMESPACES";

export interface OutboundSettings {
  /** Hosts (`kfp.example.com`, `127.0.0.1`) or CIDRs (`10.0.0.0/8`) the operator may call. */
  allow?: readonly string[];
  /** CIDRs refused unless allowed: the cluster's node and pod networks. */
  deny?: readonly string[];
  /** Namespaces whose vertex Providers and builds overrides' stores may use the operator's ambient cloud credentials (`*`: all). */
  ambientCredentialsNamespaces?: readonly string[];
  /**
   * Who answers a host's addresses (default the system's resolver, `dns.lookup`). A test names its
   * own, to be the DNS server that answers a name with a loopback address whatever the machine's
   * /etc/hosts holds.
   */
  resolver?: HostResolver;
}

/** `dns.lookup(host, {all: true}, callback)`'s shape. */
export type HostResolver = (
  host: string,
  options: { all: true },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

export interface OutboundPolicy {
  readonly allowedHosts: ReadonlySet<string>;
  readonly allowedNetworks: BlockList;
  readonly deniedNetworks: BlockList;
  readonly ambientNamespaces: ReadonlySet<string>;
  readonly resolver?: HostResolver;
}

interface Cidr {
  address: string;
  prefix: number;
  family: "ipv4" | "ipv6";
}

/** Always refused unless allowed, with the word the refusal uses. */
const builtIn: (Cidr & { what: string })[] = [
  { address: "127.0.0.0", prefix: 8, family: "ipv4", what: "loopback" },
  { address: "::1", prefix: 128, family: "ipv6", what: "loopback" },
  { address: "169.254.0.0", prefix: 16, family: "ipv4", what: "link-local (cloud metadata)" },
  { address: "fe80::", prefix: 10, family: "ipv6", what: "link-local" },
  { address: "0.0.0.0", prefix: 8, family: "ipv4", what: "unspecified" },
  { address: "::", prefix: 128, family: "ipv6", what: "unspecified" },
];

const hostName = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function cidrOf(text: string): Cidr | undefined {
  const [address = "", prefixText, ...rest] = text.split("/");
  const version = isIP(address);
  if (rest.length > 0 || version === 0) return undefined;
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > max || (prefixText ?? "x") === "") return undefined;
  return { address, prefix, family: version === 4 ? "ipv4" : "ipv6" };
}

/** The comma-separated list of `variable`; `check` says what an entry must be (an error naming the entry). */
export function parseOutboundList(
  variable: string,
  text: string | undefined,
  kind: "allow" | "deny" | "namespaces",
): string[] {
  const entries = (text ?? "")
    .split(",")
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean);
  for (const entry of entries) {
    const ok =
      kind === "allow"
        ? cidrOf(entry) !== undefined || hostName.test(entry)
        : kind === "deny"
          ? cidrOf(entry) !== undefined
          : entry === "*" || /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(entry);
    if (!ok) {
      const rule = { allow: "a host or a CIDR", deny: "a CIDR", namespaces: "a namespace or *" }[kind];
      throw new Error(`${variable}: ${JSON.stringify(entry)} is not ${rule}`);
    }
  }
  return entries;
}

const blockList = (cidrs: Cidr[]) => {
  const list = new BlockList();
  for (const { address, prefix, family } of cidrs) list.addSubnet(address, prefix, family);
  return list;
};

export function outboundPolicy(settings: OutboundSettings = {}): OutboundPolicy {
  const allow = (settings.allow ?? []).map((entry) => entry.toLowerCase());
  const networks = allow.map(cidrOf).filter((cidr): cidr is Cidr => cidr !== undefined);
  return {
    allowedHosts: new Set(allow.filter((entry) => cidrOf(entry) === undefined || !entry.includes("/"))),
    allowedNetworks: blockList(networks),
    deniedNetworks: blockList((settings.deny ?? []).flatMap((entry) => cidrOf(entry) ?? [])),
    ambientNamespaces: new Set(settings.ambientCredentialsNamespaces ?? []),
    ...(settings.resolver ? { resolver: settings.resolver } : {}),
  };
}

/** The policy of the operator's environment (an error naming the variable and a bad entry). */
export function outboundPolicyFromEnvironment(env: NodeJS.ProcessEnv = process.env): OutboundPolicy {
  return outboundPolicy({
    allow: parseOutboundList(outboundAllowVariable, env[outboundAllowVariable], "allow"),
    deny: clusterNetworksFromEnvironment(env),
    ambientCredentialsNamespaces: parseOutboundList(
      ambientNamespacesVariable,
      env[ambientNamespacesVariable],
      "namespaces",
    ),
  });
}

/** The cluster's node and pod networks the installer named (SLIPWAY_OUTBOUND_DENY), as CIDRs. */
export function clusterNetworksFromEnvironment(env: NodeJS.ProcessEnv = process.env): string[] {
  return parseOutboundList(outboundDenyVariable, env[outboundDenyVariable], "deny");
}

/** `[::1]` → `::1`; lower case; no trailing dot. */
export const bareHost = (host: string) =>
  host
    .replace(/^\[(.*)\]$/, "$1")
    .toLowerCase()
    .replace(/\.$/, "");

const familyOf = (address: string) => (isIP(address) === 6 ? "ipv6" : "ipv4");

/** Why `address` (an IP) is refused, or undefined when the policy lets it through. */
export function refusedAddress(policy: OutboundPolicy, address: string): string | undefined {
  const family = familyOf(address);
  if (policy.allowedHosts.has(address) || policy.allowedNetworks.check(address, family)) return undefined;
  const hit = builtIn.find((cidr) => blockList([cidr]).check(address, family));
  if (hit) return hit.what;
  if (policy.deniedNetworks.check(address, family))
    return `in the cluster's networks (${outboundDenyVariable})`;
  return undefined;
}

/**
 * The check of a host before it is resolved: refused (why), `listed` (the installer named it: its
 * addresses are not checked), or `resolve` (each address it resolves to must pass refusedAddress).
 */
export type HostVerdict = { refused: string } | { listed: true } | { resolve: true };

export function hostVerdict(policy: OutboundPolicy, host: string): HostVerdict {
  const bare = bareHost(host);
  if (policy.allowedHosts.has(bare)) return { listed: true };
  if (isIP(bare)) {
    const refused = refusedAddress(policy, bare);
    return refused
      ? { refused }
      : policy.allowedNetworks.check(bare, familyOf(bare))
        ? { listed: true }
        : { resolve: true };
  }
  if (bare === "localhost" || bare.endsWith(".localhost")) return { refused: "loopback" };
  return { resolve: true };
}

/** The message of a refusal: the field, the host, why, and the setting that would allow it. */
export const refusal = (field: string, host: string, why: string) =>
  `${field}: ${bareHost(host)} is ${why}, not allowed by the operator's outbound policy (${outboundAllowVariable})`;

export class OutboundRefused extends Error {
  override name = "OutboundRefused";
}

/**
 * An http(s) URL a tenant named, checked: a URL, http or https, no userinfo, no fragment (the
 * operator appends its own paths), and a host the policy does not refuse outright. The URL, or an
 * OutboundRefused naming `field`.
 */
export function checkedUrl(policy: OutboundPolicy, field: string, text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new OutboundRefused(`${field}: not a URL (http://host:port or https://host:port)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new OutboundRefused(`${field}: the scheme must be http or https, not ${url.protocol}`);
  if (url.username || url.password)
    throw new OutboundRefused(`${field}: no credentials (userinfo) in the URL`);
  if (url.hash || text.includes("#")) throw new OutboundRefused(`${field}: no fragment (#) in the URL`);
  const verdict = hostVerdict(policy, url.hostname);
  if ("refused" in verdict) throw new OutboundRefused(refusal(field, url.hostname, verdict.refused));
  return url;
}

/** Whether `namespace` (a vertex Provider, a builds override's store) may use the operator's ambient cloud credentials. */
export const ambientAllowed = (policy: OutboundPolicy, namespace: string) =>
  policy.ambientNamespaces.has("*") || policy.ambientNamespaces.has(namespace);

/**
 * What a tenant learns of a backend's answer: the status and its standard reason phrase (ours, not
 * the server's), e.g. `503 Service Unavailable`.
 */
export const statusReason = (status: number) =>
  `${status}${STATUS_CODES[status] ? ` ${STATUS_CODES[status]}` : ""}`;

/**
 * What a tenant learns when a call it addressed got no HTTP answer: one fixed reason, whatever
 * happened (refused, reset, unresolvable, timed out), so the operator cannot be used to tell open,
 * closed and filtered ports apart.
 */
export const unreachable = "not reached (no HTTP answer)";
