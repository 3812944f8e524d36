/**
 * The token issuer's settings, read once at the server's start (I/O): its signing key and
 * certificate, the per-build HMAC key and the platform user's password from the files the
 * api-server's pod mounts (src/platform/registry-token.ts), its issuer and service names from the
 * Platform it serves. A missing or unreadable file stops the server, naming the flag and the file.
 */
import { createPrivateKey } from "node:crypto";
import { readFileSync } from "node:fs";
import { credentialKeys, serviceUser } from "../../platform/credentials.ts";
import { issuerFile, registryTokenSettings } from "../../platform/registry-token.ts";
import type { IssuerSettings } from "./issuer.ts";
import { signingAlgorithm } from "./jwt.ts";

export function issuerSettingsFromDir(
  dir: string,
  platform: { namespace: string; name: string },
): IssuerSettings {
  const read = (key: string) => {
    const path = issuerFile(dir, key);
    try {
      return readFileSync(path, "utf8");
    } catch (error) {
      throw new Error(
        `--registry-token-dir: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? error}`,
      );
    }
  };
  const keys = credentialKeys.registry;
  let key: ReturnType<typeof createPrivateKey>;
  try {
    key = createPrivateKey(read(keys.tokenSigningKey));
    signingAlgorithm(key);
  } catch (error) {
    throw new Error(`--registry-token-dir: ${keys.tokenSigningKey}: ${(error as Error).message}`);
  }
  const { service, issuer } = registryTokenSettings(platform.name, platform.namespace);
  return {
    issuer,
    service,
    signer: { key, certificatePem: read(keys.tokenCertificate) },
    platformUser: { username: serviceUser, password: read(keys.password) },
    buildCredentialsKey: read(keys.buildCredentialsKey),
  };
}
