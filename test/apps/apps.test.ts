/**
 * The MCP Apps as a host runs them: real Chromium (playwright-core), the ext-apps SDK's AppBridge on a
 * host page, a sandbox proxy on a second origin under the CSP built from the resource's _meta, and the
 * official SDK v2 client talking to this server (test/helpers/app-host.ts). Each app must show the
 * numbers of its tool's real result (read back from the DOM and compared with the result formatted the
 * same way); the import preview writes nothing until the person confirms, and then its call reaches
 * import_transactions; the CSP stops a fetch to another origin. On the engine FINANCE_TEST_ENGINE names.
 */
import { expect } from "chai";
import type { Browser, Frame, Page } from "playwright-core";
import { seriousViolations } from "../helpers/axe.js";
import { launchBrowser } from "../helpers/browser.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";
import { startAppHost, type AppHost } from "../helpers/app-host.js";
import { APPS_NOW, APPS_STATEMENT, seedFinances, type AppSeed } from "../helpers/app-seed.js";

type Money = { value: string; currency: string; minor: number };
const eur = (m: Money | string, currency = "EUR") =>
  new Intl.NumberFormat("en-US", { style: "currency", currency: typeof m === "string" ? currency : m.currency }).format(
    (typeof m === "string" ? m : m.value) as never,
  );
/** One call per app over the seeded ledger, with the selector that shows its view is drawn. */
const appCalls = (seed: AppSeed): [string, Record<string, unknown>, string][] => [
  ["get_transaction_summary", { date_from: "2026-11-01", date_to: "2026-11-30", group_by: "category" }, ".bars li"],
  ["get_budget_status", {}, "[data-budget]"],
  ["get_net_worth", { from: "2026-05-31", to: "2026-11-20" }, "svg.line"],
  ["get_cash_flow_forecast", { days: 90 }, "svg.line"],
  ["import_transactions", { wallet_id: seed.checking, statement: APPS_STATEMENT, dry_run: true, idempotency_key: crypto.randomUUID() }, ".rows"],
];
const text = async (frame: Frame, selector: string) => ((await frame.locator(selector).first().textContent()) ?? "").trim();

describe(`MCP Apps in Chromium through the ext-apps AppBridge (${engine})`, function () {
  this.timeout(180_000);
  let server: TestServer;
  let user: TestUser;
  let seed: AppSeed;
  let host: AppHost;
  let browser: Browser;
  let page: Page;

  before(async function () {
    browser = await launchBrowser(this);
    server = await startTestServer({}, { now: () => APPS_NOW });
    user = await server.createUser({ currency: "EUR", timezone: "UTC" });
    seed = await seedFinances(server, user.token);
    host = await startAppHost(server, user.token);
  });
  beforeEach(async () => {
    page = await (await browser.newContext({ viewport: { width: 900, height: 900 } })).newPage();
  });
  afterEach(async () => page?.context().close());
  after(async () => {
    await host?.close();
    await browser?.close();
    await server?.close();
  });

  it("tools/list links the five tools to their apps, and each resource is an HTML app with a CSP that allows no origin", async () => {
    const listed = (await host.client.listTools()).tools.filter((t) => t._meta);
    expect(Object.fromEntries(listed.map((t) => [t.name, t._meta]))).to.deep.equal({
      get_transaction_summary: { ui: { resourceUri: "ui://finance-mcp/spending" } },
      get_budget_status: { ui: { resourceUri: "ui://finance-mcp/budgets" } },
      get_net_worth: { ui: { resourceUri: "ui://finance-mcp/net-worth" } },
      get_cash_flow_forecast: { ui: { resourceUri: "ui://finance-mcp/forecast" } },
      import_transactions: { ui: { resourceUri: "ui://finance-mcp/import" } },
    });
    const resources = (await host.client.listResources()).resources.filter((r) => r.uri.startsWith("ui://"));
    expect(resources.map((r) => r.uri)).to.have.members(listed.map((t) => (t._meta as any).ui.resourceUri));
    for (const r of resources) {
      const [content] = (await host.client.readResource({ uri: r.uri })).contents as any[];
      expect(content.mimeType).to.equal("text/html;profile=mcp-app");
      expect(content.text).to.match(/^<!doctype html>/);
      expect(content.text, "nothing loaded from elsewhere").not.to.match(/<script[^>]+src=|<link[^>]+href=|<img[^>]+src=/i);
      expect(content._meta.ui.csp).to.deep.equal({ connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] });
    }
  });

  it("a token without the tools' scopes sees no app and cannot read one", async () => {
    const token = await user.tokenWith(["meta:whoami"]);
    const list = await server.rpc({ jsonrpc: "2.0", id: 1, method: "resources/list", params: {} }, token);
    expect(list.body.result.resources.filter((r: { uri: string }) => r.uri.startsWith("ui://"))).to.deep.equal([]);
    const read = await server.rpc({ jsonrpc: "2.0", id: 2, method: "resources/read", params: { uri: "ui://finance-mcp/spending" } }, token);
    expect(read.body.error.code).to.equal(-32602);
  });

  it("the spending breakdown shows each category's spending and compares it with the month before, through the host", async () => {
    const args = { date_from: "2026-11-01", date_to: "2026-11-30", group_by: "category" };
    const { frame, result } = await host.open(page, "get_transaction_summary", args);
    const s = result.structuredContent as { totals: { expenses: Money; income: Money; count: number }[]; groups: { key: string; expenses: Money }[] };
    await frame.locator(".delta.up, .delta.down").first().waitFor();
    expect(await text(frame, "[data-field=expenses]")).to.equal(eur(s.totals[0]!.expenses));
    expect(await text(frame, "[data-field=income]")).to.equal(eur(s.totals[0]!.income));
    const spent = s.groups.filter((g) => g.expenses.minor > 0);
    expect(spent.length).to.be.greaterThan(3);
    expect(await frame.locator(".bars li").count()).to.equal(spent.length);
    for (const g of spent) expect(await text(frame, `li[data-key="${g.key}"] .amount`), g.key).to.equal(eur(g.expenses));
    // Dining: 131.20 in November against 92.50 in October.
    expect(await text(frame, `li[data-key="Dining"] .delta`)).to.equal("▲42%");
    expect(await text(frame, `li[data-key="Health"] .delta`)).to.equal("new");
    expect(host.appCalls.at(-1)).to.deep.equal({
      name: "get_transaction_summary",
      arguments: { date_from: "2026-10-01", date_to: "2026-10-31", group_by: "category" },
    });
  });

  it("the spending breakdown by month draws a bar per month", async () => {
    const { frame, result } = await host.open(page, "get_transaction_summary", { date_from: "2026-09-01", date_to: "2026-11-30", group_by: "month" });
    const groups = (result.structuredContent as { groups: { key: string; expenses: Money }[] }).groups;
    await frame.locator(".bars.months li").first().waitFor();
    expect(await frame.locator(".bars.months li").count()).to.equal(3);
    for (const g of groups) expect(await text(frame, `li[data-key="${g.key}"] .amount`)).to.equal(eur(g.expenses));
  });

  it("the budget gauges show spent, limit, what is left and the pace of every budget", async () => {
    const { frame, result } = await host.open(page, "get_budget_status", {});
    const budgets = (
      result.structuredContent as {
        budgets: { budget_id: string; spent: Money; limit: Money; remaining: Money; utilization: number; percent_elapsed: number }[];
      }
    ).budgets;
    expect(budgets).to.have.length(3);
    await frame.locator("[data-budget]").first().waitFor();
    for (const b of budgets) {
      const card = `[data-budget="${b.budget_id}"]`;
      expect(await text(frame, `${card} [data-field=spent]`)).to.equal(eur(b.spent));
      expect(await text(frame, `${card} [data-field=limit]`)).to.equal(eur(b.limit));
      // What is left, or how far over, as a magnitude under a label that says which (never "Over by -€…").
      expect(await text(frame, `${card} [data-field=remaining]`)).to.equal(eur(b.remaining.value.replace(/^-/, "")));
      expect(await text(frame, `${card} .facts dt`)).to.equal(b.remaining.minor < 0 ? "Over by" : "Left");
      expect(await frame.locator(`${card} [role=meter]`).getAttribute("aria-valuenow")).to.equal(String(Math.round(b.utilization * 100)));
      expect(await text(frame, `${card} [data-field=percent_elapsed]`)).to.equal(`${Math.round(b.percent_elapsed)} %`);
    }
    expect(await frame.locator(".gauge.over").count()).to.equal(budgets.filter((b) => b.remaining.minor < 0).length);
  });

  it("the net-worth line ends at the latest net worth and lists every point", async () => {
    const { frame, result } = await host.open(page, "get_net_worth", { from: "2026-05-31", to: "2026-11-20", step: "month" });
    const n = result.structuredContent as { points: { date: string; home_net: Money }[]; change: { home_net: Money } };
    await frame.locator("[data-field=latest]").waitFor();
    expect(await text(frame, "[data-field=latest]")).to.equal(eur(n.points.at(-1)!.home_net));
    expect(await text(frame, "[data-field=change]")).to.contain(eur(n.change.home_net).replace(/^/, n.change.home_net.minor > 0 ? "+" : ""));
    expect(await frame.locator("svg.line circle").count()).to.equal(n.points.length);
    for (const p of n.points) expect(await text(frame, `tr[data-date="${p.date}"] [data-field=net]`)).to.equal(eur(p.home_net));
  });

  it("the forecast draws a line per wallet and the total, each with its low point, the events behind it and the months", async () => {
    const { frame, result } = await host.open(page, "get_cash_flow_forecast", {
      days: 60,
      what_if: [{ date: "2026-12-10", amount: "900.00", direction: "expense", label: "Trip" }],
    });
    const f = result.structuredContent as {
      safe_to_spend: Money;
      lowest: { date: string; balance: Money };
      wallets: { wallet_id: string; lowest: { balance: Money } }[];
      months: { month: string; end_balance: Money }[];
      low_point_events: { date: string; label: string }[];
      next_income: { date: string } | null;
      daily: { total: string[] };
    };
    await frame.locator("[data-field=safe_to_spend]").waitFor();
    expect(await text(frame, "[data-field=safe_to_spend]")).to.equal(eur(f.safe_to_spend));
    expect(await frame.locator("svg.line polyline").count()).to.equal(f.wallets.length + 1);
    expect(await frame.locator("svg.line circle.low").count()).to.equal(f.wallets.length + 1);
    expect(await text(frame, "section:has(svg[data-series=total]) [data-field=low]")).to.contain(eur(f.lowest.balance));
    for (const w of f.wallets) expect(await text(frame, `section:has(svg[data-wallet="${w.wallet_id}"]) [data-field=low]`)).to.contain(eur(w.lowest.balance));
    // The events behind the low point and the next income are marked on the total's line.
    expect(await frame.locator("svg[data-series=total] rect.event").count()).to.equal(f.low_point_events.length + (f.next_income ? 1 : 0));
    expect(await frame.locator("ul.events li").count()).to.equal(f.low_point_events.length);
    for (const m of f.months) expect(await text(frame, `tr[data-month="${m.month}"] [data-field=end_balance]`)).to.equal(eur(m.end_balance));
    expect(f.daily.total).to.have.length(61);
  });

  it("the import preview writes nothing until the person confirms; the confirm reaches import_transactions with the ticked duplicate", async () => {
    await server.call(
      "create_transaction",
      { wallet_id: seed.checking, date: "2026-11-17", amount: "4.20", direction: "expense", payee: "Corner Cafe", idempotency_key: crypto.randomUUID() },
      user.token,
    );
    const count = async () =>
      (await server.call("list_transactions", { wallet_id: seed.checking, date_from: "2026-11-15", limit: 200 }, user.token)).transactions.length;
    const before = await count();
    const args = { wallet_id: seed.checking, statement: APPS_STATEMENT, dry_run: true, idempotency_key: crypto.randomUUID() };
    const { frame, result } = await host.open(page, "import_transactions", args);
    const preview = result.structuredContent as {
      status: string;
      counts: { new: number; possible_duplicate: number };
      rows: { row: number; status: string }[];
    };
    expect(preview.status).to.equal("dry_run");
    expect(preview.counts).to.include({ new: 2, possible_duplicate: 1 });
    const possible = preview.rows.find((r) => r.status.startsWith("possible duplicate"))!;

    await frame.locator("button.primary").waitFor();
    expect(await text(frame, "[data-field=new]")).to.equal("2");
    expect(await frame.locator("tbody tr").count()).to.equal(preview.rows.length);
    expect(await text(frame, `tr[data-row="${possible.row}"] .status`)).to.equal(possible.status);
    expect(await text(frame, "button.primary")).to.equal("Import 2 rows");
    expect(await count(), "the preview wrote nothing").to.equal(before);
    expect(host.appCalls.filter((c) => c.name === "import_transactions")).to.deep.equal([]);

    await frame.locator(`input[data-row="${possible.row}"]`).check();
    expect(await text(frame, "button.primary")).to.equal("Import 3 rows");
    expect(await count(), "ticking writes nothing").to.equal(before);
    await frame.locator("button.primary").click();
    await frame.locator("[data-field=created]").waitFor();
    expect(await text(frame, "[data-field=created]")).to.equal("3 transactions added.");
    expect(await count()).to.equal(before + 3);
    const sent = host.appCalls.filter((c) => c.name === "import_transactions");
    expect(sent).to.have.length(1);
    expect(sent[0]!.arguments).to.deep.include({ wallet_id: seed.checking, statement: APPS_STATEMENT, dry_run: false, import_rows: [possible.row] });
    expect(sent[0]!.arguments.idempotency_key).to.not.equal(args.idempotency_key);
    const context = await page.evaluate(() => (globalThis as unknown as { modelContext: { content: { text: string }[] }[] }).modelContext);
    expect(context.at(-1)!.content[0]!.text).to.contain("3 transactions added");
  });

  it("the CSP from the resource's _meta stops a fetch to another origin; the same origin and the host page are not stopped", async () => {
    const { frame } = await host.open(page, "get_budget_status", {});
    await frame.locator("[data-budget]").first().waitFor();
    const other = `${host.hostUrl}/ping`;
    const outcome = await frame.evaluate(async (url) => {
      const violations: string[] = [];
      document.addEventListener("securitypolicyviolation", (e) => violations.push(`${e.effectiveDirective} ${e.blockedURI}`));
      // (no named functions in here: tsx would wrap them in a helper the page does not have)
      const [away, self] = await Promise.all(
        [url, "/ping"].map((u) =>
          fetch(u).then(
            (r) => `ok ${r.status}`,
            () => "blocked",
          ),
        ),
      );
      await new Promise((r) => setTimeout(r, 50));
      return { away, self, violations };
    }, other);
    expect(outcome.away).to.equal("blocked");
    expect(outcome.violations).to.include(`connect-src ${other}`);
    expect(outcome.self).to.equal("ok 200");
    // Positive control: the same URL answers a page without that CSP.
    expect(await page.evaluate((url) => fetch(url).then((r) => r.status), other)).to.equal(200);
  });

  it("follows the host's theme: dark text on light, light text on dark", async () => {
    const colours: Record<string, string> = {};
    for (const theme of ["light", "dark"] as const) {
      const { frame } = await host.open(page, "get_budget_status", {}, theme);
      await frame.locator("[data-budget]").first().waitFor();
      colours[theme] = await frame.evaluate(() => getComputedStyle(document.body).color + "|" + getComputedStyle(document.body).backgroundColor);
    }
    // The background is the host's (transparent app, checked with the directory's other asks below).
    expect(colours.light).to.equal("rgb(27, 29, 33)|rgba(0, 0, 0, 0)");
    expect(colours.dark).to.equal("rgb(236, 237, 239)|rgba(0, 0, 0, 0)");
  });

  it("fits a phone's width: no app scrolls sideways, nor does the import's table", async () => {
    const phone = await (await browser.newContext({ viewport: { width: 390, height: 800 } })).newPage();
    try {
      for (const [tool, args, ready] of appCalls(seed)) {
        const { frame } = await host.open(phone, tool, args);
        await frame.locator(ready).first().waitFor();
        const widths = await frame.evaluate(() => {
          const root = document.documentElement;
          const box = document.querySelector(".scroll");
          return { page: root.scrollWidth - root.clientWidth, box: box ? box.scrollWidth - box.clientWidth : 0, width: root.clientWidth };
        });
        expect(widths.width, tool).to.be.below(390);
        expect(widths, tool).to.deep.include({ page: 0, box: 0 });
        if (tool === "import_transactions") {
          // The measure sees an overflow when there is one.
          const wide = await frame.evaluate(() => {
            document.querySelector("main")!.append(Object.assign(document.createElement("div"), { style: "width: 1000px; height: 1px" }));
            return document.documentElement.scrollWidth - document.documentElement.clientWidth;
          });
          expect(wide).to.be.above(0);
        }
      }
    } finally {
      await phone.context().close();
    }
  });

  it("each app in both themes is what Claude's directory asks: no serious or critical axe violation, at most 500 px tall, no nested scroll, targets of 44 px, a transparent background, no link of its own", async () => {
    const problems: string[] = [];
    for (const theme of ["light", "dark"] as const) {
      const themed = await (await browser.newContext({ viewport: { width: 900, height: 900 }, bypassCSP: true })).newPage();
      try {
        for (const [tool, args, ready] of appCalls(seed)) {
          const { frame } = await host.open(themed, tool, args, theme);
          await frame.locator(ready).first().waitFor();
          const at = `${tool} (${theme})`;
          const measured = await frame.evaluate(() => {
            const out: string[] = [];
            const height = document.documentElement.scrollHeight;
            if (height > 500) out.push(`${height} px tall`);
            for (const el of Array.from(document.querySelectorAll<HTMLElement>("body *"))) {
              const style = getComputedStyle(el);
              // (no named helper here: the bundler would wrap it in a __name the frame does not have)
              if (
                (/auto|scroll/.test(style.overflowY) && el.scrollHeight > el.clientHeight) ||
                (/auto|scroll/.test(style.overflowX) && el.scrollWidth > el.clientWidth)
              )
                out.push(`nested scroll in ${el.tagName.toLowerCase()}.${el.className}`);
            }
            for (const el of Array.from(document.querySelectorAll<HTMLElement>("button, input, select, textarea, [role=button], [tabindex]"))) {
              const box = (el.closest("label") ?? el).getBoundingClientRect();
              if (box.width < 44 || box.height < 44) out.push(`target ${el.tagName.toLowerCase()} ${Math.round(box.width)}x${Math.round(box.height)}`);
            }
            for (const el of [document.documentElement, document.body]) {
              const bg = getComputedStyle(el).backgroundColor;
              if (bg !== "rgba(0, 0, 0, 0)" && bg !== "transparent") out.push(`${el.tagName.toLowerCase()} background ${bg}`);
            }
            if (document.querySelector("a[href]")) out.push("a link of its own (links open through the host)");
            return out;
          });
          for (const m of measured) problems.push(`${at}: ${m}`);
          // Contrast as the person sees it: the app's text over the host's surface, which shows through the
          // transparent app (axe cannot see past the frame, and would assume white behind it).
          const surface = await themed.evaluate(() => getComputedStyle(document.body).backgroundColor);
          await frame.evaluate((bg) => void (document.documentElement.style.background = bg), surface);
          for (const v of await seriousViolations(frame)) problems.push(`${at}: ${v}`);
        }
      } finally {
        await themed.context().close();
      }
    }
    expect(problems).to.deep.equal([]);
  });

  it("clients without Apps get the same result (text and data) as a client with them", async () => {
    const args = { date_from: "2026-11-01", date_to: "2026-11-30", group_by: "category" };
    const withApps = await host.client.callTool({ name: "get_transaction_summary", arguments: args });
    const plain = await server.rpc({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_transaction_summary", arguments: args } }, user.token, {
      "mcp-protocol-version": "2025-06-18",
    });
    expect(plain.body.result.content).to.deep.equal(withApps.content);
    expect(plain.body.result.structuredContent).to.deep.equal(withApps.structuredContent);
  });
});
