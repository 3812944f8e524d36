/**
 * The vertex backend with a service account key Secret: the official client over TLS to the test
 * Vertex endpoint on 127.0.0.1 (a certificate from a throwaway CA that only this process trusts),
 * which refuses every call whose bearer JWT is not signed by that key (UNAUTHENTICATED). The JWT
 * is the one google-auth-library signs itself with the key for Google's client libraries, so no
 * token exchange is made and nothing leaves loopback.
 */
import { generateKeyPairSync } from "node:crypto";
import { getCACertificates, setDefaultCACertificates } from "node:tls";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { secretType } from "../../../src/kube/core-types.ts";
import { types } from "../../../src/pipelines/types.ts";
import { issueServingCertificate } from "../../../src/webhook/certificates.ts";
import { eventually, testNamespace } from "../../support/cluster.ts";
import { startVertexServer, type VertexServer } from "../../support/fakes/vertex-server.ts";
import { type OutboundRecorder, recordOutbound } from "../../support/outbound.ts";
import { condition, pipelinesTestbed, vertexProviderSpec } from "../../support/pipelines-testbed.ts";

// grpc-js reads its root certificates from this file, when set, instead of Node's default store
// (which the test extends with its CA); it reads the variable once, when it is loaded: hoisted
vi.hoisted(() => {
  delete process.env.GRPC_DEFAULT_SSL_ROOTS_FILE_PATH;
});

// biome-ignore lint/suspicious/noExplicitAny: test reads of arbitrary objects
type Any = any;

// its Vertex endpoint listens on 127.0.0.1, which the operator's outbound policy must allow
const bed = pipelinesTestbed(true, [], { allow: ["127.0.0.1"] });
const defaultCAs = getCACertificates("default");
const email = "runner@slipway-test.iam.gserviceaccount.com";
const keyId = "0123456789abcdef0123456789abcdef01234567";
const accountKey = generateKeyPairSync("rsa", { modulusLength: 2048 });
let vertex: VertexServer;
let outbound: OutboundRecorder;

beforeAll(async () => {
  outbound = recordOutbound();
  const certificate = await issueServingCertificate(["127.0.0.1"], new Date(), 1);
  setDefaultCACertificates([...defaultCAs, certificate.caPem]);
  vertex = await startVertexServer({ tls: certificate, bearerKey: accountKey.publicKey });
});

afterAll(async () => {
  outbound?.stop();
  setDefaultCACertificates(defaultCAs);
  await vertex?.stop();
});

/** A service account key (JSON) as Google issues it, with this private key. */
function keyJson(privateKeyPem: string): string {
  return JSON.stringify({
    type: "service_account",
    project_id: "slipway-test",
    private_key_id: keyId,
    private_key: privateKeyPem,
    client_email: email,
    client_id: "100000000000000000001",
    // a self-signed JWT needs no exchange; were one made here, it would stay on loopback and fail
    token_uri: "http://127.0.0.1:9/token",
  });
}

const pemOf = (key: { export(options: { type: "pkcs8"; format: "pem" }): string | Buffer }) =>
  key.export({ type: "pkcs8", format: "pem" }).toString();

/** A namespace with the key Secret and a vertex Provider naming it; the Provider once its Ready is set. */
async function keyedProvider(privateKeyPem: string): Promise<{ ns: string; provider: Any }> {
  const ns = await testNamespace("vtxkey");
  await bed.api.create(secretType, {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "vertex-key", namespace: ns },
    data: { "key.json": Buffer.from(keyJson(privateKeyPem)).toString("base64") },
  });
  await bed.create(
    types.provider,
    ns,
    "vertex",
    vertexProviderSpec(vertex.endpoint.port, {
      credentials: { keySecret: { name: "vertex-key", key: "key.json" } },
    }),
  );
  const provider = await eventually(
    "Provider vertex has Ready",
    () => bed.api.get<Any>(types.provider, ns, "vertex"),
    (p: Any) => condition(p, "Ready") !== undefined,
    180_000, // the first vertex Provider loads the client library (a dynamic import)
  );
  return { ns, provider };
}

describe("the vertex backend with a service account key Secret (TLS, bearer JWTs checked by the endpoint)", () => {
  it("every call carries a JWT signed by the Secret's key; the job is created and deleted; no token stored; nothing leaves loopback", async () => {
    const { ns, provider } = await keyedProvider(pemOf(accountKey.privateKey));
    expect(condition(provider, "Ready")).toMatchObject({
      status: "True",
      message: "Vertex AI at 127.0.0.1 answered for projects/slipway-test/locations/europe-west4",
    });
    await bed.create(types.pipeline, ns, "train", {
      provider: "vertex",
      image: "registry.example/ml/pipeline:1",
      steps: [{ name: "train" }],
    });
    await bed.synced(types.pipeline, ns, "train");
    await bed.create(types.run, ns, "keyed", { provider: "vertex", pipeline: "train" });
    const run: Any = await bed.synced(types.run, ns, "keyed");
    expect(vertex.jobs.get(run.status.provider.id)).toMatchObject({ displayName: `${ns}.keyed` });

    const served = vertex.requests.filter((r) => r.bearer !== undefined);
    expect(served.map((r) => r.method)).toEqual(expect.arrayContaining(["getLocation", "createPipelineJob"]));
    for (const { bearer } of served) {
      expect(bearer?.header).toMatchObject({ alg: "RS256", kid: keyId });
      expect(bearer?.claims).toMatchObject({
        iss: email,
        sub: email,
        scope: "https://www.googleapis.com/auth/cloud-platform",
      });
    }
    const stored = JSON.stringify([
      await bed.api.get(types.provider, ns, "vertex"),
      await bed.api.get(types.run, ns, "keyed"),
    ]);
    expect(stored).not.toMatch(/eyJ[\w-]+\.eyJ/); // no JWT
    expect(stored).not.toContain("PRIVATE KEY");

    await bed.api.delete(types.run, ns, "keyed");
    await eventually(
      "the job deleted",
      async () => [...vertex.jobs.values()].filter((job) => job.displayName === `${ns}.keyed`),
      (left) => left.length === 0,
    );
    expect(vertex.violations).toEqual([]);
    expect(outbound.outside()).toEqual([]);
  });

  it("a Secret holding another key: every call refused (UNAUTHENTICATED), the Provider not Ready, no token in its message", async () => {
    const other = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const { provider } = await keyedProvider(pemOf(other.privateKey));
    const ready = condition(provider, "Ready");
    expect(ready).toMatchObject({ status: "False" });
    expect(ready.message).toBe(
      "Vertex AI at 127.0.0.1: GetLocation projects/slipway-test/locations/europe-west4: gRPC status 16 UNAUTHENTICATED",
    );
    expect(outbound.outside()).toEqual([]);
  });
});
