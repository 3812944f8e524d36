import { lookup } from "node:dns";
import type { HostResolver } from "../../src/pipelines/outbound-policy.ts";

/**
 * A resolver that answers the given names with 127.0.0.1, as a DNS server that rebinds a name to the
 * operator's loopback would, and leaves every other name to the system: the outbound policy's
 * connect-time check is tested whatever this machine's /etc/hosts holds.
 */
export function loopbackResolver(...names: string[]): HostResolver {
  const loopback = new Set(names);
  return (host, options, callback) =>
    loopback.has(host)
      ? callback(null, [{ address: "127.0.0.1", family: 4 }])
      : lookup(host, options, callback);
}
