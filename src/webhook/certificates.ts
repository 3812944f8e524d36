/**
 * The webhook's TLS serving certificate: a fresh CA and a serving certificate it signs, made together
 * (the CA signs nothing else; its key is dropped), and the rule for when to make new ones. The API
 * server trusts the CAs of `caBundle`; a rotation keeps the previous CA there until it expires, so a
 * replica still serving the previous certificate keeps being trusted until it reloads.
 */
import { X509Certificate as NodeCertificate, webcrypto } from "node:crypto";
import { isIP } from "node:net";
import { onFirstUse } from "../lib/on-first-use.ts";

/** @peculiar/x509 (+14 MB resident), only when a certificate is issued. */
const x509Library = onFirstUse(async () => {
  // it resolves its services with tsyringe, which needs the Reflect metadata API
  await import("reflect-metadata");
  return import("@peculiar/x509");
});

/** PEM texts of one issued certificate. */
export interface ServingCertificate {
  /** The CA that signed it (PEM). */
  caPem: string;
  /** The serving certificate (PEM). */
  certPem: string;
  /** Its private key (PKCS#8 PEM). */
  keyPem: string;
}

const algorithm = { name: "ECDSA", namedCurve: "P-256" } as const;
const signingAlgorithm = { name: "ECDSA", hash: "SHA-256" } as const;
const dayMs = 86_400_000;

async function pkcs8Pem(key: webcrypto.CryptoKey): Promise<string> {
  const x509 = await x509Library();
  const der = await webcrypto.subtle.exportKey("pkcs8", key);
  return x509.PemConverter.encode(der, "PRIVATE KEY");
}

/** A CA and a serving certificate for `hosts` (DNS names or IP addresses), valid `lifetimeDays` from `now`. */
export async function issueServingCertificate(
  hosts: string[],
  now: Date,
  lifetimeDays: number,
): Promise<ServingCertificate> {
  if (hosts.length === 0) throw new Error("issueServingCertificate: no hosts");
  const x509 = await x509Library();
  const notBefore = new Date(now.getTime() - 5 * 60_000); // a little clock skew between nodes
  const notAfter = new Date(now.getTime() + lifetimeDays * dayMs);
  const caKeys = (await webcrypto.subtle.generateKey(algorithm, true, [
    "sign",
    "verify",
  ])) as webcrypto.CryptoKeyPair;
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    name: `CN=slipway-webhook-ca-${now.getTime()}`,
    keys: caKeys,
    notBefore,
    notAfter,
    signingAlgorithm,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, [
    "sign",
    "verify",
  ])) as webcrypto.CryptoKeyPair;
  const names = hosts.map((host) => ({ type: isIP(host) ? ("ip" as const) : ("dns" as const), value: host }));
  const cert = await x509.X509CertificateGenerator.create({
    subject: `CN=${hosts[0]}`,
    issuer: ca.subject,
    publicKey: keys.publicKey,
    signingKey: caKeys.privateKey,
    notBefore,
    notAfter,
    signingAlgorithm,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(names),
      await x509.AuthorityKeyIdentifierExtension.create(ca),
    ],
  });
  return {
    caPem: ca.toString("pem"),
    certPem: cert.toString("pem"),
    keyPem: await pkcs8Pem(keys.privateKey),
  };
}

/**
 * A P-256 key and a self-signed certificate of it, valid `lifetimeDays` from `now`: a signing
 * identity whose certificate is its own trust root (the platform registry's token issuer: the
 * registry verifies a token's `x5c` against a bundle holding this certificate).
 */
export async function issueSelfSignedCertificate(
  commonName: string,
  now: Date,
  lifetimeDays: number,
): Promise<{ certPem: string; keyPem: string }> {
  const x509 = await x509Library();
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, [
    "sign",
    "verify",
  ])) as webcrypto.CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: `CN=${commonName}`,
    keys,
    notBefore: new Date(now.getTime() - 5 * 60_000),
    notAfter: new Date(now.getTime() + lifetimeDays * dayMs),
    signingAlgorithm,
    extensions: [new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true)],
  });
  return { certPem: cert.toString("pem"), keyPem: await pkcs8Pem(keys.privateKey) };
}

/** What decides a rotation, read from a serving certificate. */
export interface CertificateFacts {
  notBefore: Date;
  notAfter: Date;
  /** Its subject alternative names (DNS names and IP addresses). */
  hosts: string[];
}

/** The validity and names of a PEM certificate; undefined when it cannot be parsed. */
export function certificateFacts(certPem: string | undefined): CertificateFacts | undefined {
  if (!certPem) return undefined;
  try {
    const cert = new NodeCertificate(certPem);
    const hosts = (cert.subjectAltName ?? "")
      .split(", ")
      .map((entry) => entry.replace(/^(DNS|IP Address):/, ""))
      .filter(Boolean);
    return { notBefore: new Date(cert.validFrom), notAfter: new Date(cert.validTo), hosts };
  } catch {
    return undefined;
  }
}

/**
 * Why a new certificate is due (none, unreadable, other hosts, or past two thirds of its lifetime),
 * or undefined when the current one stays. Pure.
 */
export function rotationReason(
  facts: CertificateFacts | undefined,
  hosts: string[],
  now: Date,
): string | undefined {
  if (!facts) return "no readable serving certificate";
  const missing = hosts.find((host) => !facts.hosts.includes(host));
  if (missing) return `the certificate does not name ${missing}`;
  const lifetime = facts.notAfter.getTime() - facts.notBefore.getTime();
  const renewAt = facts.notBefore.getTime() + (lifetime * 2) / 3;
  if (now.getTime() >= renewAt) return `the certificate expires at ${facts.notAfter.toISOString()}`;
  return undefined;
}

/** The PEM certificates of a bundle, in order. */
export function splitPem(bundle: string): string[] {
  return bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
}

/** The trusted CAs after a rotation: the new CA, then the previous ones not yet expired. Pure. */
export function nextCaBundle(newCaPem: string, previousBundle: string | undefined, now: Date): string {
  const kept = splitPem(previousBundle ?? "").filter((pem) => {
    const facts = certificateFacts(pem);
    return facts !== undefined && facts.notAfter.getTime() > now.getTime();
  });
  return `${[newCaPem.trim(), ...kept.slice(0, 1)].join("\n")}\n`;
}
