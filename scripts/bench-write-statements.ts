/**
 * The statements (on Postgres, the round trips: knex sends one at a time) that one call sends to the
 * database, whole calls including authentication and the limit, as the server's own knex reports them:
 *
 *   FINANCE_TEST_ENGINE=postgres npx tsx scripts/bench-write-statements.ts [--redis] [--calls 5]
 *
 * For whoami, tools/call whoami, get_wallet_balance and create_transaction (a categorised, tagged
 * expense: the benchmark's write), each call made --calls times after one unmeasured call (the token then
 * sits in the cache), printed per call with each statement classified (token, limit, idempotency key,
 * audit, change event, transaction control, the tool's own). docs/performance.md, "Scale-out and group
 * commit, measured". The test server of the test suite (test/helpers/server.ts) runs in this process.
 */
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { engine } from "../test/helpers/database.js";
import { startTestServer } from "../test/helpers/server.js";

const { values } = parseArgs({ options: { redis: { type: "boolean", default: false }, calls: { type: "string", default: "5" } } });
const calls = Math.max(1, Math.min(50, Number(values.calls) || 5));

function kind(sql: string): string {
  const s = sql.trim().toLowerCase();
  if (/^(begin|commit|rollback|savepoint|release)/.test(s)) return "transaction control";
  if (s.includes("pg_try_advisory") || s.includes("pg_advisory")) return "locks and capture switch";
  if (s.startsWith('with a as (insert into "audit_log"')) return "audit, captured rows, key and change event";
  if (s.includes("rate_limits")) return "limit";
  if (s.includes("api_tokens") || s.includes("tokens")) return s.includes("idempotency") ? "idempotency key" : "token";
  if (s.includes("idempotency_keys")) return "idempotency key";
  if (s.includes("pg_notify")) return "change event (notify)";
  if (s.includes("audit")) return "audit";
  return "tool";
}

const server = await startTestServer(values.redis ? { REDIS_URL: process.env.REDIS_URL || "redis://127.0.0.1:6379", TOKEN_CACHE: "on" } : {});
try {
  const u = await server.createUser();
  const wallet = (
    await server.call(
      "create_wallet",
      { name: "Checking", type: "checking", currency: "USD", opening_balance: "50.00", idempotency_key: randomUUID() },
      u.token,
    )
  ).wallet as { id: string };
  const cases: Record<string, () => Promise<unknown>> = {
    whoami: () => server.rpc({ jsonrpc: "2.0", id: 1, method: "whoami" }, u.token),
    "tools/call whoami": () => server.rpc({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "whoami", arguments: {} } }, u.token),
    get_wallet_balance: () => server.call("get_wallet_balance", { wallet_id: wallet.id }, u.token),
    create_transaction: () =>
      server.call(
        "create_transaction",
        {
          wallet_id: wallet.id,
          amount: "12.34",
          direction: "expense",
          payee: "Bench Coffee",
          description: "statements",
          category: "Dining",
          tags: ["coffee"],
          idempotency_key: randomUUID(),
        },
        u.token,
      ),
  };
  console.log(`engine ${engine}, limits in ${values.redis ? "Redis" : "the database"}; statements per call (median of ${calls}, after one unmeasured call)`);
  for (const [name, run] of Object.entries(cases)) {
    await run();
    const counts: number[] = [];
    let last: string[] = [];
    for (let i = 0; i < calls; i++) {
      const seen: string[] = [];
      const listener = (q: { sql: string }) => seen.push(q.sql);
      server.db.on("query", listener);
      try {
        await run();
      } finally {
        server.db.off("query", listener);
      }
      counts.push(seen.length);
      last = seen;
    }
    counts.sort((a, b) => a - b);
    const byKind = new Map<string, number>();
    for (const s of last) byKind.set(kind(s), (byKind.get(kind(s)) ?? 0) + 1);
    console.log(`\n${name}: ${counts[Math.floor(counts.length / 2)]} statements (${[...byKind].map(([k, n]) => `${k} ${n}`).join(", ")})`);
    for (const s of last) console.log(`  [${kind(s)}] ${s.replace(/\s+/g, " ").slice(0, 150)}`);
  }
} finally {
  await server.close();
}
process.exit(0);
