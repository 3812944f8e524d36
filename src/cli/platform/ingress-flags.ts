/** `--host`, `--tls-secret`, `--no-tls` of `slipway install` and `update`: the Platform's Ingress fields (pure). */
import { ingressHostProblem } from "../../apis/platform/schemas.ts";
import { UserError } from "../run.ts";

export interface IngressFlags {
  host?: string;
  tlsSecret?: string;
  /** false with --no-tls (commander's negation); true or undefined otherwise. */
  tls?: boolean;
}

const secretName = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * The spec fields the flags set, as a merge patch: `host`, `ingress.tls.secretName` (an issuer
 * already named is kept), or `ingress.tls: null` for --no-tls. The CRD refuses the same host and
 * Secret name; checked here first so an install fails before it applies anything.
 */
export function ingressSpecFromFlags(flags: IngressFlags): Record<string, unknown> {
  if (flags.host !== undefined) {
    const problem = ingressHostProblem("--host", flags.host);
    if (problem) throw new UserError(`${problem}, not ${JSON.stringify(flags.host)}`);
  }
  if (flags.tlsSecret !== undefined && (flags.tlsSecret.length > 253 || !secretName.test(flags.tlsSecret)))
    throw new UserError(
      `--tls-secret must be a Secret name (lowercase letters, digits, '-' and '.'), not ${JSON.stringify(flags.tlsSecret)}`,
    );
  if (flags.tlsSecret !== undefined && flags.tls === false)
    throw new UserError("--tls-secret and --no-tls: give one of them");
  const tls =
    flags.tlsSecret !== undefined
      ? { ingress: { tls: { secretName: flags.tlsSecret } } }
      : flags.tls === false
        ? { ingress: { tls: null } }
        : {};
  return { ...(flags.host !== undefined ? { host: flags.host } : {}), ...tls };
}
