/**
 * npm run bench -- recurring [--scales 10000,100000,1000000] [--postgres] [--calls N] [--dir D] [--no-migrate]:
 * list_recurring's own cost (src/domain/recurring/list.ts) for the benchmark's heavy user, called in
 * this process one call at a time: p50 / p90 wall time, this process's CPU per call, and statements per
 * call; then the same for a 365-day get_cash_flow_forecast (src/domain/forecast: its reads and its
 * projection apart), so the two can be held to issue 38's "within 2 × list_recurring" in one run. The data is the benchmark's (scripts/bench/data.ts, the same spec as `npm run bench`); the
 * databases are kept in --dir (SQLite files) or as fmcp_recurring_bench_<scale> (Postgres) and reused
 * by the next run (migrated to the latest first), so an A/B of two versions reads the same rows.
 * Numbers go to docs/performance.md by hand, with `uptime`.
 */
import { existsSync, mkdirSync, writeFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { createDb } from "../../../src/db/knex.js";
import { migrateLatest } from "../../../src/db/migrate.js";
import { listRecurring } from "../../../src/domain/recurring/list.js";
import { readForecastInputs } from "../../../src/domain/forecast/inputs.js";
import { projectForecast } from "../../../src/domain/forecast/project.js";
import { plusDays } from "../../../src/calendar/days.js";
import { buildData } from "../data.js";
import { seedPostgres, seedSqlite } from "../seed.js";

const { values } = parseArgs({
  options: {
    scales: { type: "string" },
    postgres: { type: "boolean" },
    calls: { type: "string" },
    dir: { type: "string" },
    // For an A/B run of an older checkout over the same databases (which it could not migrate back).
    "no-migrate": { type: "boolean" },
  },
});
const scales = (values.scales ?? "10000,100000,1000000").split(",").map(Number);
const calls = Number(values.calls ?? 200);
const dir = values.dir ?? "/tmp/fmcp-recurring-bench";
const PG_ADMIN_URL = process.env.PG_TEST_URL || "postgres://postgres@127.0.0.1:5432/postgres";
mkdirSync(dir, { recursive: true });

async function prepare(scale: number): Promise<{ url: string; userId: string; today: string }> {
  const tag = `${values.postgres ? "pg" : "sqlite"}-${scale}`;
  const metaPath = join(dir, `${tag}.json`);
  if (existsSync(metaPath)) return JSON.parse(readFileSync(metaPath, "utf8")) as { url: string; userId: string; today: string };
  const today = new Date().toISOString().slice(0, 10);
  const { fixture, tables } = buildData({
    scale,
    today,
    recentPerDay: 10,
    historyYears: 10,
    tokens: 4,
    otherUsers: 1000,
    otherTransactions: 20,
    pepper: "bench",
    seed: 8,
  });
  let url: string;
  if (values.postgres) {
    const name = `fmcp_recurring_bench_${scale}`;
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const u = new URL(PG_ADMIN_URL);
    u.pathname = `/${name}`;
    url = u.toString();
    await seedPostgres(url, tables);
  } else {
    const path = join(dir, `${tag}.sqlite`);
    url = `sqlite:${path}`;
    await seedSqlite(path, tables);
  }
  const meta = { url, userId: fixture.mainUserId, today };
  writeFileSync(metaPath, JSON.stringify(meta));
  return meta;
}

for (const scale of scales) {
  const { url, userId, today } = await prepare(scale);
  const db = createDb(url);
  try {
    if (!values["no-migrate"]) await migrateLatest(db);
    let statements = 0;
    db.on("query", () => statements++);
    // Warm-up: page cache, statement cache, JIT.
    for (let i = 0; i < 20; i++) await listRecurring(db, userId, today, true);
    statements = 0;
    const times: number[] = [];
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    let found = 0;
    for (let i = 0; i < calls; i++) {
      const t = performance.now();
      found = (await listRecurring(db, userId, today, true)).recurring.length;
      times.push(performance.now() - t);
    }
    const wall = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    times.sort((a, b) => a - b);
    const q = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!.toFixed(2);
    console.log(
      `${values.postgres ? "postgres" : "sqlite"} ${scale}: p50 ${q(0.5)} ms, p90 ${q(0.9)} ms, CPU ${((cpu.user + cpu.system) / 1000 / calls).toFixed(2)} ms/call ` +
        `(wall ${(wall / calls).toFixed(2)} ms/call), ${statements / calls} statements/call, ${found} found, ${calls} calls`,
    );
    // Where a call's CPU goes: the statement alone (driver included), and detection alone.
    const cpuOf = async (fn: () => unknown) => {
      const c0 = process.cpuUsage();
      for (let i = 0; i < calls; i++) await fn();
      const c = process.cpuUsage(c0);
      return ((c.user + c.system) / 1000 / calls).toFixed(2);
    };
    const parts = await import("../../../src/domain/recurring/store.js").catch(() => undefined);
    if (parts && "RECURRING_INPUTS_SQL" in parts) {
      const { RECURRING_INPUTS_SQL, MAX_PAYEE_KEYS, recurringInputs } = parts;
      const { detectRecurring } = await import("../../../src/domain/recurring/detect.js");
      const { charges } = await recurringInputs(db, userId);
      console.log(
        `  of which: the statement ${await cpuOf(() => db.raw(RECURRING_INPUTS_SQL, [userId, MAX_PAYEE_KEYS, userId, true, userId]))} ms, ` +
          `statement and rows to charges ${await cpuOf(() => recurringInputs(db, userId))} ms, detection of ${charges.length} charges ${await cpuOf(() => detectRecurring(charges, today))} ms`,
      );
    }
    // The 365-day forecast (get_cash_flow_forecast's work without the dispatcher), timed the same way.
    const options = { today, days: 365, bufferMinor: 0n, includeRegularSpending: false, whatIf: [], cancel: [] };
    const forecast = async () => projectForecast(await readForecastInputs(db, userId, today, plusDays(today, 365)), options);
    for (let i = 0; i < 20; i++) await forecast();
    statements = 0;
    const ftimes: number[] = [];
    const fcpu0 = process.cpuUsage();
    for (let i = 0; i < calls; i++) {
      const t = performance.now();
      await forecast();
      ftimes.push(performance.now() - t);
    }
    const fcpu = process.cpuUsage(fcpu0);
    ftimes.sort((a, b) => a - b);
    const fq = (p: number) => ftimes[Math.min(ftimes.length - 1, Math.floor(p * ftimes.length))]!.toFixed(2);
    const inputs = await readForecastInputs(db, userId, today, plusDays(today, 365));
    console.log(
      `  forecast 365 days: p50 ${fq(0.5)} ms (${(Number(fq(0.5)) / Number(q(0.5))).toFixed(2)} × list_recurring), p90 ${fq(0.9)} ms, ` +
        `CPU ${((fcpu.user + fcpu.system) / 1000 / calls).toFixed(2)} ms/call, ${statements / calls} statements/call; ` +
        `of which the reads ${await cpuOf(() => readForecastInputs(db, userId, today, plusDays(today, 365)))} ms, the projection ${await cpuOf(() => projectForecast(inputs, options))} ms ` +
        `(${inputs.rows.length} future-dated rows, ${inputs.series.length} series, ${inputs.wallets.length} wallets)`,
    );
  } finally {
    await db.destroy();
  }
}
