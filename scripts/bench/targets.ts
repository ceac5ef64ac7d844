/**
 * What is measured on the real server: one entry per tool (plus tools/list and the MCP tools/call path),
 * each as the JSON-RPC request a client sends. Direct OpenRPC calls (`"method": "<tool>"`) for the tools,
 * MCP `tools/list` and `tools/call` for the protocol rows. The requests rotate over many tokens (so the
 * per-token rate limiter runs its real path with many keys) and over a few argument variants.
 */
import { randomUUID } from "node:crypto";
import type { Request as AcRequest } from "autocannon";
import type { Fixture } from "./data.js";
import { call as httpCall, type HttpCall } from "./load.js";
import { camtStatement, girokontoCsv, mt940Statement } from "./statement.js";

export const MCP_PATH = "/api/v1/mcp";

export type TargetKind = "read" | "write" | "protocol";

export interface Target {
  id: string;
  /** How the row is labelled in the tables. */
  label: string;
  kind: TargetKind;
  /** Read through the user's history: measured at every scale (the others at the largest only). */
  historyBound: boolean;
  /** One of the two tools of the latency-against-history target (measured at every scale even in --quick). */
  scaling?: boolean;
  /** Too heavy for the load run: measured one request at a time only. */
  alone?: boolean;
  /** The i-th request variant (token and arguments). */
  call(i: number): HttpCall;
  /** Runs once before the target is probed (finds what its calls need on the seeded server). */
  prepare?(origin: string): Promise<void>;
  /** How many distinct variants there are (the load cycles over them). */
  variants: number;
  /** True when a 2xx body is a success. */
  verify(body: string): boolean;
}

const BASE_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

function rpc(method: string, params: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });
}

/** A JSON-RPC success: a result and no error object (a tool's text block carries escaped JSON only). */
export function isRpcResult(body: string): boolean {
  return body.includes('"result":') && !body.includes('"error":{"code":');
}

function isToolSuccess(body: string): boolean {
  return isRpcResult(body) && !body.includes('"isError":true');
}

export interface TargetContext {
  fixture: Fixture;
  today: string;
  /** Marks this run's create_transaction rows (their description) so that the check can count them. */
  writeMarker: string;
}

export function buildTargets(ctx: TargetContext): Target[] {
  const { fixture } = ctx;
  const all = [...fixture.mainTokens, ...fixture.otherTokens];
  const main = fixture.mainTokens;
  const auth = (tokens: string[], i: number) => ({ ...BASE_HEADERS, authorization: `Bearer ${tokens[i % tokens.length]}` });
  const month = fixture.benchMonth;
  const direct = (
    id: string,
    tokens: string[],
    params: (i: number) => Record<string, unknown>,
    kind: TargetKind,
    historyBound: boolean,
    variants = tokens.length,
  ): Target => ({
    id,
    label: id,
    kind,
    historyBound,
    variants,
    call: (i) => ({ path: MCP_PATH, headers: auth(tokens, i), body: rpc(id, params(i)) }),
    verify: isRpcResult,
  });

  const queries = [
    "how do I retry a payment that timed out",
    "export my transactions to a spreadsheet",
    "what happens to unspent budget at the end of the month",
    "how do I create a token for my chatbot",
    "change my default currency",
    "delete a wallet I no longer use",
  ];
  // The measured write: a new expense in the wallet with a new key each time, marked for the write check.
  const expense = (walletId: string, i: number) =>
    rpc("create_transaction", {
      wallet_id: walletId,
      date: ctx.today,
      amount: `${10 + (i % 40)}.${String(i % 100).padStart(2, "0")}`,
      direction: "expense",
      payee: "Bench Coffee",
      description: ctx.writeMarker,
      category: "Dining",
      tags: ["coffee"],
      idempotency_key: randomUUID(),
    });
  // The import preview of a 5,000-row bank CSV (about 740 KB, over MAX_BODY_BYTES: import_transactions's own body limit).
  const statement = girokontoCsv(5000);
  const importKey = randomUUID();
  // The same 5,000 rows as MT940 and as CAMT.053 (issue 37: each stays within the CSV's bound), in the
  // main wallet's currency (a CSV states none; these state theirs).
  const others = [
    { id: "import_transactions preview (MT940)", label: "import_transactions (5,000-row MT940 preview)", text: mt940Statement(5000, "USD"), key: randomUUID() },
    {
      id: "import_transactions preview (CAMT)",
      label: "import_transactions (5,000-row CAMT.053 preview)",
      text: camtStatement(5000, "USD"),
      key: randomUUID(),
    },
  ];
  const expressions = ["0.1 + 0.2", "15% of 80", "round(1234.5678 * 1.0825, 2)", "(4500 - 1200) / 3", "1250.75 * 12 - 99.99"];
  const modernMeta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1.0.0" },
  };

  return [
    {
      id: "tools/list",
      label: "tools/list (MCP)",
      kind: "protocol",
      historyBound: false,
      variants: all.length,
      call: (i) => ({ path: MCP_PATH, headers: { ...auth(all, i), "mcp-protocol-version": "2025-11-25" }, body: rpc("tools/list", {}) }),
      verify: (b) => isRpcResult(b) && b.includes('"tools":['),
    },
    direct("whoami", all, () => ({}), "read", false),
    {
      id: "tools/call whoami",
      label: "tools/call whoami (MCP 2025-11-25)",
      kind: "protocol",
      historyBound: false,
      variants: all.length,
      call: (i) => ({
        path: MCP_PATH,
        headers: { ...auth(all, i), "mcp-protocol-version": "2025-11-25" },
        body: rpc("tools/call", { name: "whoami", arguments: {} }),
      }),
      verify: isToolSuccess,
    },
    {
      id: "tools/call whoami modern",
      label: "tools/call whoami (MCP 2026-07-28)",
      kind: "protocol",
      historyBound: false,
      variants: all.length,
      call: (i) => ({
        path: MCP_PATH,
        headers: { ...auth(all, i), "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "whoami" },
        body: rpc("tools/call", { name: "whoami", arguments: {}, _meta: modernMeta }),
      }),
      verify: isToolSuccess,
    },
    direct("get_wallet_balance", main, (i) => ({ wallet_id: fixture.walletIds[i % fixture.walletIds.length] }), "read", true),
    {
      ...direct("list_transactions", main, (i) => ({ wallet_id: fixture.walletIds[i % 3], date_from: month.from, date_to: month.to, limit: 50 }), "read", true),
      scaling: true,
    },
    { ...direct("get_transaction_summary", main, () => ({ date_from: month.from, date_to: month.to, group_by: "category" }), "read", true), scaling: true },
    direct("get_budget_status", main, () => ({}), "read", true),
    direct("list_bill_reminders", main, () => ({ days_ahead: 30 }), "read", false),
    direct("list_recurring", main, () => ({ include_ended: true }), "read", true),
    // A year ahead: every payee's series, each counted day by day (docs/decisions.md#cash-flow-forecast).
    { ...direct("get_cash_flow_forecast", main, () => ({ days: 365 }), "read", true), scaling: true },
    direct("get_net_worth", main, () => ({ from: month.from, to: ctx.today, step: "week" }), "read", true),
    // "What changed today?": the newest changes (the seeded history has few audit rows; each is read
    // with its captured rows).
    direct("list_changes", main, () => ({ limit: 15 }), "read", true),
    direct("search_product_knowledge", all, (i) => ({ query: queries[i % queries.length], limit: 5 }), "read", false),
    direct("calculate", all, (i) => ({ expression: expressions[i % expressions.length] }), "read", false),
    {
      ...direct(
        "import_transactions",
        main,
        () => ({ wallet_id: fixture.walletIds[0], statement, rows_limit: 20, idempotency_key: importKey, dry_run: true }),
        "read",
        false,
        1,
      ),
      id: "import_transactions preview",
      alone: true,
      label: "import_transactions (5,000-row CSV preview)",
      call: (i) => ({
        path: MCP_PATH,
        headers: auth(main, i),
        body: rpc("import_transactions", { wallet_id: fixture.walletIds[0], statement, rows_limit: 20, idempotency_key: importKey, dry_run: true }),
      }),
    },
    ...others.map((o) => ({
      ...direct(
        "import_transactions",
        main,
        () => ({ wallet_id: fixture.walletIds[0], statement: o.text, rows_limit: 20, idempotency_key: o.key, dry_run: true }),
        "read",
        false,
        1,
      ),
      id: o.id,
      alone: true,
      label: o.label,
      call: (i: number) => ({
        path: MCP_PATH,
        headers: auth(main, i),
        body: rpc("import_transactions", { wallet_id: fixture.walletIds[0], statement: o.text, rows_limit: 20, idempotency_key: o.key, dry_run: true }),
      }),
    })),
    ...bulkTargets(ctx, (i) => auth(main, i)),
    {
      id: "create_transaction",
      label: "create_transaction",
      kind: "write",
      historyBound: false,
      variants: main.length,
      call: (i) => ({
        path: MCP_PATH,
        headers: auth(main, i),
        body: expense(fixture.walletIds[i % 3]!, i),
      }),
      verify: isRpcResult,
    },
    {
      // The same write spread over the 1,000 other users (each in their own wallet): what the service
      // can write when writes do not queue behind one user's write lock.
      id: "create_transaction many users",
      label: "create_transaction (1,000 users)",
      kind: "write",
      historyBound: false,
      variants: fixture.otherTokens.length,
      call: (i) => ({
        path: MCP_PATH,
        headers: auth(fixture.otherTokens, i),
        body: expense(fixture.otherWalletIds[i % fixture.otherWalletIds.length]!, i),
      }),
      verify: isRpcResult,
    },
  ];
}

/** A direct call's answer (its result), or an error naming the call. */
async function result(origin: string, c: HttpCall): Promise<Record<string, any>> {
  const a = await httpCall(origin, c, 120_000);
  const j = a.json as { result?: Record<string, any>; error?: { message?: string } } | undefined;
  if (!j?.result) throw new Error(`bench: ${c.body.slice(0, 80)} failed: HTTP ${a.status} ${j?.error?.message ?? a.text.slice(0, 200)}`);
  return j.result;
}

const dayNumber = (d: string) => Date.parse(`${d}T00:00:00Z`) / 86_400_000;
const dayString = (n: number) => new Date(n * 86_400_000).toISOString().slice(0, 10);

/**
 * The bulk edit and the undo, measured alone at the spec's bound: each call changes a window of the
 * history (before the recent window, so the measured create_transaction rows never fall in it) holding
 * at most 5,000 transactions, found by bisecting date_from with list_transactions' total_count.
 * update_transactions alternates two edits of one window (category and a tag, each call changes every
 * row); undo_change takes back, newest first, edits made beforehand on windows of their own.
 */
function bulkTargets(ctx: TargetContext, headers: (i: number) => Record<string, string>): Target[] {
  const { fixture } = ctx;
  const MAX = 5000;
  const direct = (method: string, params: Record<string, unknown>, i = 0): HttpCall => ({
    path: MCP_PATH,
    headers: headers(i),
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  /** The next window ending the day before `end`: the earliest date_from keeping at most MAX rows. */
  async function windowBefore(origin: string, end: number): Promise<{ filter: Record<string, string>; count: number }> {
    const to = dayString(end - 1);
    const count = async (from: number) =>
      (await result(origin, direct("list_transactions", { date_from: dayString(from), date_to: to, limit: 1 }))).total_count as number;
    let lo = dayNumber(fixture.historyFrom);
    let hi = end - 1; // count(hi) is small; find the smallest from with count <= MAX
    if ((await count(lo)) <= MAX) hi = lo;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if ((await count(mid)) <= MAX) hi = mid;
      else lo = mid;
    }
    return { filter: { date_from: dayString(hi), date_to: to }, count: await count(hi) };
  }
  const historyEnd = dayNumber(fixture.recentFrom);
  let edit: { filter: Record<string, string>; count: number } | undefined;
  let n = 0;
  const undoIds: string[] = [];
  const verify = (body: string) => isRpcResult(body) && body.includes('"status":"committed"');
  return [
    {
      id: "update_transactions",
      label: "update_transactions (5,000 rows, category and a tag)",
      kind: "write",
      historyBound: false,
      alone: true,
      variants: 1,
      async prepare(origin) {
        edit = await windowBefore(origin, historyEnd);
      },
      call: (i) =>
        direct(
          "update_transactions",
          n++ % 2 === 0
            ? { filter: edit!.filter, expected_count: edit!.count, set_category: "Bench A", add_tags: ["bench"], idempotency_key: randomUUID() }
            : { filter: edit!.filter, expected_count: edit!.count, set_category: "Bench B", remove_tags: ["bench"], idempotency_key: randomUUID() },
          i,
        ),
      verify,
    },
    {
      id: "undo_change",
      label: "undo_change (a 5,000-row bulk edit)",
      kind: "write",
      historyBound: false,
      alone: true,
      variants: 1,
      async prepare(origin) {
        // probe + 1 warm-up + 10 measured: edits of one window, undone newest first (each undo finds its
        // rows as its edit left them, since the later edits are undone before it).
        const w = edit ?? (await windowBefore(origin, historyEnd));
        for (let k = 0; k < 12; k++) {
          const set = k % 2 === 0 ? { set_category: "Bench undo A", add_tags: ["bench-undo"] } : { set_category: "Bench undo B", remove_tags: ["bench-undo"] };
          const done = await result(
            origin,
            direct("update_transactions", { filter: w.filter, expected_count: w.count, ...set, idempotency_key: randomUUID() }),
          );
          undoIds.push(String(done.audit_id));
        }
      },
      call: (i) => direct("undo_change", { audit_id: undoIds.pop() ?? "1", idempotency_key: randomUUID() }, i),
      verify,
    },
    {
      id: "set_exchange_rate",
      label: "set_exchange_rate",
      kind: "write",
      historyBound: false,
      alone: true,
      variants: 1,
      call: (i) =>
        direct(
          "set_exchange_rate",
          { base: "USD", quote: "EUR", rate: `0.9${String(n++ % 1000).padStart(3, "0")}`, date: ctx.today, idempotency_key: randomUUID() },
          i,
        ),
      verify,
    },
  ];
}

/**
 * The autocannon request list of a target: one request whose setupRequest hands out the variants in
 * turn across all connections (so the tokens rotate globally), prebuilt for reads; writes are built
 * afresh each time with a new idempotency key. (A prebuilt list of every variant would be built again
 * by each of autocannon's connections before the run starts: seconds for a thousand tokens.)
 */
export function autocannonRequests(target: Target, limit = 5000): AcRequest[] {
  let i = 0;
  if (target.kind === "write") {
    return [{ method: "POST", path: MCP_PATH, setupRequest: (req) => ({ ...req, ...target.call(i++), method: "POST" }) }];
  }
  const calls = Array.from({ length: Math.min(target.variants, limit) }, (_, k) => target.call(k));
  return [
    {
      method: "POST",
      path: MCP_PATH,
      setupRequest: (req) => {
        const c = calls[i++ % calls.length]!;
        return { ...req, method: "POST", path: c.path, headers: c.headers, body: c.body };
      },
    },
  ];
}
