/**
 * The MCP Apps as a person sees them in a chat client with Apps (part of `npm run screenshots`): each app
 * in light and dark, at a desktop's and a phone's width, written to docs/screenshots/app-<app>-<theme>-
 * <width>.png, and the five in light at twice the desktop's pixels (1,520 px wide) for directory listings,
 * which ask for 3 to 5 screenshots of at least 1,000 px (docs/screenshots/directory/app-<app>.png). The same host as the browser tests (test/helpers/app-host.ts: the ext-apps AppBridge, a
 * sandbox proxy under the app's CSP, the official SDK client) over a throwaway server with a half year
 * of seeded data (test/helpers/app-seed.ts); Debian's chromium through playwright-core.
 */
import { randomUUID } from "node:crypto";
import { chromium } from "playwright-core";
import { chromiumPath } from "../test/helpers/browser.js";
import { startTestServer } from "../test/helpers/server.js";
import { startAppHost } from "../test/helpers/app-host.js";
import { APPS_NOW, APPS_STATEMENT, seedFinances } from "../test/helpers/app-seed.js";

const OUT = new URL("../docs/screenshots/", import.meta.url).pathname;

const path = chromiumPath();
if (!path) throw new Error("no chromium: apt-get install chromium");
const server = await startTestServer({}, { now: () => APPS_NOW });
const browser = await chromium.launch({ executablePath: path, args: ["--no-sandbox", "--disable-gpu"] });
const user = await server.createUser({ currency: "EUR", timezone: "UTC" });
const seed = await seedFinances(server, user.token);
await server.call(
  "create_transaction",
  { wallet_id: seed.checking, date: "2026-11-17", amount: "4.20", direction: "expense", payee: "Corner Cafe", idempotency_key: randomUUID() },
  user.token,
);
const host = await startAppHost(server, user.token);
const calls: [string, string, Record<string, unknown>, string][] = [
  ["spending", "get_transaction_summary", { date_from: "2026-11-01", date_to: "2026-11-30", group_by: "category" }, ".delta.up, .delta.down"],
  ["budgets", "get_budget_status", {}, "[data-budget]"],
  ["net-worth", "get_net_worth", { from: "2026-05-31", to: "2026-11-20", step: "month" }, "svg.line"],
  // "Can I afford a trip in four weeks?": the forecast with the trip as a what-if.
  ["forecast", "get_cash_flow_forecast", { days: 60, what_if: [{ in_days: 28, amount: "1200.00", direction: "expense", label: "Trip" }] }, "svg.line"],
  ["import", "import_transactions", { wallet_id: seed.checking, statement: APPS_STATEMENT, dry_run: true, idempotency_key: randomUUID() }, "button.primary"],
];
try {
  for (const [width, viewport] of [
    ["desktop", { width: 760, height: 900 }],
    ["phone", { width: 390, height: 900 }],
  ] as const) {
    for (const theme of ["light", "dark"] as const) {
      const page = await (await browser.newContext({ viewport, colorScheme: theme, deviceScaleFactor: 1 })).newPage();
      for (const [name, tool, args, ready] of calls) {
        const { frame } = await host.open(page, tool, args, theme);
        await frame.locator(ready).first().waitFor();
        // The host sizes the frame to the app (ui/notifications/size-changed): wait until it has.
        await page.waitForFunction(() => (globalThis as unknown as { appHeight: number }).appHeight > 100);
        await page.waitForTimeout(300);
        await page.locator("#slot").screenshot({ path: `${OUT}app-${name}-${theme}-${width}.png` });
      }
      await page.context().close();
    }
  }
  const listing = await (await browser.newContext({ viewport: { width: 760, height: 900 }, colorScheme: "light", deviceScaleFactor: 2 })).newPage();
  for (const [name, tool, args, ready] of calls) {
    const { frame } = await host.open(listing, tool, name === "import" ? { ...args, idempotency_key: randomUUID() } : args, "light");
    await frame.locator(ready).first().waitFor();
    await listing.waitForFunction(() => (globalThis as unknown as { appHeight: number }).appHeight > 100);
    await listing.waitForTimeout(300);
    await listing.locator("#slot").screenshot({ path: `${OUT}directory/app-${name}.png` });
  }
  await listing.context().close();
  console.log(`wrote ${OUT}app-{spending,budgets,net-worth,forecast,import}-{light,dark}-{desktop,phone}.png and ${OUT}directory/app-*.png`);
} finally {
  await host.close();
  await browser.close();
  await server.close();
}
