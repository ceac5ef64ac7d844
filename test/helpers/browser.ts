/**
 * A real browser for the web pages' tests: Debian's `chromium` package, driven by playwright-core (no
 * browser is ever downloaded). CHROMIUM_PATH overrides where it is. Without one the browser tests are
 * skipped and the run's summary says so, unless REQUIRE_BROWSER=1 (CI sets it) makes that a failure
 * (test/helpers/external.ts).
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";
import { skipWithout } from "./external.js";

export function chromiumPath(): string | undefined {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  for (const name of ["chromium", "chromium-browser"]) {
    try {
      const path = execFileSync("which", [name], { encoding: "utf8" }).trim();
      if (path && existsSync(path)) return path;
    } catch {
      /* not on PATH */
    }
  }
  return undefined;
}

/** Launches headless Chromium, or skips the suite (fails with REQUIRE_BROWSER=1) when there is none. */
export async function launchBrowser(ctx: Mocha.Context): Promise<Browser> {
  const path = chromiumPath();
  if (!path) skipWithout(ctx, "chromium", "no chromium on PATH");
  // --no-sandbox: CI runs as root, where Chromium's sandbox cannot start. The rest keep Chromium off the
  // network it would reach for itself (updates, sync, QUIC probes): on this closed network those
  // connections are refused many at a time, which under load reset the page's own connection to the test
  // server (a test that passed alone failed in the full run).
  return chromium.launch({
    executablePath: path,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-quic",
      "--no-first-run",
    ],
  });
}
