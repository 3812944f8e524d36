/**
 * The proxies whose `X-Forwarded-For` the in-cluster api-server believes (pure): behind the Ingress
 * every browser's connection comes from the ingress controller, so without them every client shares
 * the controller's authentication-failure allowance (src/server/auth.ts).
 */
import type { Static } from "@sinclair/typebox";
import type { PlatformSpec } from "../apis/platform/platform.ts";

/**
 * RFC 1918 and RFC 4193 (IPv6 unique local): where pod networks are unless the installer says
 * otherwise. The api-server's NetworkPolicy admits its port only from the ingress controller's
 * namespace (and the platform's own pods), so where policies are enforced only they can reach it.
 */
export const privateNetworks: readonly string[] = [
  "10.0.0.0/8",
  "172.16.0.0/12",
  "192.168.0.0/16",
  "fc00::/7",
];

/**
 * `spec.ingress.trustedProxies` when given (`[]`: none); otherwise, when the platform has its Ingress,
 * the cluster's node and pod networks the installer gave the operator (`clusterNetworks`), else the
 * private ranges. Without an Ingress nothing is trusted unless named.
 */
export function trustedProxies(
  spec: Static<typeof PlatformSpec>,
  clusterNetworks: readonly string[] = [],
): readonly string[] {
  const given = spec.ingress?.trustedProxies;
  if (given) return given;
  if (spec.ingress?.enabled === false) return [];
  return clusterNetworks.length > 0 ? clusterNetworks : privateNetworks;
}
