/**
 * The outbound policy at connect time (I/O): a host is resolved, every address it resolves to is
 * checked (outbound-policy.ts), and the connection goes to a checked address — the lookup hook of
 * the HTTP agent, so a second resolution (DNS rebinding) cannot slip in another address.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { isIP } from "node:net";
import { Agent } from "undici";
import {
  bareHost,
  hostVerdict,
  type OutboundPolicy,
  OutboundRefused,
  refusal,
  refusedAddress,
} from "./outbound-policy.ts";

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** A `net.connect` lookup: resolves `host`, refuses it (OutboundRefused naming `field`) when an address is refused. */
export function checkedLookup(policy: OutboundPolicy, field: string) {
  return (host: string, options: { all?: boolean }, callback: LookupCallback) => {
    const verdict = hostVerdict(policy, host);
    if ("refused" in verdict) return callback(new OutboundRefused(refusal(field, host, verdict.refused)), []);
    (policy.resolver ?? dnsLookup)(host, { all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const refused =
        "listed" in verdict
          ? undefined
          : addresses.map((a) => ({ a, why: refusedAddress(policy, a.address) })).find(({ why }) => why);
      if (refused?.why)
        return callback(
          new OutboundRefused(refusal(field, host, `${refused.a.address}, ${refused.why}`)),
          [],
        );
      if (options.all) return callback(null, addresses);
      const [first] = addresses;
      if (!first) return callback(Object.assign(new Error(`${host}: no address`), { code: "ENOTFOUND" }), []);
      callback(null, first.address, first.family);
    });
  };
}

/** One address of `host` the policy lets through (an IP is checked as it is). */
export async function checkedAddress(policy: OutboundPolicy, field: string, host: string): Promise<string> {
  const bare = bareHost(host);
  if (isIP(bare)) {
    const verdict = hostVerdict(policy, bare);
    if ("refused" in verdict) throw new OutboundRefused(refusal(field, bare, verdict.refused));
    return bare;
  }
  return new Promise((resolve, reject) =>
    checkedLookup(policy, field)(bare, {}, (error, address) =>
      error ? reject(error) : resolve(address as string),
    ),
  );
}

/** An undici Agent whose connections go only to addresses the policy lets through. */
export function checkedAgent(policy: OutboundPolicy, field: string): Agent {
  return new Agent({ connect: { lookup: checkedLookup(policy, field) } });
}
