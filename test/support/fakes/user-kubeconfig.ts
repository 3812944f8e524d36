/**
 * A Kubernetes library client configuration acting as a user of a token, for tests and the server
 * bench's floor (the plain reads `slipway server` is measured against), whose requests share one
 * connection pool as the server's caller client's do: the library gives every request a new undici
 * Agent otherwise, a TLS connection per call, which would make the floor dearer than it is.
 */
import { KubeConfig, type RequestContext } from "@kubernetes/client-node";
import { callerAccess } from "../../../src/server/auth.ts";

class PooledKubeConfig extends KubeConfig {
  #dispatcher: ReturnType<RequestContext["getDispatcher"]>;

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await super.applySecurityAuthentication(context);
    this.#dispatcher ??= context.getDispatcher();
    if (this.#dispatcher) context.setDispatcher(this.#dispatcher);
  }
}

/** `server`'s cluster with `token` as the only credential (the server's `callerAccess`); its requests share connections. */
export function userKubeConfig(server: KubeConfig, token: string): KubeConfig {
  const caller = callerAccess(server, token);
  const pooled = new PooledKubeConfig();
  pooled.loadFromOptions({
    clusters: caller.clusters,
    users: caller.users,
    contexts: caller.contexts,
    currentContext: caller.currentContext,
  });
  return pooled;
}
