/** Shared by the browser tests: the built UI, headless Debian Chromium, screenshots, signing in. */
import { mkdir, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { build } from "vite";
import { onTestFinished } from "vitest";
import { packageRoot } from "../../../src/dev/paths.ts";

/** Screenshots of every page the tests show (gitignored: .slipway/). */
export const screens = join(packageRoot, ".slipway/screens");

/** Builds the UI into a fresh directory (the server's webRoot). */
export async function buildWebUi(): Promise<string> {
  const webRoot = await mkdtemp(join(tmpdir(), "slipway-web-"));
  await build({
    configFile: join(packageRoot, "web/vite.config.ts"),
    build: { outDir: webRoot, emptyOutDir: true },
    logLevel: "warn",
  });
  await mkdir(screens, { recursive: true });
  return webRoot;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

export const screenshot = (page: Page, name: string) =>
  page.screenshot({ path: join(screens, `${name}.png`), fullPage: true });

/** A new page at `url` (closed after the test), signed in with `token`. */
export async function signedInPage(
  browser: Browser,
  url: string,
  token: string,
  width = 1280,
): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height: 800 } });
  onTestFinished(() => page.close());
  await page.goto(url);
  await page.getByRole("heading", { name: "Sign in to Slipway" }).waitFor();
  await page.getByLabel("Bearer token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
  return page;
}
