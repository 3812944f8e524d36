import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, inject, it, onTestFinished } from "vitest";
import { packageRoot } from "../../../src/dev/paths.ts";
import { slipway } from "../../support/cli.ts";

describe("slipway server (the command)", () => {
  it("serves the API and the UI (with client-side routes), and stops cleanly on SIGTERM", async () => {
    const webRoot = await mkdtemp(join(tmpdir(), "slipway-web-"));
    await mkdir(join(webRoot, "assets"));
    await writeFile(join(webRoot, "index.html"), "<!doctype html><title>Slipway</title><div id=root></div>");
    await writeFile(join(webRoot, "assets/app.js"), "console.log('ui')");

    const server = spawn(
      join(packageRoot, "bin/slipway"),
      [
        "server",
        "--kubeconfig",
        inject("kubeconfig"),
        "--port",
        "0",
        "--web-root",
        webRoot,
        "--log-level",
        "warn",
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    // a failed assertion must not leave the server running
    onTestFinished(() => {
      if (server.exitCode === null) server.kill("SIGKILL");
    });
    // A server that dies at startup fails the test at once instead of leaving it waiting.
    const firstLine = await Promise.race([
      once(server.stdout, "data").then(([chunk]) => String(chunk)),
      once(server, "exit").then(([code]) => `exited with ${code} before listening`),
    ]);
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(firstLine)?.[1];
    expect(url, firstLine).toBeDefined();

    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: "ok" });
    const page = await fetch(`${url}/update`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(await page.text()).toContain("<div id=root>");
    expect(await (await fetch(`${url}/assets/app.js`)).text()).toBe("console.log('ui')");

    const missingAsset = await fetch(`${url}/assets/missing.js`);
    expect(missingAsset.status).toBe(404);
    expect(await missingAsset.json()).toMatchObject({ statusCode: 404, error: "Not Found" });
    // An API address no route serves is a JSON 404, never the UI's page with 200.
    for (const path of [
      "/apis/anything",
      "/apis/",
      "/api",
      "/api/v1/nothing-here",
      "/apis/apps/v1/deployments",
    ]) {
      const unknownApi = await fetch(`${url}${path}`);
      expect(unknownApi.status, path).toBe(404);
      expect(unknownApi.headers.get("content-type"), path).toContain("application/json");
      expect(await unknownApi.json(), path).toEqual({
        statusCode: 404,
        error: "Not Found",
        message: `no route GET ${path}`,
      });
    }
    for (const path of ["/builds", "/runs/x", "/pipelines/team-a/train", "/"]) {
      const uiPage = await fetch(`${url}${path}`);
      expect(uiPage.status, path).toBe(200);
      expect(await uiPage.text(), path).toContain("<div id=root>");
    }
    expect((await fetch(`${url}/api/v1/platform`)).status).toBe(401);

    server.kill("SIGTERM");
    const [code] = await once(server, "exit");
    expect(code).toBe(0);
  });

  it("refuses a bad flag with one readable line", async () => {
    const result = await slipway(["server", "--port", "eighty"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("error: --port must be an integer from 0 to 65535, not eighty\n");
  });
});
