/**
 * npm run bench [-- [--scenario] NAME] [-- options] — the one benchmark entry point (docs/performance.md
 * explains it). `npm run bench -- --list` lists the named scenarios (scripts/bench/scenarios.ts); every
 * one but the default runs from its module under scripts/bench/scenarios/, with its options in its
 * header. The default, `tools`, is this file:
 *
 * npm run bench [-- --quick] — every tool on the real server under load. In one run, on loopback: seeds a user with 10k / 100k / 1M transactions (plus budgets, goals, bills
 * and 1,000 other users with tokens) into fresh SQLite databases (and Postgres ones when reachable),
 * starts the real server as its own process with the production start command, drives it with
 * autocannon over many tokens, measures every tool, and beside them (unless --no-baselines) the bare express echo and the official SDK servers
 * under the same load, checks that no write was lost or duplicated, watches the server's memory over a
 * sustained run, and writes docs/bench/results.{md,json} and chart.svg.
 *
 * Options:
 *   --quick              small and short (1k/5k transactions, 2-second runs, SQLite only): under a minute,
 *                        results in a temporary directory unless --out is given; what CI runs.
 *   --postgres | --no-postgres   measure Postgres too (default: when reachable, and not in --quick).
 *   --scales a,b,c       transaction counts of the main user (default 10000,100000,1000000).
 *   --duration S  --warmup S  --connections N  --sustain S   load settings (defaults 10, 3, 50, 180).
 *   --process-warmup S   warm-up of each fresh server process before its first run (default 15; 0 in
 *                        --quick, and for profiles of one tool, which the warm-up mix would dilute).
 *   --only id,id         measure only these targets (ids as in the tables: whoami, list_transactions, …).
 *   --out DIR            where results.{md,json} and chart.svg go (default docs/bench).
 *   --profile DIR        run the largest SQLite server under node --cpu-prof, profiles into DIR.
 *   --keep               keep the temporary databases.
 *   --no-baselines       skip the echo and SDK servers (for profiling runs; no ratios then).
 *   --report FILE        measure nothing: evaluate the targets of an earlier results.json again and
 *                        rewrite results.{md,json} and chart.svg (next to it, or into --out).
 * Exits non-zero when the instrument itself fails (a server that does not start, seeding that fails, a
 * load generator error: 1 or 2), and with 3 when the server left requests without an answer within the
 * client's 10 s (a stalled server is a failure, not a result); other missed targets and unimplemented
 * tools are results, not failures.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir, totalmem, type } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import type { DataSpec, Fixture } from "./bench/data.js";
import type { LoadStats } from "./bench/load.js";
import type { Child } from "./bench/processes.js";
import type { BaselineRun, BenchResults, EngineRun, MachineInfo, ScaleRun, Settings, Sustained, ToolRun, WriteCheck } from "./bench/results.js";
import { chooseScenario, listScenarios } from "./bench/scenarios.js";
import type { Target, TargetContext } from "./bench/targets.js";

// ---------------------------------------------------------------------------------------------
// The scenario: this file's (tools), or another one's module, which runs when imported.

{
  let chosen: ReturnType<typeof chooseScenario>;
  try {
    if (process.argv.includes("--list")) {
      console.log(listScenarios());
      process.exit(0);
    }
    chosen = chooseScenario(process.argv.slice(2));
    if (!chosen.scenario.load && chosen.rest.some((a) => a === "--help" || a === "-h")) {
      console.log(`npm run bench [-- [--scenario] NAME] [-- options]: the options of each are in the header of its module\n\n${listScenarios()}`);
      process.exit(0);
    }
  } catch (err) {
    console.error(`bench: ${(err as Error).message}`);
    process.exit(2);
  }
  process.argv.splice(2, Infinity, ...chosen.rest);
  if (chosen.scenario.load) {
    await chosen.scenario.load();
    process.exit(process.exitCode ?? 0);
  }
}

// What the tools scenario runs on, loaded only when it is the one chosen (another scenario starts without
// loading the drivers, autocannon and the rendering: seconds on a loaded machine, and CI runs three).
const { default: Database } = await import("better-sqlite3");
const { default: pg } = await import("pg");
const { BASELINE_KINDS, BASELINE_PATH, baselineRequests } = await import("./bench/baselines.js");
const { buildData } = await import("./bench/data.js");
const { call, latencySeries, measureLoad, waitIdle } = await import("./bench/load.js");
const { cpuSecondsOf, installCleanup, memoryOf, ROOT, startBaselineServer, startFinanceServer } = await import("./bench/processes.js");
const { renderChart, renderMarkdown } = await import("./bench/report.js");
const { evaluateTargets, fmt, writeCheckOk, UNANSWERED_TARGET } = await import("./bench/results.js");
const { seedPostgres, seedSqlite } = await import("./bench/seed.js");
const { autocannonRequests, buildTargets, isRpcResult } = await import("./bench/targets.js");

// ---------------------------------------------------------------------------------------------
// Options

const { values: args } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    postgres: { type: "boolean" },
    "no-postgres": { type: "boolean", default: false },
    scales: { type: "string" },
    duration: { type: "string" },
    warmup: { type: "string" },
    connections: { type: "string" },
    sustain: { type: "string" },
    only: { type: "string" },
    out: { type: "string" },
    profile: { type: "string" },
    keep: { type: "boolean", default: false },
    report: { type: "string" },
    "no-baselines": { type: "boolean", default: false },
    "process-warmup": { type: "string" },
  },
  strict: true,
});

const quick = args.quick === true;
const num = (v: string | undefined, fallback: number): number => {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`not a non-negative number: ${v}`);
  return n;
};
const settings: Settings = {
  quick,
  scales: (args.scales ? args.scales.split(",").map((s) => num(s.replace(/_/g, ""), 0)) : quick ? [1000, 5000] : [10_000, 100_000, 1_000_000]).sort(
    (a, b) => a - b,
  ),
  connections: num(args.connections, 50),
  durationSec: num(args.duration, quick ? 2 : 10),
  warmupSec: num(args.warmup, quick ? 0 : 3),
  sustainSec: num(args.sustain, quick ? 0 : 180),
  processWarmupSec: num(args["process-warmup"], quick ? 0 : 15),
  recentPerDay: quick ? 3 : 10,
  historyYears: quick ? 3 : 10,
  mainTokens: quick ? 20 : 100,
  otherUsers: quick ? 200 : 1000,
  serverEnv: {
    RATE_LIMIT_MCP_PER_MINUTE: "100000000",
    LOG_LEVEL: "info",
    TOKEN_PEPPER: "(random per run)",
  },
};
const only = args.only ? new Set(args.only.split(",").map((s) => s.trim())) : undefined;
const usePostgres = args["no-postgres"] ? false : (args.postgres ?? !quick);
const outDir = resolve(args.out ?? (quick ? join(tmpdir(), "finance-mcp-bench-quick") : join(ROOT, "docs/bench")));
const PG_ADMIN_URL = process.env.BENCH_PG_URL || process.env.PG_TEST_URL || "postgres://postgres@127.0.0.1:5432/postgres";
const TIME_LIMIT_MS = quick ? 150_000 : 90 * 60_000;
const pepper = randomBytes(24).toString("hex");
const today = new Date().toISOString().slice(0, 10);
const runId = randomBytes(4).toString("hex");

// ---------------------------------------------------------------------------------------------
// Housekeeping

const started = performance.now();
const elapsed = () => `${((performance.now() - started) / 1000).toFixed(1)}s`;
const say = (msg: string) => console.log(`[${elapsed().padStart(6)}] ${msg}`);

const workDir = mkdtempSync(join(tmpdir(), "fmcp-bench-"));
const pgDatabases = new Set<string>();
const running = new Set<Child>();

async function dropPgDatabase(name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 5000 });
  try {
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    pgDatabases.delete(name);
  } finally {
    await admin.end().catch(() => undefined);
  }
}

async function cleanup(): Promise<void> {
  for (const child of [...running]) await child.stop().catch(() => undefined);
  running.clear();
  if (!args.keep) {
    for (const name of [...pgDatabases]) await dropPgDatabase(name).catch(() => undefined);
    rmSync(workDir, { recursive: true, force: true });
  } else if (pgDatabases.size) {
    console.log(`kept Postgres databases: ${[...pgDatabases].join(", ")} (drop them with DROP DATABASE … WITH (FORCE))`);
  }
}

installCleanup(cleanup);
const watchdog = setTimeout(() => {
  console.error(`bench: time limit of ${TIME_LIMIT_MS / 1000} s reached; stopping`);
  void cleanup().finally(() => process.exit(2));
}, TIME_LIMIT_MS);
watchdog.unref();

async function track<T extends Child>(p: Promise<T>): Promise<T> {
  const child = await p;
  running.add(child);
  return child;
}

async function stopChild(child: Child): Promise<void> {
  await child.stop();
  running.delete(child);
}

function machineInfo(): MachineInfo {
  const cpuinfo = (() => {
    try {
      return readFileSync("/proc/cpuinfo", "utf8");
    } catch {
      return "";
    }
  })();
  const git = (a: string[]) => {
    try {
      return execFileSync("git", a, { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    } catch {
      return "";
    }
  };
  return {
    date: new Date().toISOString(),
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}`,
    cpuModel: /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? "unknown",
    nproc: availableParallelism(),
    memTotalGB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    os: `${type()} ${readFileSync("/proc/sys/kernel/osrelease", "utf8").trim()}`,
    node: process.version,
    gitCommit: git(["rev-parse", "--short", "HEAD"]),
    gitDirty: git(["status", "--porcelain", "--untracked-files=no"]) !== "",
    loadAvgStart: loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

function line(label: string, s: LoadStats, extra = ""): string {
  const cores = s.serverCores === undefined ? "" : ` server ${fmt(s.serverCores, 2)} cores, client ${fmt(s.clientCores, 2)}`;
  const errs =
    s.non2xx + s.badBodies + s.errors + s.timeouts > 0 ? `  ERRORS non2xx=${s.non2xx} bad=${s.badBodies} err=${s.errors} timeouts=${s.timeouts}` : "";
  return `${label.padEnd(44)} ${fmt(s.okPerSec).padStart(7)} req/s  p50 ${fmt(s.latencyMs.p50)} p99 ${fmt(s.latencyMs.p99)} max ${fmt(s.latencyMs.max)} ms ${cores}${s.serverRssMB ? `  rss ${fmt(s.serverRssMB)} MB` : ""}${extra}${errs}`;
}

// ---------------------------------------------------------------------------------------------
// Probing and measuring one target

async function probe(origin: string, t: Target): Promise<Pick<ToolRun, "status" | "note">> {
  // A target measured alone may be one heavy write (a 5,000-row bulk edit): it gets two minutes.
  const a = await call(origin, t.call(0), t.alone ? 120_000 : undefined);
  if (a.status >= 200 && a.status < 300 && t.verify(a.text)) return { status: "ok" };
  const j = a.json as
    { error?: { code?: number; message?: string; data?: { code?: string } }; result?: { isError?: boolean; content?: { text?: string }[] } } | undefined;
  const err = j?.error;
  if (err?.data?.code === "not_implemented") return { status: "not_implemented", note: err.message };
  if (err?.code === -32601) return { status: "not_available", note: err.message };
  if (j?.result?.isError) {
    const text = j.result.content?.[0]?.text ?? "";
    return { status: /not[_ ]implemented/i.test(text) ? "not_implemented" : "error", note: text.slice(0, 200) };
  }
  return { status: "error", note: `HTTP ${a.status}: ${err ? `${err.code} ${err.data?.code ?? ""} ${err.message ?? ""}` : a.text.slice(0, 200)}` };
}

interface Db {
  engine: "sqlite" | "postgres";
  url: string;
  sqlitePath?: string;
}

async function countWrites(db: Db, marker: string): Promise<{ ids: Set<string>; auditRows: number | null; distinctKeys: number | null; note?: string }> {
  // By the run's marker alone (the many-users write spreads over every user); no index serves it, which
  // costs one scan of the table after the run, outside the measurement.
  const rowsSql = "SELECT id FROM transactions WHERE description = ?";
  const auditSql =
    "SELECT COUNT(*) AS n, COUNT(DISTINCT idempotency_key) AS k FROM audit_log WHERE tool = 'create_transaction' AND resource_id IN (SELECT id FROM transactions WHERE description = ?)";
  if (db.engine === "sqlite") {
    const conn = new Database(db.sqlitePath!, { readonly: true });
    try {
      conn.pragma("busy_timeout = 10000");
      const ids = new Set((conn.prepare(rowsSql).all(marker) as { id: string }[]).map((r) => r.id));
      try {
        const a = conn.prepare(auditSql).get(marker) as { n: number; k: number };
        return { ids, auditRows: Number(a.n), distinctKeys: Number(a.k) };
      } catch (err) {
        return { ids, auditRows: null, distinctKeys: null, note: `audit count failed: ${(err as Error).message}` };
      }
    } finally {
      conn.close();
    }
  }
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    const toPg = (sql: string) => sql.replace("description = ?", "description = $1");
    const ids = new Set((await client.query<{ id: string }>(toPg(rowsSql), [marker])).rows.map((r) => r.id));
    try {
      const a = (await client.query<{ n: string; k: string }>(toPg(auditSql), [marker])).rows[0]!;
      return { ids, auditRows: Number(a.n), distinctKeys: Number(a.k) };
    } catch (err) {
      return { ids, auditRows: null, distinctKeys: null, note: `audit count failed: ${(err as Error).message}` };
    }
  } finally {
    await client.end();
  }
}

async function measureTarget(
  server: Child,
  origin: string,
  t: Target,
  ctx: TargetContext,
  db: Db,
  fixture: Fixture,
  latency: boolean,
  scaleRun: ScaleRun,
): Promise<ToolRun> {
  const run: ToolRun = { id: t.id, label: t.label, kind: t.kind, status: "skipped" };
  if (t.kind === "write") ctx.writeMarker = `bench:${runId}:probe`;
  if (t.prepare) await t.prepare(origin);
  const p = await probe(origin, t);
  run.status = p.status;
  run.note = p.note;
  if (p.status !== "ok") {
    say(`  ${t.label.padEnd(44)} ${p.status}${p.note ? `: ${p.note.slice(0, 120)}` : ""}`);
    return run;
  }

  if (t.alone) {
    let i = 0;
    run.alone = true;
    run.latency = await latencySeries(origin, () => t.call(i++), quick ? 3 : 10, 1, 300_000, 120_000);
    say(`  ${t.label.padEnd(44)} alone: p50 ${fmt(run.latency.p50, 0)} ms, p90 ${fmt(run.latency.p90, 0)} ms (n ${run.latency.n})`);
    return run;
  }

  const acked = new Set<string>();
  let verify = (body: string) => t.verify(body);
  if (t.kind === "write") {
    verify = (body: string) => {
      if (!isRpcResult(body)) return false;
      try {
        const j = JSON.parse(body) as { result?: { status?: string; transaction?: { id?: string } } };
        const id = j.result?.transaction?.id;
        if (typeof id === "string") acked.add(id);
        return j.result?.status === "committed";
      } catch {
        return false;
      }
    };
  }
  const marker = `bench:${runId}:${db.engine}:${scaleRun.scale}:${t.id.replace(/ /g, "-")}`;
  ctx.writeMarker = `${marker}:warmup`;
  const load = await measureLoad({
    origin,
    connections: settings.connections,
    durationSec: settings.durationSec,
    warmupSec: settings.warmupSec,
    requests: autocannonRequests(t),
    verify,
    pid: server.pid,
    onMeasureStart: () => {
      ctx.writeMarker = `${marker}:measure`;
      acked.clear();
    },
    // Writes run a fixed number of requests to the end, so that rows and answers can be compared exactly.
    byCount: t.kind === "write",
  });
  run.load = load;
  if (load.non2xx + load.badBodies + load.errors + load.timeouts > 0) {
    run.note = `under load: status codes ${JSON.stringify(load.statusCodes)}, ${load.badBodies} error bodies, ${load.errors} socket errors, ${load.timeouts} timeouts`;
  }

  if (t.kind === "write") {
    // The run ended when every request had its answer; a short pause covers a server still finishing
    // a request whose client timed out.
    await new Promise((r) => setTimeout(r, quick ? 200 : 1000));
    const counted = await countWrites(db, `${marker}:measure`);
    let lost = 0;
    for (const id of acked) if (!counted.ids.has(id)) lost++;
    const rows = counted.ids.size;
    const duplicated =
      counted.distinctKeys === null || counted.auditRows === null ? null : Math.max(rows - counted.distinctKeys, counted.auditRows - counted.distinctKeys);
    const unacknowledged = rows - (acked.size - lost);
    const check: WriteCheck = {
      acknowledged: acked.size,
      rows,
      auditRows: counted.auditRows,
      distinctKeys: counted.distinctKeys,
      lost,
      duplicated,
      inFlightAtStop: unacknowledged,
      clientGaveUp: load.errors,
      ok: false,
      note:
        [counted.note, load.non2xx + load.badBodies ? `${load.non2xx + load.badBodies} requests refused or failed` : undefined].filter(Boolean).join("; ") ||
        undefined,
    };
    // Exact: one row per acknowledged answer; a refused or failed request must not have written, and the
    // run ends with nothing in flight, so only a request the client gave up on may have written unseen.
    check.ok = writeCheckOk(check, load.errors);
    if (t.id === "create_transaction") scaleRun.writeCheck = check;
    scaleRun.writeChecks = { ...scaleRun.writeChecks, [t.id]: check };
    say(
      `  ${"writes check".padEnd(44)} ${check.ok ? "ok" : "FAILED"}: ${check.acknowledged} acknowledged, ${check.rows} rows, ${check.lost} lost, ${check.duplicated ?? "?"} duplicated, ${check.inFlightAtStop} written without an acknowledged answer`,
    );
  }

  if (latency) {
    let i = 0;
    run.latency = await latencySeries(origin, () => t.call(i++), quick ? 20 : 300, quick ? 3 : 20, quick ? 2000 : 20_000);
  }
  say(`  ${line(t.label, load, run.latency ? `  (alone: p50 ${fmt(run.latency.p50, 2)} ms)` : "")}`);
  return run;
}

// ---------------------------------------------------------------------------------------------
// Sustained run: a mix of every working tool, memory sampled throughout

async function sustainedRun(server: Child, origin: string, targets: Target[], ctx: TargetContext): Promise<Sustained> {
  ctx.writeMarker = `bench:${runId}:sustained`;
  const requests = targets.flatMap((t) => autocannonRequests(t, 20));
  const samples: { t: number; rssMB: number }[] = [];
  const t0 = performance.now();
  const sampler = setInterval(() => {
    const m = memoryOf(server.pid);
    if (m) samples.push({ t: (performance.now() - t0) / 1000, rssMB: m.rssMB });
  }, 2000);
  let load: LoadStats;
  try {
    load = await measureLoad({
      origin,
      connections: settings.connections,
      durationSec: settings.sustainSec,
      warmupSec: 0,
      requests,
      verify: isRpcResult,
      pid: server.pid,
    });
  } finally {
    clearInterval(sampler);
  }
  const windowSec = Math.min(60, settings.sustainSec / 3);
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length ? s[Math.floor(s.length / 2)]! : NaN;
  };
  const first = median(samples.filter((s) => s.t <= windowSec).map((s) => s.rssMB));
  const last = median(samples.filter((s) => s.t >= settings.sustainSec - windowSec).map((s) => s.rssMB));
  return {
    seconds: settings.sustainSec,
    windowSec,
    targets: targets.map((t) => t.id),
    samples,
    firstWindowMedianMB: first,
    lastWindowMedianMB: last,
    growthMB: last - first,
    load,
  };
}

// ---------------------------------------------------------------------------------------------
// One engine at one scale

interface Prepared {
  scale: number;
  db: Db;
  fixture: Fixture;
  seed: ScaleRun["seed"];
}

function dataSpec(scale: number): DataSpec {
  return {
    scale,
    today,
    recentPerDay: settings.recentPerDay,
    historyYears: settings.historyYears,
    tokens: settings.mainTokens,
    otherUsers: settings.otherUsers,
    otherTransactions: 20,
    pepper,
    seed: 8,
  };
}

async function prepareSqlite(scale: number): Promise<Prepared> {
  const path = join(workDir, `bench-${scale}.sqlite`);
  const { fixture, tables } = buildData(dataSpec(scale));
  say(`seeding SQLite with ${fmt(scale)} transactions`);
  const seed = await seedSqlite(path, tables, (m) => say(`  ${m}`));
  say(
    `  seeded ${fmt(fixture.mainTransactions)} + ${fmt((seed.rows.transactions ?? 0) - fixture.mainTransactions)} other users' transactions in ${fmt(seed.seconds, 1)} s`,
  );
  return { scale, db: { engine: "sqlite", url: `sqlite:${path}`, sqlitePath: path }, fixture, seed };
}

async function preparePostgres(scale: number): Promise<Prepared> {
  const name = `fmcp_bench_${runId}_${scale}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 5000 });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    pgDatabases.add(name);
  } finally {
    await admin.end();
  }
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  const { fixture, tables } = buildData(dataSpec(scale));
  say(`seeding Postgres with ${fmt(scale)} transactions`);
  const seed = await seedPostgres(url.toString(), tables, (m) => say(`  ${m}`));
  say(
    `  seeded ${fmt(fixture.mainTransactions)} + ${fmt((seed.rows.transactions ?? 0) - fixture.mainTransactions)} other users' transactions in ${fmt(seed.seconds, 1)} s`,
  );
  return { scale, db: { engine: "postgres", url: url.toString() }, fixture, seed };
}

async function discard(p: Prepared): Promise<void> {
  if (args.keep) return;
  if (p.db.engine === "sqlite") {
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${p.db.sqlitePath}${suffix}`, { force: true });
  } else {
    await dropPgDatabase(new URL(p.db.url).pathname.slice(1));
  }
}

function profileDirFor(p: Prepared, isLargest: boolean): string | undefined {
  const dir = args.profile && isLargest && p.db.engine === "sqlite" ? resolve(args.profile) : undefined;
  if (dir) mkdirSync(dir, { recursive: true });
  return dir;
}

function startServerFor(p: Prepared, isLargest: boolean): Promise<Child> {
  const started = startFinanceServer({ databaseUrl: p.db.url, env: { ...settings.serverEnv, TOKEN_PEPPER: pepper }, cpuProfDir: profileDirFor(p, isLargest) });
  started.catch(() => undefined); // awaited (and reported) where it is used
  return started;
}

async function runScale(
  p: Prepared,
  isLargest: boolean,
  results: { sustained?: Sustained; memory?: BenchResults["memory"] },
  serverPromise?: Promise<Child>,
): Promise<ScaleRun> {
  const scaleRun: ScaleRun = { scale: p.scale, mainTransactions: p.fixture.mainTransactions, seed: p.seed, tools: [] };
  const profileDir = profileDirFor(p, isLargest);
  const server = await track(serverPromise ?? startServerFor(p, isLargest));
  const origin = `http://127.0.0.1:${server.port}`;
  say(`${p.db.engine} server with ${fmt(p.fixture.mainTransactions)} transactions: pid ${server.pid}, ${origin}, rss ${fmt(memoryOf(server.pid)?.rssMB)} MB`);
  try {
    const ctx: TargetContext = { fixture: p.fixture, today, writeMarker: "" };
    // The largest scale measures everything; the smaller ones the tools that read through the history
    // (in --quick only the two of the latency-against-history target).
    // --quick leaves out the second write row (the same code path as create_transaction's) to stay well
    // under a minute; --only can still ask for it.
    const targets = buildTargets(ctx).filter(
      (t) => (only ? only.has(t.id) : !(quick && t.id === "create_transaction many users")) && (isLargest || (quick ? t.scaling : t.historyBound)),
    );
    const whoami = buildTargets(ctx).find((t) => t.id === "whoami")!;
    const sanity = await probe(origin, whoami);
    if (sanity.status !== "ok")
      throw new Error(
        `the server refuses the benchmark's own tokens (whoami: ${sanity.status} ${sanity.note ?? ""}): the seeding or the token hashing is broken`,
      );
    if (settings.processWarmupSec > 0) {
      // Like the baselines: a fresh process warms up (JIT) before anything is measured, here on a mix of
      // the reads it is about to serve; its answers are not looked at.
      say(`  warming the server up: ${settings.processWarmupSec} s of mixed reads`);
      await measureLoad({
        origin,
        connections: settings.connections,
        durationSec: settings.processWarmupSec,
        warmupSec: 0,
        requests: (targets.some((t) => t.kind !== "write") ? targets : buildTargets(ctx))
          .filter((t) => t.kind !== "write")
          .flatMap((t) => autocannonRequests(t)),
        verify: () => true,
        pid: server.pid,
      });
    }
    for (const t of targets) scaleRun.tools.push(await measureTarget(server, origin, t, ctx, p.db, p.fixture, t.historyBound, scaleRun));

    if (isLargest && p.db.engine === "sqlite") {
      // Targets measured alone (the 5,000-row bulk edit and its undo) never join a concurrent mix; with
      // only those (--only), there is no mix to run.
      const working = buildTargets(ctx).filter((t) => !t.alone && scaleRun.tools.some((r) => r.id === t.id && r.status === "ok"));
      if (settings.sustainSec > 0 && working.length > 0) {
        say(`sustained run: ${settings.sustainSec} s of mixed load over ${working.length} tools`);
        results.sustained = await sustainedRun(server, origin, working, ctx);
        say(`  ${line("sustained mix", results.sustained.load)}`);
        say(
          `  rss median first ${fmt(results.sustained.windowSec)} s ${fmt(results.sustained.firstWindowMedianMB, 1)} MB, last ${fmt(results.sustained.lastWindowMedianMB, 1)} MB`,
        );
      }
      const m = memoryOf(server.pid);
      results.memory = {
        endRssMB: m?.rssMB,
        endPeakMB: m?.peakMB,
        where: `SQLite server, ${fmt(p.fixture.mainTransactions)} transactions, after all its measurements${results.sustained ? " and the sustained run" : ""}`,
      };
    }
    const m = memoryOf(server.pid);
    scaleRun.serverRssEndMB = m?.rssMB;
    scaleRun.serverPeakRssMB = m?.peakMB;
    say(`  server CPU used in total: ${fmt(cpuSecondsOf(server.pid), 1)} s; rss ${fmt(m?.rssMB)} MB, peak ${fmt(m?.peakMB)} MB`);
  } finally {
    await stopChild(server);
  }
  if (profileDir) say(`CPU profile written to ${profileDir}`);
  return scaleRun;
}

// ---------------------------------------------------------------------------------------------

async function postgresReachable(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return undefined;
  } catch (err) {
    return `Postgres at ${PG_ADMIN_URL.replace(/\/\/[^@]*@/, "//***@")} is not reachable: ${(err as Error).message}`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The exit code of a run in which the server left requests without an answer (issue 43): a failure, not a result. */
const UNANSWERED_EXIT = 3;

async function main(): Promise<number> {
  const meta = machineInfo();
  say(
    `finance-mcp benchmark${quick ? " (quick)" : ""}: ${meta.cpuModel}, ${meta.nproc} cores, ${meta.memTotalGB} GB, Node ${meta.node}, load average ${meta.loadAvgStart.join(" ")}`,
  );
  say(
    `scales ${settings.scales.map((s) => fmt(s)).join(", ")}; ${settings.connections} connections, ${settings.durationSec} s runs after ${settings.warmupSec} s warm-up; work dir ${workDir}`,
  );
  const results: Omit<BenchResults, "targets"> = { meta, settings, baselines: [], engines: [], memory: { where: "not measured" } };
  const side: { sustained?: Sustained; memory?: BenchResults["memory"] } = {};

  // SQLite databases first (the seeding is the heaviest CPU work; nothing is being measured meanwhile).
  const sqlite: Prepared[] = [];
  for (const scale of settings.scales) sqlite.push(await prepareSqlite(scale));

  // The baselines and the first SQLite server start together (in --quick every SQLite server: start-up
  // time is most of a quick run, and its numbers are a smoke test, not a measurement).
  say("starting the baseline servers");
  // Each baseline in a process of its own (--quick: one process for the three, to save start-up time).
  const baselines = new Map<string, { child: Child; port: number }>();
  const baselineGroups = args["no-baselines"] ? [] : quick ? [BASELINE_KINDS] : BASELINE_KINDS.map((k) => [k]);
  const prestarted = sqlite.map((p, i) => (i === 0 || quick ? startServerFor(p, i === sqlite.length - 1) : undefined));
  for (const child of await Promise.all(baselineGroups.map((kinds) => track(startBaselineServer(kinds))))) {
    for (const [kind, port] of Object.entries(child.ports)) baselines.set(kind, { child, port });
  }
  // Nothing is measured while a server is still starting (compiling, migrating, loading the knowledge base).
  const ready = await Promise.all(prestarted.map((p) => p?.catch(() => undefined)));
  for (const child of [...baselines.values()].map((b) => b.child).concat(ready.filter((c): c is Child => c !== undefined))) await waitIdle(child.pid, 15_000);
  for (const b of baselineRequests().filter((x) => baselines.has(x.kind))) {
    const { child, port } = baselines.get(b.kind)!;
    const origin = `http://127.0.0.1:${port}`;
    const first = await call(origin, { path: BASELINE_PATH, headers: b.headers, body: b.body });
    if (first.status !== 200 || !b.verify(first.text)) throw new Error(`baseline ${b.label} answered HTTP ${first.status}: ${first.text.slice(0, 200)}`);
    const load = await measureLoad({
      origin,
      connections: settings.connections,
      durationSec: settings.durationSec,
      // A fresh express process keeps getting faster for some 50,000 requests (JIT); the real server
      // gets the same warm-up before its first run (see runScale).
      warmupSec: settings.processWarmupSec,
      requests: [{ method: "POST", path: BASELINE_PATH, headers: b.headers, body: b.body }],
      verify: b.verify,
      pid: child.pid,
    });
    results.baselines.push({ label: b.label, kind: b.kind, load } satisfies BaselineRun);
    say(line(b.label, load));
  }
  if (!quick) for (const kind of ["sdk-v1", "sdk-v2"]) if (baselines.has(kind)) await stopChild(baselines.get(kind)!.child);

  // SQLite, smallest scale first.
  const sqliteRun: EngineRun = { engine: "sqlite", status: "ok", scales: [] };
  results.engines.push(sqliteRun);
  for (const [i, p] of sqlite.entries()) {
    sqliteRun.scales.push(await runScale(p, i === sqlite.length - 1, side, prestarted[i]));
    await discard(p);
  }

  // The echo again between the engines (not in --quick): each engine's ratios use the echo runs around it.
  const echoRun = async (label: string): Promise<LoadStats | undefined> => {
    const echo = baselines.get("echo");
    if (!echo) return undefined;
    const echoReq = baselineRequests().find((b) => b.kind === "echo")!;
    const load = await measureLoad({
      origin: `http://127.0.0.1:${echo.port}`,
      connections: settings.connections,
      durationSec: settings.durationSec,
      warmupSec: 0,
      requests: [{ method: "POST", path: BASELINE_PATH, headers: echoReq.headers, body: echoReq.body }],
      verify: echoReq.verify,
      pid: echo.child.pid,
    });
    say(line(label, load));
    return load;
  };
  if (!quick && usePostgres) results.echoMid = await echoRun("express JSON echo (again, between the engines)");

  // Postgres, when reachable: fresh databases, created and dropped here.
  const pgRun: EngineRun = { engine: "postgres", status: "ok", scales: [] };
  results.engines.push(pgRun);
  if (!usePostgres) {
    pgRun.status = "skipped";
    pgRun.note = quick ? "skipped in --quick mode (add --postgres)" : "skipped (--no-postgres)";
  } else {
    const unreachable = await postgresReachable();
    if (unreachable) {
      pgRun.status = "unreachable";
      pgRun.note = unreachable;
      say(unreachable);
    } else {
      for (const [i, scale] of settings.scales.entries()) {
        const p = await preparePostgres(scale);
        pgRun.scales.push(await runScale(p, i === settings.scales.length - 1, side));
        await discard(p);
      }
    }
  }

  // The echo once more: how much the machine drifted during the run (not in --quick).
  if (!quick) results.echoEnd = await echoRun("express JSON echo (again, at the end)");
  for (const { child } of baselines.values()) if (running.has(child)) await stopChild(child);

  results.sustained = side.sustained;
  if (!side.sustained) results.sustainedNote = settings.sustainSec > 0 ? "not run" : "skipped (--quick or --sustain 0)";
  results.memory = side.memory ?? results.memory;
  results.meta.loadAvgEnd = loadavg().map((l) => Math.round(l * 100) / 100);
  const full: BenchResults = { ...results, targets: evaluateTargets(results) };

  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, "results.json"), `${JSON.stringify(full, null, 2)}\n`);
  writeFileSync(join(outDir, "results.md"), renderMarkdown(full));
  writeFileSync(join(outDir, "chart.svg"), renderChart(full));

  console.log("\nTargets:");
  for (const t of full.targets) console.log(`  ${t.met === null ? "n/a " : t.met ? "met " : "MISS"}  ${t.subject}: ${t.measured} (${t.threshold})`);
  say(`results in ${outDir}/results.{md,json} and chart.svg`);
  const unanswered = full.targets.filter((t) => t.id === UNANSWERED_TARGET && t.met === false);
  if (unanswered.length > 0) {
    console.error(`bench: FAILED: requests left without an answer: ${unanswered.map((t) => t.measured).join("; ")}`);
    return UNANSWERED_EXIT;
  }
  return 0;
}

/** --report: the targets and the rendering of an earlier run, redone without measuring. */
function rerender(file: string): void {
  const earlier = JSON.parse(readFileSync(file, "utf8")) as BenchResults;
  const { targets: _old, ...rest } = earlier;
  void _old;
  for (const e of rest.engines) {
    for (const s of e.scales) {
      const w = s.writeCheck;
      if (!w || s.writeChecks) continue;
      const load = s.tools.find((t) => t.id === "create_transaction")?.load;
      w.clientGaveUp ??= load?.errors ?? 0;
      w.ok = writeCheckOk(w, w.clientGaveUp);
      // Results of the first version counted timeouts as "failed or refused" in the note.
      if (w.note && / requests failed or were refused$/.test(w.note) && load && load.non2xx + load.badBodies === 0) delete w.note;
    }
  }
  const full: BenchResults = { ...rest, targets: evaluateTargets(rest) };
  const dir = args.out ? resolve(args.out) : dirname(resolve(file));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "results.json"), `${JSON.stringify(full, null, 2)}\n`);
  writeFileSync(join(dir, "results.md"), renderMarkdown(full));
  writeFileSync(join(dir, "chart.svg"), renderChart(full));
  console.log(`re-rendered ${file} into ${dir}`);
}

if (args.report) {
  rmSync(workDir, { recursive: true, force: true });
  rerender(args.report);
  process.exit(0);
}

try {
  const code = await main();
  await cleanup();
  clearTimeout(watchdog);
  process.exit(code);
} catch (err) {
  console.error(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  await cleanup().catch(() => undefined);
  process.exit(1);
}
