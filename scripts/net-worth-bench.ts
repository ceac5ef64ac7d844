/**
 * npx tsx scripts/net-worth-bench.ts [--scales 10000,100000,1000000] [--sqlite-dir DIR] [--postgres] [--keep-pg] [--calls N] [--rounds R]
 *
 * get_net_worth's read, A/B back to back in one process on the benchmark's data (scripts/bench/data.ts,
 * its settings): A is the read as it was before the one-statement read (a statement for the currency,
 * the wallets, the first days, the rates, and a ledgerSums per day of the series), B is
 * readNetWorthInputs (src/domain/networth/ledger.ts); both answers go through the same netWorthFrom and
 * must be equal. The request is the benchmark's: a weekly series from the start of the last complete
 * month to today. Per variant: calls one at a time (p50 / p90 wall), this process's CPU per call, on
 * Postgres the database backend's CPU per call (from /proc of its pid: the machine is this one), and
 * the statements per call. A and B alternate in blocks of N calls, R rounds, so load drifts hit both.
 *
 * --sqlite-dir reuses bench-<scale>.sqlite files a `npm run bench -- --keep` left (seeded the same way);
 * otherwise SQLite files are seeded into a temporary directory. Postgres databases are named
 * fmcp_networth_bench_<scale>, reused when they exist, and dropped at the end unless --keep-pg.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { isDeepStrictEqual } from "node:util";
import knexFactory, { type Knex } from "knex";
import pg from "pg";
import { knexConfig } from "../src/db/knex.js";
import { readNetWorthInputs, type CountedWallet, type NetWorthInputs } from "../src/domain/networth/ledger.js";
import type { ExchangeRate } from "../src/domain/networth/rates.js";
import { netWorthFrom, seriesDays } from "../src/domain/networth/worth.js";
import { ledgerSums, listWalletRows } from "../src/domain/wallets/store.js";
import { buildData, type DataSpec } from "./bench/data.js";
import { seedPostgres, seedSqlite } from "./bench/seed.js";

const { values } = parseArgs({
  options: {
    scales: { type: "string" },
    "sqlite-dir": { type: "string" },
    postgres: { type: "boolean", default: false },
    "no-sqlite": { type: "boolean", default: false },
    "keep-pg": { type: "boolean", default: false },
    calls: { type: "string" },
    rounds: { type: "string" },
  },
});
const scales = (values.scales ?? "10000,100000,1000000").split(",").map(Number);
const calls = Number(values.calls ?? 50);
const rounds = Number(values.rounds ?? 6);
const PG_ADMIN_URL = process.env.BENCH_PG_URL || process.env.PG_TEST_URL || "postgres://postgres@127.0.0.1:5432/postgres";
const today = new Date().toISOString().slice(0, 10);
/** The benchmark's own data settings (scripts/bench.ts dataSpec, not --quick); the pepper only changes token hashes. */
const spec = (scale: number): DataSpec => ({
  scale,
  today,
  recentPerDay: 10,
  historyYears: 10,
  tokens: 100,
  otherUsers: 1000,
  otherTransactions: 20,
  pepper: "net-worth-bench",
  seed: 8,
});

/** The read before it was one statement (commit e0f4985's netWorth), for the A side. */
async function legacyInputs(db: Knex, userId: string, days: readonly string[]): Promise<NetWorthInputs> {
  const user = await db("users").where({ id: userId }).first("default_currency");
  const home = String(user?.default_currency ?? "USD");
  const rows = (await listWalletRows(db, userId, { includeArchived: false })).filter((w) => w.in_net_worth);
  const undated = rows.filter((w) => w.opening_date === null);
  const firstTx = new Map<string, string | null>();
  if (undated.length > 0) {
    const one = "SELECT ? AS wallet_id, (SELECT min(date) FROM transactions WHERE user_id = ? AND wallet_id = ?) AS first";
    const result: unknown = await db.raw(
      undated.map(() => one).join(" UNION ALL "),
      undated.flatMap((w) => [w.id, userId, w.id]),
    );
    const found = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as { wallet_id: string; first: string | null }[];
    for (const r of found) firstTx.set(String(r.wallet_id), r.first === null ? null : String(r.first));
  }
  const wallets: CountedWallet[] = rows.map((w) => {
    const created = w.created_at.slice(0, 10);
    const tx = firstTx.get(w.id) ?? null;
    const first = w.opening_date ?? (tx !== null && tx < created ? tx : created);
    return { id: w.id, type: w.type, currency: w.currency, opening_balance_minor: w.opening_balance_minor, opening_date: w.opening_date, first_day: first };
  });
  const rates = (
    await db("exchange_rates")
      .where({ user_id: userId })
      .andWhere((q) => q.where("base", home).orWhere("quote", home))
      .orderBy([{ column: "date" }, { column: "id" }])
  ).map((r: Record<string, unknown>): ExchangeRate => ({
    id: String(r.id),
    base: String(r.base),
    quote: String(r.quote),
    rate: String(r.rate),
    date: String(r.date),
  }));
  const sums: Map<string, bigint>[] = [];
  for (const day of days) {
    const existing = wallets.filter((w) => w.first_day <= day);
    sums.push(await ledgerSums(db, userId, { walletIds: existing.map((w) => w.id), asOf: day }));
  }
  return { home, wallets, rates, sums };
}

function backendCpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return Number(fields[11]) + Number(fields[12]); // utime + stime, clock ticks (100 a second)
}

interface Sample {
  wallMs: number[];
  cpuUs: number;
  pgTicks: number;
  statements: number;
  calls: number;
}

async function measure(label: string, url: string, days: string[]): Promise<void> {
  const config = knexConfig(url);
  const db = knexFactory({ ...config, pool: { ...(config.pool ?? {}), min: 1, max: 1 } });
  // The measured user: the one with the four wallets (ids are random per seeding, so not the fixture's when reused).
  const main = await db("wallets").select("user_id").groupBy("user_id").orderByRaw("count(*) DESC").first();
  const userId = String(main.user_id);
  let statements = 0;
  db.on("query", () => statements++);
  const pgPid = url.startsWith("postgres") ? Number((await db.raw("SELECT pg_backend_pid() AS pid")).rows[0].pid) : 0;
  const variants = {
    A: (d: string[]) => legacyInputs(db, userId, d),
    B: (d: string[]) => readNetWorthInputs(db, userId, d),
  };
  const a = netWorthFrom(await variants.A(days), days);
  const b = netWorthFrom(await variants.B(days), days);
  if (a.points.every((p) => p.by_currency.length === 0)) throw new Error(`${label}: the measured user has no wallets`);
  if (!isDeepStrictEqual(a, b)) throw new Error(`${label}: A and B answer differently:\n${JSON.stringify(a)}\n${JSON.stringify(b)}`);
  const samples: Record<"A" | "B", Sample> = {
    A: { wallMs: [], cpuUs: 0, pgTicks: 0, statements: 0, calls: 0 },
    B: { wallMs: [], cpuUs: 0, pgTicks: 0, statements: 0, calls: 0 },
  };
  for (let i = 0; i < 20; i++) for (const v of ["A", "B"] as const) netWorthFrom(await variants[v](days), days); // warm-up
  const load0 = loadavg()[0]!;
  for (let r = 0; r < rounds; r++) {
    for (const v of (r % 2 === 0 ? ["A", "B"] : ["B", "A"]) as ("A" | "B")[]) {
      const s = samples[v];
      const st0 = statements;
      const ticks0 = pgPid ? backendCpuTicks(pgPid) : 0;
      const cpu0 = process.cpuUsage();
      for (let i = 0; i < calls; i++) {
        const t = performance.now();
        netWorthFrom(await variants[v](days), days);
        s.wallMs.push(performance.now() - t);
      }
      const cpu = process.cpuUsage(cpu0);
      s.cpuUs += cpu.user + cpu.system;
      s.pgTicks += pgPid ? backendCpuTicks(pgPid) - ticks0 : 0;
      s.statements += statements - st0;
      s.calls += calls;
    }
  }
  const load1 = loadavg()[0]!;
  for (const v of ["A", "B"] as const) {
    const s = samples[v];
    const sorted = [...s.wallMs].sort((x, y) => x - y);
    const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!.toFixed(2);
    const pgCpu = pgPid ? ` | pg backend CPU ${((s.pgTicks * 10) / s.calls).toFixed(2)} ms/call` : "";
    console.log(
      `${label} ${v}: ${s.calls} calls, ${days.length} points | p50 ${q(0.5)} ms p90 ${q(0.9)} ms | node CPU ${(s.cpuUs / 1000 / s.calls).toFixed(2)} ms/call${pgCpu} | ${(s.statements / s.calls).toFixed(0)} statement(s)/call | load ${load0.toFixed(1)}→${load1.toFixed(1)}`,
    );
  }
  await db.destroy();
}

const tmp = mkdtempSync(join(tmpdir(), "fmcp-networth-bench-"));
const created: string[] = [];
try {
  for (const scale of scales) {
    const { fixture, tables } = buildData(spec(scale));
    const days = seriesDays(fixture.benchMonth.from, today, "week");
    if (!values["no-sqlite"]) {
      let path = values["sqlite-dir"] ? join(values["sqlite-dir"], `bench-${scale}.sqlite`) : join(tmp, `bench-${scale}.sqlite`);
      if (!existsSync(path)) {
        path = join(tmp, `bench-${scale}.sqlite`);
        console.log(`seeding SQLite with ${scale} transactions`);
        await seedSqlite(path, tables);
      }
      await measure(`sqlite ${scale}`, `sqlite:${path}`, days);
    }
    if (values.postgres) {
      const name = `fmcp_networth_bench_${scale}`;
      const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
      await admin.connect();
      const exists = (await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name])).rowCount! > 0;
      if (!exists) await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      const u = new URL(PG_ADMIN_URL);
      u.pathname = `/${name}`;
      if (!exists) {
        console.log(`seeding Postgres with ${scale} transactions`);
        try {
          await seedPostgres(u.toString(), buildData(spec(scale)).tables);
        } catch (e) {
          created.push(name);
          throw e;
        }
      }
      if (!values["keep-pg"]) created.push(name);
      await measure(`postgres ${scale}`, u.toString(), days);
    }
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
  for (const name of created) {
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}
