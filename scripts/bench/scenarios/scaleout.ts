/**
 * Scale-out and group commit on Postgres (docs/performance.md, "Scale-out and group commit, measured"):
 *
 *   npm run bench -- scaleout [--quick] [--processes 1,2,4] [--rows whoami,…] [--seconds 8]
 *       [--warmup 3] [--connections 48] [--read-tokens 100] [--limit 40] [--no-limits] [--no-redis] [--no-family]
 *       [--group-commit] [--rounds 3] [--commit-delay 1000] [--commit-siblings 5] [--gc-processes 1]
 *       [--profile DIR] [--echo] [--out FILE]
 *
 * One scratch Postgres database (BENCH_PG_URL, default postgres://postgres@127.0.0.1:5432/postgres),
 * seeded like the main benchmark's (scripts/bench/data.ts: one main user and 1,000 other users, each with
 * a token and a wallet; 200 in --quick), dropped at the end.
 *
 * - The row family: for each count in --processes, that many real server processes (`node
 *   bin/finance-mcp.js serve`, as the main benchmark starts them) over the one database, with REDIS_URL
 *   (unless --no-redis), behind client-side round-robin: the connections of the load are spread evenly
 *   over the processes' ports (one autocannon instance per port, run together). Each row records the
 *   answers per second, the CPU of the server processes and of the database's Postgres backends (from
 *   /proc, per call and in cores), the database's share of the CPU, the connections (pg_stat_activity,
 *   sampled) and, for writes, lost / duplicated / written without an answer, counted in the database.
 * - The limits across processes: for each count, processes started with RATE_LIMIT_MCP_PER_MINUTE =
 *   --limit, once with the limits in the database and once in Redis; one token sends 3 × limit calls
 *   round-robin over them; exactly `limit` must succeed and the rest be refused with rate_limited.
 * - --group-commit: `create_transaction many users` (1,000 users) on two sets of --gc-processes processes, A
 *   with commit_delay 0, B with commit_delay / commit_siblings set for its sessions (the connection
 *   string's `options`, settable per session by a superuser), driven in turn A, B, A, B, … and each turn
 *   counted in the database (0 lost, 0 duplicated) with the cluster's WAL syncs (pg_stat_wal) per write.
 * - --profile DIR: one process per row under node --cpu-prof, driven by that row alone; the profile, cut
 *   to the measured run, is summarised by job (scripts/bench/profile-areas.ts) next to the row's figures.
 * - --echo: the bare express echo of the main benchmark under the same load, for its CPU per call.
 *
 * Every loop is bounded in count and time; loopback only. Exits non-zero when the instrument fails or a
 * limit or write check fails; without Postgres it says so and exits 0 (nothing to measure).
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import autocannon, { type Request as AcRequest } from "autocannon";
import pg from "pg";
import { buildData, type Fixture } from "../data.js";
import { call, type HttpCall } from "../load.js";
import { BASELINE_PATH, baselineRequests } from "../baselines.js";
import { cpuSecondsOf, installCleanup, startBaselineServer, startFinanceServer, type Child } from "../processes.js";
import { areasOf, type Areas } from "../profile-areas.js";
import { seedPostgres } from "../seed.js";
import { autocannonRequests, buildTargets, isRpcResult, MCP_PATH, type Target, type TargetContext } from "../targets.js";

const { values: args } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    processes: { type: "string" },
    rows: { type: "string" },
    seconds: { type: "string" },
    warmup: { type: "string" },
    connections: { type: "string" },
    limit: { type: "string" },
    "no-limits": { type: "boolean", default: false },
    "no-redis": { type: "boolean", default: false },
    "group-commit": { type: "boolean", default: false },
    rounds: { type: "string" },
    "commit-delay": { type: "string", default: "1000" },
    "commit-siblings": { type: "string", default: "5" },
    "gc-processes": { type: "string", default: "1" },
    "no-family": { type: "boolean", default: false },
    echo: { type: "boolean", default: false },
    "read-tokens": { type: "string" },
    profile: { type: "string" },
    out: { type: "string" },
  },
  strict: true,
});

const quick = args.quick;
const num = (v: string | undefined, fallback: number): number => {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`not a positive number: ${v}`);
  return n;
};
const processCounts = (args.processes ?? (quick ? "1,2" : "1,2,4")).split(",").map((s) => Math.round(num(s.trim(), 1)));
if (processCounts.some((k) => k > 8)) throw new Error("--processes: at most 8 processes (max_connections)");
const rowIds = (args.rows ?? (quick ? "whoami,create_transaction many users" : "whoami,tools/call whoami,get_wallet_balance,create_transaction many users"))
  .split(",")
  .map((s) => s.trim());
const seconds = num(args.seconds, quick ? 1 : 8);
const warmupSec = num(args.warmup, quick ? 1 : 3);
const connections = Math.round(num(args.connections, quick ? 8 : 48));
const limitN = Math.round(num(args.limit, quick ? 10 : 40));
const rounds = Math.round(num(args.rounds, quick ? 1 : 3));
const readTokens = Math.round(num(args["read-tokens"], 100));
const redisUrl = process.env.REDIS_URL || "redis://127.0.0.1:6379";
const useRedis = !args["no-redis"];
const ADMIN_URL = process.env.BENCH_PG_URL || process.env.PG_TEST_URL || "postgres://postgres@127.0.0.1:5432/postgres";
const TIME_LIMIT_MS = quick ? 300_000 : 60 * 60_000;
const pepper = randomBytes(24).toString("hex");
const today = new Date().toISOString().slice(0, 10);
const dbName = `fmcp_scaleout_${process.pid}_${randomBytes(3).toString("hex")}`;

const t0 = performance.now();
const say = (m: string) => console.log(`[${((performance.now() - t0) / 1000).toFixed(1).padStart(6)}s] ${m}`);
const running = new Set<Child>();
let dbCreated = false;

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 5000 });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end().catch(() => undefined);
  }
}

async function cleanup(): Promise<void> {
  await Promise.all([...running].map((c) => c.stop().catch(() => undefined)));
  running.clear();
  if (dbCreated) await admin((c) => c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`)).catch(() => undefined);
  dbCreated = false;
}
installCleanup(cleanup);
const watchdog = setTimeout(() => {
  console.error(`bench scaleout: time limit of ${TIME_LIMIT_MS / 1000} s reached; stopping`);
  void cleanup().finally(() => process.exit(2));
}, TIME_LIMIT_MS);
watchdog.unref();

function dbUrl(options?: string): string {
  const u = new URL(ADMIN_URL);
  u.pathname = `/${dbName}`;
  if (options) u.searchParams.set("options", options);
  return u.toString();
}

async function startServers(k: number, env: Record<string, string>, url = dbUrl(), cpuProfDir?: string): Promise<Child[]> {
  const servers = await Promise.all(
    Array.from({ length: k }, () =>
      startFinanceServer({ databaseUrl: url, env: { LOG_LEVEL: "info", TOKEN_PEPPER: pepper, REDIS_URL: useRedis ? redisUrl : "", ...env }, cpuProfDir }),
    ),
  );
  for (const s of servers) running.add(s);
  return servers;
}

async function stopServers(servers: Child[]): Promise<void> {
  await Promise.all(servers.map((s) => s.stop()));
  for (const s of servers) running.delete(s);
}

// ---------------------------------------------------------------------------------------------
// What Postgres says: its backends' CPU (from /proc), the connections, WAL syncs, commits

/** pid → CPU seconds of every backend connected to the scratch database. */
async function backendCpu(c: pg.Client): Promise<Map<number, number>> {
  const rows = (await c.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = $1", [dbName])).rows;
  return new Map(rows.map((r) => [r.pid, cpuSecondsOf(r.pid) ?? 0]));
}
const cpuSpent = (before: Map<number, number>, after: Map<number, number>) => [...after].reduce((s, [pid, cpu]) => s + cpu - (before.get(pid) ?? 0), 0);

interface PgCounters {
  walSync: number;
  walWrite: number;
  xactCommit: number;
}
async function pgCounters(c: pg.Client): Promise<PgCounters> {
  await c.query("SELECT pg_stat_clear_snapshot()");
  const w = (await c.query<{ s: string; w: string }>("SELECT wal_sync::text AS s, wal_write::text AS w FROM pg_stat_wal")).rows[0]!;
  const x = (await c.query<{ n: string }>("SELECT xact_commit::text AS n FROM pg_stat_database WHERE datname = $1", [dbName])).rows[0]!;
  return { walSync: Number(w.s), walWrite: Number(w.w), xactCommit: Number(x.n) };
}

/** Samples the scratch database's connections every 250 ms until stopped: the peak total and the peak active. */
function sampleConnections(c: pg.Client): { stop(): Promise<{ peak: number; peakActive: number }> } {
  let peak = 0;
  let peakActive = 0;
  let on = true;
  const loop = (async () => {
    for (let i = 0; on && i < 2400; i++) {
      const r = (
        await c.query<{ n: string; a: string }>(
          "SELECT count(*)::text AS n, count(*) FILTER (WHERE state = 'active')::text AS a FROM pg_stat_activity WHERE datname = $1",
          [dbName],
        )
      ).rows[0]!;
      peak = Math.max(peak, Number(r.n));
      peakActive = Math.max(peakActive, Number(r.a));
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  return {
    async stop() {
      on = false;
      await loop;
      return { peak, peakActive };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Load over several processes: one autocannon instance per port, the connections spread evenly

interface Spread {
  ok: number;
  answers: number;
  non2xx: number;
  bad: number;
  errors: number;
  timeouts: number;
  loadSec: number;
  p50: number;
  p99: number;
}

async function spread(
  ports: number[],
  requests: () => AcRequest[],
  verify: (body: string) => boolean,
  opts: { seconds: number; amount?: number },
): Promise<Spread> {
  const k = ports.length;
  let first = Infinity;
  let last = 0;
  const runs = ports.map((port, i) => {
    const conns = Math.max(1, Math.floor(connections / k) + (i < connections % k ? 1 : 0));
    const inst = autocannon({
      url: `http://127.0.0.1:${port}`,
      connections: conns,
      ...(opts.amount ? { amount: Math.max(conns * 2, Math.round(opts.amount / k)) } : { duration: opts.seconds }),
      pipelining: 1,
      timeout: 10,
      requests: requests(),
      verifyBody: verify,
    });
    inst.on("start", () => (first = Math.min(first, performance.now())));
    inst.on("response", () => (last = performance.now()));
    const guard = setTimeout(() => inst.stop(), (3 * opts.seconds + 30) * 1000);
    return Promise.resolve(inst).finally(() => clearTimeout(guard));
  });
  const rs = await Promise.all(runs);
  const sum = (f: (r: (typeof rs)[number]) => number) => rs.reduce((s, r) => s + f(r), 0);
  return {
    ok: sum((r) => r["2xx"] - r.mismatches),
    answers: sum((r) => r["1xx"] + r["2xx"] + r["3xx"] + r["4xx"] + r["5xx"]),
    non2xx: sum((r) => r.non2xx),
    bad: sum((r) => r.mismatches),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    loadSec: (last - first) / 1000,
    p50: Math.max(...rs.map((r) => r.latency.p50)),
    p99: Math.max(...rs.map((r) => r.latency.p99)),
  };
}

interface WriteCount {
  acknowledged: number;
  rows: number;
  lost: number;
  duplicated: number;
  withoutAnswer: number;
}

async function countWrites(c: pg.Client, marker: string, acked: Set<string>): Promise<WriteCount> {
  const ids = new Set((await c.query<{ id: string }>("SELECT id FROM transactions WHERE description = $1", [marker])).rows.map((r) => r.id));
  const a = (
    await c.query<{ n: string; k: string }>(
      "SELECT count(*)::text AS n, count(DISTINCT idempotency_key)::text AS k FROM audit_log WHERE tool = 'create_transaction' AND resource_id IN (SELECT id FROM transactions WHERE description = $1)",
      [marker],
    )
  ).rows[0]!;
  let lost = 0;
  for (const id of acked) if (!ids.has(id)) lost++;
  return {
    acknowledged: acked.size,
    rows: ids.size,
    lost,
    duplicated: Math.max(ids.size - Number(a.k), Number(a.n) - Number(a.k)),
    withoutAnswer: ids.size - (acked.size - lost),
  };
}

/**
 * 0 lost, 0 duplicated, and a row without an answer only for a request the client gave up on (its
 * 10 s timeout: the server still committed it), as the main benchmark's check (writeCheckOk).
 */
function writesOk(r: RowResult): boolean {
  const w = r.writes;
  return !w || (w.lost === 0 && w.duplicated === 0 && w.withoutAnswer <= r.clientGaveUp);
}

interface RowResult {
  processes: number;
  row: string;
  okPerSec: number;
  perProcessOkPerSec: number;
  serverCores: number;
  serverCpuMsPerCall: number;
  pgCores: number;
  pgCpuMsPerCall: number;
  dbShare: number;
  clientCores: number;
  peakConnections: number;
  peakActive: number;
  commitsPerCall: number;
  walSyncsPerCall: number;
  p50: number;
  p99: number;
  failures: number;
  /** Requests the client gave up on (timeouts, socket errors). */
  clientGaveUp: number;
  writes?: WriteCount;
  load1: number;
  windowUs: { from: number; to: number };
  profile?: Areas;
}

interface RowSpec {
  target: Target;
  ctx: TargetContext;
}

/** The distinct bearer tokens a target's calls use. */
function tokensOf(t: Target): string[] {
  const seen = new Set<string>();
  for (let i = 0; i < t.variants; i++) {
    const a = t.call(i).headers.authorization;
    if (a) seen.add(a.replace(/^Bearer /, ""));
  }
  return [...seen];
}

/**
 * Every token of the row once on every process (whoami, 16 at a time, bounded to 90 s): a row then
 * measures each process with its token cache warm, as in production where a token calls more often than
 * once a minute (the cache's lifetime), not the first look-up of each of 1,000 tokens.
 */
async function prime(servers: Child[], tokens: string[]): Promise<void> {
  const deadline = performance.now() + 90_000;
  const jobs = servers.flatMap((s) => tokens.map((token) => ({ port: s.port, token })));
  let next = 0;
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "whoami" });
  const worker = async () => {
    for (let i = next++; i < jobs.length && performance.now() < deadline; i = next++) {
      const j = jobs[i]!;
      await call(
        `http://127.0.0.1:${j.port}`,
        {
          path: MCP_PATH,
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${j.token}` },
          body,
        },
        10_000,
      ).catch(() => undefined);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

/** One row over the given processes: warm-up (unmeasured), then the measured run. */
async function measureRow(servers: Child[], spec: RowSpec, c: pg.Client, label = spec.target.id): Promise<RowResult> {
  const { target: t, ctx } = spec;
  const ports = servers.map((s) => s.port);
  const write = t.kind === "write";
  const acked = new Set<string>();
  const verify = write
    ? (body: string) => {
        if (!isRpcResult(body)) return false;
        try {
          const j = JSON.parse(body) as { result?: { status?: string; transaction?: { id?: string } } };
          if (typeof j.result?.transaction?.id === "string") acked.add(j.result.transaction.id);
          return j.result?.status === "committed";
        } catch {
          return false;
        }
      }
    : t.verify;
  await prime(servers, tokensOf(t));
  const marker = `scaleout:${randomBytes(4).toString("hex")}:${servers.length}:${label.replace(/ /g, "-")}`;
  ctx.writeMarker = `${marker}:warmup`;
  const w = await spread(ports, () => autocannonRequests(t), verify, { seconds: warmupSec });
  const warmRate = w.ok / Math.max(0.1, w.loadSec);
  await new Promise((r) => setTimeout(r, 300));
  ctx.writeMarker = `${marker}:measure`;
  acked.clear();
  samplerClient ??= await sideClient();
  const conn = sampleConnections(samplerClient);
  const pg0 = await backendCpu(c);
  const counters0 = await pgCounters(c);
  const srv0 = servers.map((s) => cpuSecondsOf(s.pid) ?? 0);
  const cli0 = process.cpuUsage();
  // CLOCK_MONOTONIC in µs: the clock of V8's profiles, to cut a server's profile to this run.
  const from = Number(process.hrtime.bigint() / 1000n);
  // Writes run a fixed number of requests to the end, so that rows and answers compare exactly.
  const r = await spread(ports, () => autocannonRequests(t), verify, {
    seconds,
    amount: write ? Math.max(2 * connections, Math.round(warmRate * seconds)) : undefined,
  });
  const to = Number(process.hrtime.bigint() / 1000n);
  const cli = process.cpuUsage(cli0);
  const srvCpu = servers.reduce((s, x, i) => s + (cpuSecondsOf(x.pid) ?? 0) - srv0[i]!, 0);
  const pgCpu = cpuSpent(pg0, await backendCpu(c));
  // A backend reports its counts to the statistics at most once a second.
  await new Promise((res) => setTimeout(res, 1100));
  const counters1 = await pgCounters(c);
  const peaks = await conn.stop();
  const calls = Math.max(1, r.answers);
  const result: RowResult = {
    processes: servers.length,
    row: label,
    okPerSec: r.ok / r.loadSec,
    perProcessOkPerSec: r.ok / r.loadSec / servers.length,
    serverCores: srvCpu / r.loadSec,
    serverCpuMsPerCall: (srvCpu * 1000) / calls,
    pgCores: pgCpu / r.loadSec,
    pgCpuMsPerCall: (pgCpu * 1000) / calls,
    dbShare: pgCpu / Math.max(1e-9, pgCpu + srvCpu),
    clientCores: (cli.user + cli.system) / 1e6 / r.loadSec,
    peakConnections: peaks.peak,
    peakActive: peaks.peakActive,
    // The sampler's and the counters' own statements run on other databases (postgres) or are read-only.
    commitsPerCall: (counters1.xactCommit - counters0.xactCommit) / calls,
    walSyncsPerCall: (counters1.walSync - counters0.walSync) / calls,
    p50: r.p50,
    p99: r.p99,
    failures: r.non2xx + r.bad + r.errors + r.timeouts,
    clientGaveUp: r.errors + r.timeouts,
    load1: Math.round(loadavg()[0]! * 10) / 10,
    windowUs: { from, to },
  };
  if (write) {
    await new Promise((res) => setTimeout(res, 500));
    scratchClient ??= await sideClient(dbUrl());
    result.writes = await countWrites(scratchClient, `${marker}:measure`, acked);
  }
  return result;
}

const sideClients: pg.Client[] = [];
let samplerClient: pg.Client | undefined;
let scratchClient: pg.Client | undefined;
async function sideClient(url = ADMIN_URL): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  sideClients.push(c);
  return c;
}

const f = (n: number, d = 0) => (Number.isFinite(n) ? n.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d }) : "–");

function printRow(r: RowResult): void {
  const w = r.writes
    ? `  writes: ${r.writes.acknowledged} acknowledged, ${r.writes.rows} rows, ${r.writes.lost} lost, ${r.writes.duplicated} duplicated, ${r.writes.withoutAnswer} without an answer`
    : "";
  say(
    `  ${String(r.processes)} × ${r.row.padEnd(30)} ${f(r.okPerSec).padStart(6)} req/s  servers ${f(r.serverCores, 2)} cores (${f(r.serverCpuMsPerCall, 2)} ms/call)  postgres ${f(r.pgCores, 2)} cores (${f(r.pgCpuMsPerCall, 2)} ms/call, share ${f(r.dbShare * 100)} %)  client ${f(r.clientCores, 2)}  conns ${r.peakConnections} (active ${r.peakActive})  commits/call ${f(r.commitsPerCall, 2)}  WAL syncs/call ${f(r.walSyncsPerCall, 2)}  p50 ${r.p50} p99 ${r.p99} ms  failures ${r.failures}  load ${r.load1}${w}`,
  );
}

// ---------------------------------------------------------------------------------------------
// The limits across processes

interface LimitCheck {
  processes: number;
  store: "database" | "redis";
  limit: number;
  sent: number;
  succeeded: number;
  refused: number;
  other: number;
  exact: boolean;
}

async function limitCheck(k: number, store: "database" | "redis", token: string): Promise<LimitCheck> {
  const servers = await startServers(k, { RATE_LIMIT_MCP_PER_MINUTE: String(limitN), REDIS_URL: store === "redis" ? redisUrl : "" });
  try {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "whoami" });
    const c: HttpCall = {
      path: "/api/v1/mcp",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${token}` },
      body,
    };
    const sent = 3 * limitN;
    let next = 0;
    let succeeded = 0;
    let refused = 0;
    let other = 0;
    const worker = async () => {
      for (let i = next++; i < sent; i = next++) {
        const a = await call(`http://127.0.0.1:${servers[i % k]!.port}`, c, 10_000);
        if (a.status === 200 && isRpcResult(a.text)) succeeded++;
        else if (a.text.includes('"rate_limited"')) refused++;
        else other++;
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    return { processes: k, store, limit: limitN, sent, succeeded, refused, other, exact: succeeded === limitN && refused === sent - limitN };
  } finally {
    await stopServers(servers);
  }
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const reachable = await admin((c) => c.query("SELECT 1")).then(
    () => true,
    (err: Error) => {
      say(`Postgres is not reachable (${err.message}): nothing to measure`);
      return false;
    },
  );
  if (!reachable) return 0;
  say(
    `scale-out bench${quick ? " (quick)" : ""}: processes ${processCounts.join(", ")}; rows ${rowIds.join(", ")}; ${connections} connections, ${seconds} s runs after ${warmupSec} s warm-up; load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  await admin((c) => c.query(`CREATE DATABASE ${dbName}`));
  dbCreated = true;
  const { fixture, tables } = buildData({
    scale: quick ? 1000 : 10_000,
    today,
    recentPerDay: quick ? 3 : 10,
    historyYears: quick ? 1 : 3,
    tokens: quick ? 20 : 100,
    otherUsers: quick ? 200 : 1000,
    otherTransactions: 20,
    pepper,
    seed: 31,
  });
  const seed = await seedPostgres(dbUrl(), tables);
  say(`seeded in ${f(seed.seconds, 1)} s: ${f(fixture.mainTransactions)} main transactions, ${fixture.otherTokens.length} other users`);
  const ctx: TargetContext = { fixture, today, writeMarker: "" };
  const all = buildTargets(ctx);
  // The limit checks' tokens: the main user's last ones, used by nothing else in this run (a Redis counter
  // outlives the processes that counted it, and counts whatever limit the next process has).
  const limitTokens = fixture.mainTokens.slice(-2 * processCounts.length);
  const reserved = new Set(limitTokens);
  const rotation = Math.min(readTokens, fixture.mainTokens.length - limitTokens.length);
  const specs: RowSpec[] = rowIds.map((id) => {
    const target = all.find((t) => t.id === id);
    if (!target) throw new Error(`--rows: no such row: ${id} (ids as in the main benchmark: ${all.map((t) => t.id).join(", ")})`);
    // Rows over the main user's tokens rotate over --read-tokens of them (100 less the limit checks'), so
    // that the warm-up fills every process's token cache; the main benchmark's whoami rotates over all
    // 1,100. The write over the 1,000 other users keeps its 1,000.
    if (!tokensOf(target).some((t) => reserved.has(t))) return { target, ctx };
    return { target: { ...target, variants: rotation, call: (i: number) => target.call(i % rotation) }, ctx };
  });
  const c = await sideClient();
  const out: {
    family: RowResult[];
    limits: LimitCheck[];
    groupCommit: (RowResult & { turn: string })[];
    profiles: RowResult[];
    echo?: { okPerSec: number; cores: number; cpuMsPerCall: number; load1: number };
    meta: Record<string, unknown>;
  } = {
    family: [],
    limits: [],
    groupCommit: [],
    profiles: [],
    meta: {
      date: new Date().toISOString(),
      loadStart: loadavg(),
      processCounts,
      rows: rowIds,
      connections,
      seconds,
      warmupSec,
      redis: useRedis,
      fixture: summaryOf(fixture),
    },
  };
  let failed = false;

  if (!args["no-family"]) {
    for (const k of processCounts) {
      const servers = await startServers(k, { RATE_LIMIT_MCP_PER_MINUTE: "100000000" });
      say(`${k} server process${k > 1 ? "es" : ""}: pids ${servers.map((s) => s.pid).join(", ")}`);
      try {
        for (const spec of specs) {
          const r = await measureRow(servers, spec, c);
          printRow(r);
          out.family.push(r);
          if (r.writes && !writesOk(r)) failed = true;
        }
      } finally {
        await stopServers(servers);
      }
    }
  }

  if (!args["no-limits"]) {
    // A token of its own per check, so that no count carries over.
    let tokenAt = 0;
    // --quick: the largest count only (the smoke run stays short).
    for (const k of quick ? [Math.max(...processCounts)] : processCounts) {
      for (const store of ["database", "redis"] as const) {
        const l = await limitCheck(k, store, limitTokens[tokenAt++]!);
        out.limits.push(l);
        say(
          `  limit ${l.limit}/min, ${k} process${k > 1 ? "es" : ""}, ${store}: ${l.sent} sent, ${l.succeeded} succeeded, ${l.refused} refused (rate_limited), ${l.other} other: ${l.exact ? "exact" : "NOT EXACT"}`,
        );
        if (!l.exact) failed = true;
      }
    }
  }

  if (args["group-commit"]) {
    const spec = specs.find((s) => s.target.kind === "write") ?? { target: all.find((t) => t.id === "create_transaction many users")!, ctx };
    const gcProcesses = Math.min(4, Math.round(num(args["gc-processes"], 1)));
    const a = await startServers(gcProcesses, { RATE_LIMIT_MCP_PER_MINUTE: "100000000" }, dbUrl());
    const b = await startServers(
      gcProcesses,
      { RATE_LIMIT_MCP_PER_MINUTE: "100000000" },
      dbUrl(`-c commit_delay=${Number(args["commit-delay"])} -c commit_siblings=${Number(args["commit-siblings"])}`),
    );
    say(
      `group commit: A commit_delay 0 (pids ${a.map((x) => x.pid).join(", ")}), B commit_delay ${args["commit-delay"]} µs, commit_siblings ${args["commit-siblings"]} (pids ${b.map((x) => x.pid).join(", ")})`,
    );
    try {
      for (let round = 0; round < rounds; round++) {
        for (const [turn, servers] of [
          ["A", a],
          ["B", b],
        ] as const) {
          const r = { ...(await measureRow(servers, spec, c, `${spec.target.id} ${turn}`)), turn };
          printRow(r);
          out.groupCommit.push(r);
          if (r.writes && !writesOk(r)) failed = true;
        }
      }
    } finally {
      await stopServers([...a, ...b]);
    }
  }

  if (args.echo) {
    // The bare express echo under the same load, for its CPU per call: what a row's ratio to the echo
    // would be on a machine where the server had its core (the echo's CPU per call over the row's).
    const echo = await startBaselineServer(["echo"]);
    running.add(echo);
    try {
      const b = baselineRequests().find((x) => x.kind === "echo")!;
      const req: AcRequest[] = [{ method: "POST", path: BASELINE_PATH, headers: b.headers, body: b.body }];
      await spread([echo.port], () => req, b.verify, { seconds: warmupSec });
      const cpu0 = cpuSecondsOf(echo.pid) ?? 0;
      const r = await spread([echo.port], () => req, b.verify, { seconds });
      const cpu = (cpuSecondsOf(echo.pid) ?? 0) - cpu0;
      out.echo = { okPerSec: r.ok / r.loadSec, cores: cpu / r.loadSec, cpuMsPerCall: (cpu * 1000) / Math.max(1, r.answers), load1: loadavg()[0]! };
      say(
        `  express JSON echo ${f(out.echo.okPerSec).padStart(6)} req/s  ${f(out.echo.cores, 2)} cores (${f(out.echo.cpuMsPerCall, 3)} ms/call)  load ${f(out.echo.load1, 1)}`,
      );
    } finally {
      await echo.stop();
      running.delete(echo);
    }
  }

  if (args.profile) {
    const base = resolve(args.profile);
    for (const spec of specs) {
      const dir = join(base, spec.target.id.replace(/[ /]/g, "-"));
      mkdirSync(dir, { recursive: true });
      const servers = await startServers(1, { RATE_LIMIT_MCP_PER_MINUTE: "100000000" }, dbUrl(), dir);
      let r: RowResult;
      try {
        r = await measureRow(servers, spec, c);
      } finally {
        await stopServers(servers);
      }
      const files = readdirSync(dir).filter((n) => n.endsWith(".cpuprofile"));
      if (files.length) r.profile = areasOf(JSON.parse(readFileSync(join(dir, files.sort().at(-1)!), "utf8")), r.windowUs);
      printRow(r);
      out.profiles.push(r);
      if (r.profile) {
        say(
          `    profile of the measured run: ${f(r.profile.cpuMs / 1000, 1)} s busy in ${f(r.profile.wallMs / 1000, 1)} s (${f((100 * r.profile.cpuMs) / Math.max(1, r.profile.wallMs))} %; the rest the event loop waited), by job:`,
        );
        for (const x of r.profile.areas.filter((a) => a.share >= 0.005)) say(`      ${f(x.share * 100, 1).padStart(5)} %  ${x.area}`);
      }
    }
  }

  out.meta.loadEnd = loadavg();
  const file = resolve(args.out ?? join(process.env.TMPDIR || "/tmp", `fmcp-scaleout-${process.pid}.json`));
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  say(`results in ${file}`);
  for (const s of sideClients) await s.end().catch(() => undefined);
  return failed ? 1 : 0;
}

function summaryOf(x: Fixture): Record<string, number> {
  return { mainTransactions: x.mainTransactions, mainTokens: x.mainTokens.length, otherUsers: x.otherTokens.length };
}

let code = 1;
try {
  code = await main();
} catch (err) {
  console.error(`bench scaleout failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
} finally {
  await cleanup();
  clearTimeout(watchdog);
}
process.exit(code);
