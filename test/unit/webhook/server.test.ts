import { connect } from "node:tls";
import pino from "pino";
import { describe, expect, it, onTestFinished } from "vitest";
import { conversionPath } from "../../../src/apis/versions.ts";
import { issueSelfSignedCertificate } from "../../../src/webhook/certificates.ts";
import { WebhookServer } from "../../../src/webhook/server.ts";

describe("webhook server", () => {
  it("outlives a caller that goes away mid-request, and answers the next", async () => {
    const tls = await issueSelfSignedCertificate("127.0.0.1", new Date(), 1);
    const server = new WebhookServer(tls, {}, pino({ level: "silent" }), { converts: true });
    const port = await server.listen(0, "127.0.0.1");
    onTestFinished(() => server.close());
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", record);
    onTestFinished(() => void process.off("unhandledRejection", record));

    // a POST that promises a body and hangs up after part of it
    const socket = connect({ host: "127.0.0.1", port, rejectUnauthorized: false });
    await new Promise<void>((resolve) => socket.once("secureConnect", () => resolve()));
    socket.write(
      `POST ${conversionPath} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"kind":`,
    );
    const closed = new Promise((resolve) => socket.once("close", resolve));
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    await closed;

    // the next caller is answered (a bad review: 400), and nothing was left unhandled
    const answer = await new Promise<string>((resolve, reject) => {
      const next = connect({ host: "127.0.0.1", port, rejectUnauthorized: false }, () => {
        next.end(
          `POST ${conversionPath} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\ncontent-length: 2\r\n\r\n{}`,
        );
      });
      let text = "";
      next.on("data", (chunk) => {
        text += chunk.toString();
      });
      next.once("end", () => resolve(text));
      next.once("error", reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(unhandled).toEqual([]);
  });
});
