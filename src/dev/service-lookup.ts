/**
 * Service names for a process on the host (slipway dev only). The dev operator runs outside the
 * cluster, so `<service>.<namespace>.svc` — the platform's registry and object store in its builds
 * override — would not resolve there, while an operator in a pod resolves it through its resolv.conf.
 * This gives the process the same names, answered from the API server: the ready addresses of the
 * Service's EndpointSlices, kept only inside the real node's pod network (the bridge on this
 * machine). Not the cluster's DNS Service: host-to-ClusterIP needs kube-proxy's OUTPUT rules, and
 * without them a query to 10.96.0.10 follows the default route off the machine (seen: the machine's
 * network answered NXDOMAIN). A client then connects to the pod on the Service's port, which is the
 * container's for every platform component. It replaces `dns.lookup`, which every client of the
 * process connects through (global fetch for registries, the AWS SDK's handler for S3), rather than
 * one client's agent. Answers are kept for a short while (serviceLookupTtlMs): a build resolves the
 * same names for each of its requests. It reads with Slipway's own REST client and kubeconfig loader
 * (src/kube/), not client-node's, which the dev operator would otherwise load for this alone.
 */
import dns, { type LookupAddress, type LookupOptions } from "node:dns";
import type { V1EndpointSlice } from "@kubernetes/client-node";
import { resourcePath } from "../kube/keys.ts";
import { loadClusterAccess } from "../kube/kubeconfig.ts";
import { RestClient } from "../kube/rest.ts";
import { types } from "../platform/resource-types.ts";
import { podCidr } from "./real-node/network.ts";

/** Set to a kubeconfig path, a process started with service-lookup-preload.ts resolves Service names through it. */
export const serviceLookupEnvironmentVariable = "SLIPWAY_DEV_SERVICE_LOOKUP";

/** The Service a host name names as a pod's search list would find it (`a.ns.svc`, `a.ns.svc.cluster.local`); else undefined. */
export function serviceOf(host: string): { name: string; namespace: string } | undefined {
  const match = /^([a-z0-9-]+)\.([a-z0-9-]+)\.svc(\.cluster\.local)?\.?$/.exec(host.toLowerCase());
  return match?.[1] && match[2] ? { name: match[1], namespace: match[2] } : undefined;
}

const ipv4 = (address: string) => address.split(".").reduce((n, octet) => n * 256 + Number(octet), 0);

/** True when the IPv4 `address` is inside `cidr` (`10.233.0.0/24`). */
export function inCidr(address: string, cidr: string): boolean {
  const [base = "", bits = "32"] = cidr.split("/");
  const size = 2 ** (32 - Number(bits));
  return (
    /^\d+\.\d+\.\d+\.\d+$/.test(address) && Math.floor(ipv4(address) / size) === Math.floor(ipv4(base) / size)
  );
}

/** The ready IPv4 addresses of a Service's EndpointSlices that are inside `cidr`. */
export function readyAddresses(slices: V1EndpointSlice[], cidr: string): string[] {
  return slices
    .filter((slice) => slice.addressType === "IPv4")
    .flatMap((slice) => (slice.endpoints ?? []).filter((e) => e.conditions?.ready !== false))
    .flatMap((endpoint) => endpoint.addresses)
    .filter((address) => inCidr(address, cidr));
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;
type Lookup = (
  hostname: string,
  options: LookupOptions | number | LookupCallback,
  callback?: LookupCallback,
) => void;
export type Addresses = (service: { name: string; namespace: string }) => Promise<string[]>;

/** A `dns.lookup` that answers Service names with `addresses` and passes every other name to `fallback`. */
export function serviceLookup(addresses: Addresses, fallback: Lookup): Lookup {
  return (hostname, options, callback) => {
    const done = (typeof options === "function" ? options : callback) as LookupCallback;
    const service = serviceOf(hostname);
    if (!service) {
      fallback(hostname, options, callback);
      return;
    }
    const all = typeof options === "object" && options.all === true;
    const notFound = (why: string) =>
      done(Object.assign(new Error(`service lookup: ${hostname}: ${why}`), { code: "ENOTFOUND" }), "");
    addresses(service).then(
      (found) => {
        if (!found[0]) notFound("no ready endpoint on the real node");
        else if (all)
          done(
            null,
            found.map((address) => ({ address, family: 4 })),
          );
        else done(null, found[0], 4);
      },
      (error: Error) => notFound(error.message),
    );
  };
}

/** How long a Service's addresses are reused: endpoints change rarely, and a pod turning ready waits at most this. */
export const serviceLookupTtlMs = 2_000;

/**
 * `addresses` with each Service's answer (an in-flight one too) reused for `ttlMs` after it was asked;
 * a failed answer is not kept.
 */
export function cachedAddresses(
  addresses: Addresses,
  ttlMs: number,
  now: () => number = Date.now,
): Addresses {
  const answers = new Map<string, { at: number; found: Promise<string[]> }>();
  return (service) => {
    const key = `${service.namespace}/${service.name}`;
    const known = answers.get(key);
    if (known && now() - known.at < ttlMs) return known.found;
    for (const [other, answer] of answers) if (now() - answer.at >= ttlMs) answers.delete(other);
    const found = addresses(service);
    answers.set(key, { at: now(), found });
    found.catch(() => answers.delete(key));
    return found;
  };
}

/** The ready pod-network addresses of a Service, read from the API server of `kubeconfig`. */
function endpointAddresses(kubeconfig: string): Addresses {
  let rest: Promise<RestClient> | undefined;
  return async ({ name, namespace }) => {
    rest ??= loadClusterAccess({ kubeconfig }).then(
      (access) => new RestClient(access, { userAgent: "slipway-dev" }),
    );
    const slices = await (await rest).request<{ items: V1EndpointSlice[] }>(
      "GET",
      resourcePath(types.endpointSlice, { namespace }),
      { query: { labelSelector: `kubernetes.io/service-name=${name}` } },
    );
    return readyAddresses(slices.items, podCidr);
  };
}

/** Makes this process resolve Service names through the API server of `kubeconfig`; returns what undoes it. */
export function installServiceLookup(kubeconfig: string): () => void {
  const addresses = cachedAddresses(endpointAddresses(kubeconfig), serviceLookupTtlMs);
  const module = dns as unknown as { lookup: Lookup };
  const original = module.lookup;
  module.lookup = serviceLookup(addresses, original);
  return () => {
    module.lookup = original;
  };
}
