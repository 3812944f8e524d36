/**
 * The UI's figure of the server bench: the built UI (vite, into a fresh directory the server child
 * serves) and the time headless Debian Chromium takes to show the first page of a namespace's Runs.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { build } from "vite";
import { packageRoot } from "../../src/dev/paths.ts";

/** Builds web/ into a fresh directory: the server child's webRoot. */
export async function builtUi(): Promise<string> {
  const webRoot = await mkdtemp(join(tmpdir(), "slipway-bench-web-"));
  await build({
    configFile: join(packageRoot, "web/vite.config.ts"),
    build: { outDir: webRoot, emptyOutDir: true },
    logLevel: "warn",
  });
  return webRoot;
}

/**
 * Signs in at `url` with `token`, then opens the Runs page of `namespace` in the same tab and
 * answers the seconds from that navigation to the page's `rows`-th row (the first page's last).
 */
export async function runsFirstPageSeconds(
  url: string,
  token: string,
  namespace: string,
  rows: number,
): Promise<number> {
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
    ],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(url);
    await page.getByLabel("Bearer token").fill(token);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    const started = performance.now();
    await page.goto(`${url}/runs?namespace=${namespace}`);
    await page
      .locator("tbody tr[data-row]")
      .nth(rows - 1)
      .waitFor({ timeout: 60_000 });
    const seconds = (performance.now() - started) / 1000;
    const shown = await page.locator("tbody tr[data-row]").count();
    if (shown !== rows) throw new Error(`the Runs page showed ${shown} rows, not its first page of ${rows}`);
    return seconds;
  } finally {
    await browser.close();
  }
}
