import { execFile } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { bridgeGateway } from "./real-node/network.ts";

const run = promisify(execFile);

export interface Pki {
  caCert: string;
  caKey: string;
  servingCert: string;
  servingKey: string;
  adminCert: string;
  adminKey: string;
  serviceAccountKey: string;
  serviceAccountPub: string;
  /** etcd's own CA: it signs etcd's serving (and peer) certificate and the one client etcd accepts, the API server's. */
  etcdCaCert: string;
  etcdCaKey: string;
  etcdServerCert: string;
  etcdServerKey: string;
  etcdClientCert: string;
  etcdClientKey: string;
}

const days = ["-days", "3650"];
const newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

const caExtensions = [
  "basicConstraints=critical,CA:TRUE",
  "keyUsage=critical,keyCertSign,cRLSign,digitalSignature",
];
const keyUsage = "keyUsage=critical,digitalSignature,keyEncipherment";

/**
 * A throwaway certificate authority for one local control plane: the API server's serving
 * certificate (127.0.0.1, localhost and the in-cluster names), an admin client certificate in
 * `system:masters`, the service-account token signing key pair, and etcd's PKI (etcdPki).
 */
export async function createPki(dir: string): Promise<Pki> {
  const pki: Pki = {
    caCert: join(dir, "ca.crt"),
    caKey: join(dir, "ca.key"),
    servingCert: join(dir, "apiserver.crt"),
    servingKey: join(dir, "apiserver.key"),
    adminCert: join(dir, "admin.crt"),
    adminKey: join(dir, "admin.key"),
    serviceAccountKey: join(dir, "sa.key"),
    serviceAccountPub: join(dir, "sa.pub"),
    etcdCaCert: join(dir, "etcd-ca.crt"),
    etcdCaKey: join(dir, "etcd-ca.key"),
    etcdServerCert: join(dir, "etcd-server.crt"),
    etcdServerKey: join(dir, "etcd-server.key"),
    etcdClientCert: join(dir, "apiserver-etcd-client.crt"),
    etcdClientKey: join(dir, "apiserver-etcd-client.key"),
  };
  await newCertificate(
    { key: pki.caKey, cert: pki.caCert, subject: "/CN=slipway-dev-ca", extensions: caExtensions },
    [],
  );
  await etcdPki(pki);
  const signed = (key: string, cert: string, subject: string, extensions: string[]) =>
    signCertificate(pki, { key, cert, subject, extensions });
  const names = [
    "IP:127.0.0.1",
    "IP:10.96.0.1",
    // the real node's bridge gateway, where pods reach the API server (src/dev/real-node/network.ts)
    `IP:${bridgeGateway}`,
    "DNS:localhost",
    "DNS:kubernetes",
    "DNS:kubernetes.default",
    "DNS:kubernetes.default.svc",
    "DNS:kubernetes.default.svc.cluster.local",
  ];
  await Promise.all([
    signed(pki.servingKey, pki.servingCert, "/CN=kube-apiserver", [
      `subjectAltName=${names.join(",")}`,
      "extendedKeyUsage=serverAuth",
      keyUsage,
    ]),
    signed(pki.adminKey, pki.adminCert, "/O=system:masters/CN=slipway-admin", [
      "extendedKeyUsage=clientAuth",
      keyUsage,
    ]),
  ]);
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  await writeFile(pki.serviceAccountKey, privateKey.export({ type: "pkcs8", format: "pem" }), {
    mode: 0o600,
  });
  await writeFile(pki.serviceAccountPub, publicKey.export({ type: "spki", format: "pem" }));
  return pki;
}

/**
 * etcd's CA (not the cluster's: a certificate the API server accepts, such as the admin's, must not
 * open etcd), its serving certificate (also its peer one: serverAuth and clientAuth) and the API
 * server's client certificate. etcd accepts only clients with a certificate of this CA.
 */
async function etcdPki(pki: Pki): Promise<void> {
  const ca = { caCert: pki.etcdCaCert, caKey: pki.etcdCaKey };
  await newCertificate(
    { key: ca.caKey, cert: ca.caCert, subject: "/CN=slipway-dev-etcd-ca", extensions: caExtensions },
    [],
  );
  await Promise.all([
    signCertificate(ca, {
      key: pki.etcdServerKey,
      cert: pki.etcdServerCert,
      subject: "/CN=etcd",
      extensions: [
        "subjectAltName=IP:127.0.0.1,DNS:localhost",
        "extendedKeyUsage=serverAuth,clientAuth",
        keyUsage,
      ],
    }),
    signCertificate(ca, {
      key: pki.etcdClientKey,
      cert: pki.etcdClientCert,
      subject: "/CN=kube-apiserver-etcd-client",
      extensions: ["extendedKeyUsage=clientAuth", keyUsage],
    }),
  ]);
}

export interface CertificateRequest {
  key: string;
  cert: string;
  subject: string;
  /** openssl `-addext` values */
  extensions: string[];
}

/** A new key and a certificate for it signed by the control plane's CA. */
export async function signCertificate(ca: Pick<Pki, "caCert" | "caKey">, request: CertificateRequest) {
  await newCertificate(
    { ...request, extensions: ["basicConstraints=critical,CA:FALSE", ...request.extensions] },
    ["-CA", ca.caCert, "-CAkey", ca.caKey],
  );
}

/** A new key and its certificate: self-signed, or signed by the CA that `signer` names. */
async function newCertificate(request: CertificateRequest, signer: string[]): Promise<void> {
  await run("openssl", [
    "req",
    "-x509",
    "-new",
    ...newKey,
    "-keyout",
    request.key,
    "-out",
    request.cert,
    ...days,
    "-subj",
    request.subject,
    ...signer,
    ...request.extensions.flatMap((extension) => ["-addext", extension]),
  ]);
}
