/**
 * npx tsx scripts/bulk-edit-profile.ts <copy of a bench database> [calls] — the 5,000-row bulk edit and
 * its undo, in one process, over a database the benchmark kept (`npm run bench -- --keep`; copy the file
 * first: the edits are committed). Runs the real server in-process against the file (no migration), makes
 * a token for the main user (the user with the most transactions), finds the bench's window (the newest
 * dates before the recent month holding at most 5,000 rows), then alternates the bench's two edits
 * (category and a tag; the other category, the tag removed) `calls` times and undoes the last ones,
 * newest first. Prints each call's wall time and the process's CPU time (user + system; on SQLite the
 * database's work is in it, so wall minus CPU is waiting: the disk, or a core other processes hold), and
 * with STATEMENTS=1 the SQL statements each call ran and their time. CACHE_MB and MMAP_MB set the
 * connection's cache_size and mmap_size for an A/B run; WINDOW=from..to skips the window search.
 * Run under `node --cpu-prof --import tsx` for a CPU profile.
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { closeServices, createApp, createServices } from "../src/app.js";
import { createToken, KNOWN_SCOPES } from "../src/auth/tokens.js";
import { loadConfig } from "../src/config.js";
import { createDb } from "../src/db/knex.js";
import { RECENT_DAYS } from "./bench/data.js";

const [file, callsArg] = process.argv.slice(2);
if (!file) throw new Error("usage: scripts/bulk-edit-profile.ts <sqlite file> [calls]");
const calls = Number(callsArg ?? 6);
const config = loadConfig({ LOG_LEVEL: process.env.LOG_LEVEL ?? "silent", RATE_LIMIT_MCP_PER_MINUTE: "100000000", DATABASE_URL: `sqlite:${file}` });
const db = createDb(config.databaseUrl);
const services = await createServices(config, db);
const server = createServer(createApp(services));
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const mcpUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/mcp`;

const main = (await db("transactions").select("user_id").count({ n: "*" }).groupBy("user_id").orderBy("n", "desc").first()) as { user_id: string };
const { token } = await createToken(
  db,
  main.user_id,
  { name: `profile ${randomUUID().slice(0, 8)}`, scopes: [...KNOWN_SCOPES], expiresInDays: 1 },
  config.tokenPepper,
);

let statements: { sql: string; ms: number }[] = [];
if (process.env.STATEMENTS === "1") {
  const started = new Map<string, number>();
  db.on("query", (q: { __knexQueryUid: string }) => started.set(q.__knexQueryUid, performance.now()));
  db.on("query-response", (_r: unknown, q: { __knexQueryUid: string; sql: string }) =>
    statements.push({ sql: q.sql.replace(/\(\?(, \?)+\)/g, "(?…)").slice(0, 110), ms: performance.now() - (started.get(q.__knexQueryUid) ?? 0) }),
  );
}

async function rpc(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await fetch(mcpUrl, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: Record<string, unknown>; error?: unknown };
  if (!body.result) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}

const dayString = (n: number) => new Date(n * 86_400_000).toISOString().slice(0, 10);
const dayNumber = (s: string) => Math.floor(Date.parse(`${s}T00:00:00Z`) / 86_400_000);
const count = async (from: number, to: number) =>
  (await rpc("list_transactions", { date_from: dayString(from), date_to: dayString(to), limit: 1 })).total_count as number;
// The bench's window ends the day before its recent days (scripts/bench/data.ts, RECENT_DAYS, ending today).
const newest = (await db("transactions").where("user_id", main.user_id).max({ d: "date" }).first()) as { d: string };
const end = dayNumber(newest.d) - RECENT_DAYS;
// WINDOW=from..to (the window of an earlier run) skips the search.
let window = process.env.WINDOW?.split("..");
if (!window) {
  let lo = end - 3650;
  let hi = end;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if ((await count(mid, end)) <= 5000) hi = mid;
    else lo = mid;
  }
  window = [dayString(hi), dayString(end)];
}
const filter = { date_from: window[0]!, date_to: window[1]! };
const expected = await count(dayNumber(filter.date_from), dayNumber(filter.date_to));
if (process.env.CACHE_MB) await db.raw(`PRAGMA cache_size = -${Number(process.env.CACHE_MB) * 1024}`);
if (process.env.MMAP_MB) await db.raw(`PRAGMA mmap_size = ${Number(process.env.MMAP_MB) * 1024 * 1024}`);
console.log(
  `window ${filter.date_from}..${filter.date_to}: ${expected} rows; cache_size ${String((await db.raw("PRAGMA cache_size"))[0]?.cache_size)}; load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);

async function timed(label: string, method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  statements = [];
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const result = await rpc(method, params);
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  console.log(`${label}: wall ${wall.toFixed(0)} ms, cpu ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms (sys ${(cpu.system / 1000).toFixed(0)})`);
  if (statements.length > 0) {
    const byText = new Map<string, { n: number; ms: number }>();
    for (const s of statements) {
      const e = byText.get(s.sql) ?? { n: 0, ms: 0 };
      e.n++;
      e.ms += s.ms;
      byText.set(s.sql, e);
    }
    for (const [sql, e] of [...byText].sort((a, b) => b[1].ms - a[1].ms).slice(0, 8))
      console.log(`   ${e.ms.toFixed(0).padStart(6)} ms ${String(e.n).padStart(4)}× ${sql}`);
  }
  return result;
}

const auditIds: string[] = [];
for (let i = 0; i < calls; i++) {
  const set = i % 2 === 0 ? { set_category: "Bench A", add_tags: ["bench"] } : { set_category: "Bench B", remove_tags: ["bench"] };
  const done = await timed(`update_transactions #${i + 1}`, "update_transactions", { filter, expected_count: expected, ...set, idempotency_key: randomUUID() });
  auditIds.push(String(done.audit_id));
}
for (let i = 0; i < Math.min(2, auditIds.length); i++)
  await timed(`undo_change #${i + 1}`, "undo_change", { audit_id: auditIds.pop()!, idempotency_key: randomUUID() });

server.closeAllConnections();
await new Promise<void>((resolve) => server.close(() => resolve()));
await closeServices(services);
