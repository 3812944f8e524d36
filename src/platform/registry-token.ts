/**
 * How the platform's registry authenticates (pure): distribution's token authentication, its tokens
 * issued by the platform's api-server (`slipway server --registry-token-dir`, src/server/registry-token/)
 * at `http://<p>-api-server.<ns>.svc:8080/registry/token`, signed with the key of the registry
 * credentials Secret and checked by the registry against that key's certificate. The names both sides
 * use: the realm, service and issuer, and where the api-server finds the key material.
 */
import { credentialKeys, credentialSecrets, registryHost } from "./credentials.ts";
import { serviceName } from "./names.ts";

/** The token endpoint's path on the api-server (not under /api: the Ingress does not expose it). */
export const registryTokenPath = "/registry/token";

/** The realm the registry sends its clients to, the `service` (`aud`) and `issuer` (`iss`) of its tokens. */
export function registryTokenSettings(platform: string, namespace: string) {
  const issuerHost = `${serviceName(platform, "api-server")}.${namespace}.svc`;
  return {
    realm: `http://${issuerHost}:8080${registryTokenPath}`,
    service: registryHost(platform, namespace),
    issuer: issuerHost,
  };
}

/** Where the registry finds the issuer's certificate (its root bundle): the one key mounted at /auth. */
export const registryRootBundle = `/auth/${credentialKeys.registry.tokenCertificate}`;

/** Where the api-server's pod mounts the issuer's keys: each key of the Secret in a directory of its name. */
export const registryTokenDir = "/var/run/slipway/registry-token";

/** The keys of the registry credentials Secret the issuer reads: its signing key and certificate, the per-build HMAC key, the platform user's password. */
export const issuerKeys = [
  credentialKeys.registry.tokenSigningKey,
  credentialKeys.registry.tokenCertificate,
  credentialKeys.registry.buildCredentialsKey,
  credentialKeys.registry.password,
] as const;

/** The file of one key under the issuer's directory (`<dir>/<key>/<key>`: a Secret volume of that one item mounted at `<dir>/<key>`). */
export const issuerFile = (dir: string, key: string) => `${dir}/${key}/${key}`;

/** The api-server's mounts of the issuer's keys (one per key: a component's secret mount holds one item). */
export function issuerMounts(platform: string) {
  return issuerKeys.map((key) => ({
    name: `registry-token-${key}`,
    secretName: credentialSecrets(platform).registry,
    key,
    mountPath: `${registryTokenDir}/${key}`,
  }));
}
