/**
 * The operator's outbound policy on the real control plane (issue #29, items 2 and 3): a tenant's
 * kfp endpoint or vertex apiEndpoint on the operator's loopback reaches nothing, a backend's answer
 * is not echoed into status or Events, a redirect is not followed, no signed JWT goes to a host
 * the installer did not list, and no ambient credentials outside the namespaces it named. The
 * operator here allows only `listed` (a name its resolver answers with 127.0.0.1), not
 * 127.0.0.1 itself.
 */
import { generateKeyPairSync } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getCACertificates, setDefaultCACertificates } from "node:tls";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { secretType } from "../../../src/kube/core-types.ts";
import { eventType } from "../../../src/kube/runtime-types.ts";
import { types } from "../../../src/pipelines/types.ts";
import { issueServingCertificate } from "../../../src/webhook/certificates.ts";
import { eventually, testNamespace } from "../../support/cluster.ts";
import { startVertexServer, type VertexServer } from "../../support/fakes/vertex-server.ts";
import { loopbackResolver } from "../../support/loopback-resolver.ts";
import { condition, pipelinesTestbed } from "../../support/pipelines-testbed.ts";

// grpc-js reads its root certificates from this file, when set, instead of Node's default store
vi.hoisted(() => {
  delete process.env.GRPC_DEFAULT_SSL_ROOTS_FILE_PATH;
});

// biome-ignore lint/suspicious/noExplicitAny: test reads of arbitrary objects
type Any = any;

/** Names that resolve to 127.0.0.1 (loopbackResolver, the operator's DNS here): the first is listed, the second not. */
const [listed, unlisted] = ["kfp.listed.test", "kfp.unlisted.test"];

const rule = "not allowed by the operator's outbound policy (SLIPWAY_OUTBOUND_ALLOW)";
const bed = pipelinesTestbed(true, [], { allow: [listed], resolver: loopbackResolver(listed, unlisted) });
const defaultCAs = getCACertificates("default");
const accountKey = generateKeyPairSync("rsa", { modulusLength: 2048 });

/** A listener on 127.0.0.1 recording every request; `answer` writes the response. */
interface Listener {
  port: number;
  seen: { url: string; authorization?: string }[];
  server: Server;
}

async function listen(
  answer: (request: IncomingMessage, response: import("node:http").ServerResponse) => void,
): Promise<Listener> {
  const seen: Listener["seen"] = [];
  const server = createServer((request, response) => {
    seen.push({ url: request.url ?? "", authorization: request.headers.authorization });
    answer(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as AddressInfo).port, seen, server };
}

const secretBody = "internal-answer-7c1e: the bucket list of the operator's loopback";
let backend: Listener;
let redirector: Listener;
let vertex: VertexServer;

beforeAll(async () => {
  backend = await listen((_request, response) => {
    response
      .writeHead(500, { "content-type": "application/json" })
      .end(JSON.stringify({ message: secretBody }));
  });
  redirector = await listen((_request, response) => {
    response.writeHead(302, { location: `http://127.0.0.1:${backend.port}/elsewhere` }).end();
  });
  const certificate = await issueServingCertificate(["127.0.0.1", listed], new Date(), 1);
  setDefaultCACertificates([...defaultCAs, certificate.caPem]);
  vertex = await startVertexServer({ tls: certificate, bearerKey: accountKey.publicKey });
});

afterAll(async () => {
  setDefaultCACertificates(defaultCAs);
  await vertex?.stop();
  for (const listener of [backend, redirector]) listener?.server.close();
});

async function notReady(ns: string, name: string, spec: Any): Promise<Any> {
  await bed.create(types.provider, ns, name, spec);
  const provider = await eventually(
    `Provider ${name} Ready=False`,
    () => bed.api.get<Any>(types.provider, ns, name),
    (p: Any) => condition(p, "Ready")?.status === "False",
    180_000, // a vertex Provider's first use loads the client library
  );
  return condition(provider, "Ready");
}

describe("the outbound policy of kfp endpoints", () => {
  it("an endpoint on the operator's loopback (by address, name or a name resolving to it) reaches nothing; a fragment is refused", async () => {
    const ns = await testNamespace("outbound");
    const kfp = (endpoint: string) => ({ type: "kfp", parameters: { endpoint } });
    expect((await notReady(ns, "address", kfp(`http://127.0.0.1:${backend.port}`))).message).toBe(
      `spec.parameters.endpoint: 127.0.0.1 is loopback, ${rule}`,
    );
    expect((await notReady(ns, "name", kfp(`http://localhost:${backend.port}`))).message).toBe(
      `spec.parameters.endpoint: localhost is loopback, ${rule}`,
    );
    // resolved, then checked: the connection is never made
    expect((await notReady(ns, "resolved", kfp(`http://${unlisted}:${backend.port}`))).message).toBe(
      `KFP at http://${unlisted}:${backend.port}: GET /apis/v2beta1/pipelines: spec.parameters.endpoint: ${unlisted} is 127.0.0.1, loopback, ${rule}`,
    );
    expect((await notReady(ns, "fragment", kfp(`http://${listed}:${backend.port}/#`))).message).toBe(
      "spec.parameters.endpoint: no fragment (#) in the URL",
    );
    expect(backend.seen).toEqual([]);
  });

  it("the answer of a backend is not echoed (only the status), a redirect not followed", async () => {
    const ns = await testNamespace("outbound");
    const failing = await notReady(ns, "failing", {
      type: "kfp",
      parameters: { endpoint: `http://${listed}:${backend.port}` },
    });
    expect(failing.message).toBe(
      `KFP at http://${listed}:${backend.port}: GET /apis/v2beta1/pipelines → 500 Internal Server Error`,
    );
    const redirected = await notReady(ns, "redirected", {
      type: "kfp",
      parameters: { endpoint: `http://${listed}:${redirector.port}` },
    });
    expect(redirected.message).toBe(
      `KFP at http://${listed}:${redirector.port}: GET /apis/v2beta1/pipelines → 302 Found (a redirect: not followed)`,
    );
    expect(backend.seen.map((r) => r.url)).not.toContain("/elsewhere");
    const written = await eventually(
      "the Warning Events",
      async () => JSON.stringify(await bed.api.list(eventType, ns)),
      (text) => text.includes("302 Found"),
    );
    expect(`${written}${JSON.stringify(await bed.api.list(types.provider, ns))}`).not.toContain(
      "internal-answer",
    );
  });
});

describe("the outbound policy of vertex apiEndpoints and credentials", () => {
  it("no signed JWT to an unlisted host; no ambient credentials outside the namespaces allowed", async () => {
    const ns = await testNamespace("outbound");
    const keyJson = JSON.stringify({
      type: "service_account",
      project_id: "slipway-test",
      private_key_id: "0123456789abcdef0123456789abcdef01234567",
      private_key: accountKey.privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
      client_email: "runner@slipway-test.iam.gserviceaccount.com",
      token_uri: "http://127.0.0.1:9/token",
    });
    await bed.api.create(secretType, {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "vertex-key", namespace: ns },
      data: { "key.json": Buffer.from(keyJson).toString("base64") },
    });
    const vertexSpec = (parameters: Any) => ({
      type: "vertex",
      pipelineRootStorage: "gs://bucket/root",
      parameters: { project: "slipway-test", location: "europe-west4", ...parameters },
    });
    const keyed = await notReady(
      ns,
      "keyed",
      vertexSpec({
        apiEndpoint: `127.0.0.1:${vertex.endpoint.port}`,
        credentials: { keySecret: { name: "vertex-key", key: "key.json" } },
      }),
    );
    expect(keyed.message).toBe(`spec.parameters.apiEndpoint: 127.0.0.1 is loopback, ${rule}`);
    const ambient = await notReady(ns, "ambient", vertexSpec({}));
    expect(ambient.message).toBe(
      `spec.parameters.credentials: none given, and the operator's ambient cloud credentials are not for namespace ${ns} (SLIPWAY_AMBIENT_CREDENTIALS_NAMESPACES)`,
    );
    expect(vertex.requests).toEqual([]);
  });
});
