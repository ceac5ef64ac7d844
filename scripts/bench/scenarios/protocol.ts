/**
 * npm run bench:protocol [-- --quick] [-- --duration S] [-- --connections N]   (= npm run bench -- protocol …)
 *
 * Throughput and latency of one MCP tool call through the whole pipeline (Host/Origin → Accept → JSON
 * → envelope → revision → bearer token → rate limit → dispatch: scope, write switch, params, handler,
 * result validation → CallToolResult), against, on the same machine and in the same run:
 *   - a bare express JSON echo (express.json() + res.json(req.body)): the floor of any express server;
 *   - the official SDK 1.x server, stateless Streamable HTTP as its README shows it (a new McpServer and
 *     StreamableHTTPServerTransport({ sessionIdGenerator: undefined }) per request), one trivial tool;
 *   - the official SDK v2 server, createMcpHandler(factory) with the same trivial tool, called in both
 *     eras (2025-11-25 legacy fallback and 2026-07-28).
 * The baselines and the requests that call them are those of `npm run bench` (scripts/bench/baselines.ts).
 * Our server is measured on both revisions and once with VALIDATE_RESULTS=false (the cost of result
 * validation). It runs on a fresh SQLite file with a real user and token.
 *
 * All servers run in one child process (one core), the load generator (autocannon) in this one; every
 * target gets a warm-up, then a measured run bounded in time and in request count. Loopback only.
 * --quick: a smoke run of a few seconds for CI (numbers not meaningful, only that everything works).
 * --profile DIR: run the server process under --cpu-prof (only our target unless --only names others).
 * --only key,key: measure some targets (echo, full, fullModern, fullNoValidate, sdkV1, sdkV2Legacy, sdkV2Modern).
 * --duration S, --rounds N, --connections N: the run's shape (default 3 rounds of 4 s, 16 connections).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BASELINE_PATH, baselineRequests, startBaseline, type BaselineRequest } from "../baselines.js";

const require = createRequire(import.meta.url);

// ---------------------------------------------------------------------------------------------------
// Server side (child process): every target on its own loopback port.

interface Ports {
  echo: number;
  full: number;
  fullNoValidate: number;
  sdkV1: number;
  sdkV2: number;
  token: string;
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<number> {
  const server = createServer(handler);
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

const TRIVIAL_TOOL = "whoami";

async function startFull(dbUrl: string, validateResults: boolean, token?: string): Promise<{ port: number; token: string }> {
  const { loadConfig } = await import("../../../src/config.js");
  const { createDb } = await import("../../../src/db/knex.js");
  const { migrateLatest } = await import("../../../src/db/migrate.js");
  const { createApp, createServices } = await import("../../../src/app.js");
  const { createToken } = await import("../../../src/auth/tokens.js");
  const { newId } = await import("../../../src/db/ids.js");
  const config = loadConfig({
    DATABASE_URL: dbUrl,
    LOG_LEVEL: "silent",
    VALIDATE_RESULTS: validateResults ? "true" : "false",
    RATE_LIMIT_MCP_PER_MINUTE: "1000000000",
  });
  const db = createDb(config.databaseUrl);
  await migrateLatest(db);
  if (!token) {
    const id = newId("usr");
    const at = new Date().toISOString();
    await db("users").insert({
      id,
      email: `${id}@bench.test`,
      email_normalized: `${id}@bench.test`,
      password_hash: "scrypt$bench$unused",
      timezone: "UTC",
      default_currency: "USD",
      created_at: at,
      updated_at: at,
    });
    token = (await createToken(db, id, { name: "bench", scopes: ["meta:whoami"], expiresInDays: 1 }, config.tokenPepper)).token;
  }
  const services = await createServices(config, db);
  return { port: await listen(createApp(services)), token };
}

async function serve(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "fmcp-bench-"));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  const dbUrl = `sqlite:${join(dir, "bench.sqlite")}`;
  const full = await startFull(dbUrl, true);
  const fullNoValidate = await startFull(dbUrl, false, full.token);
  const ports: Ports = {
    echo: (await startBaseline("echo")).port,
    full: full.port,
    fullNoValidate: fullNoValidate.port,
    sdkV1: (await startBaseline("sdk-v1")).port,
    sdkV2: (await startBaseline("sdk-v2")).port,
    token: full.token,
  };
  process.stdout.write(`${JSON.stringify(ports)}\n`);
  process.stdin.resume();
  process.stdin.on("end", () => process.exit(0));
}

// ---------------------------------------------------------------------------------------------------
// Load side (this process).

interface Target {
  key: string;
  label: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Checks one response so that a target answering errors fast cannot win. */
  check(status: number, body: string): boolean;
}

const BASE_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "0.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};
const legacyCall = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: TRIVIAL_TOOL, arguments: {} } });
const modernCall = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: TRIVIAL_TOOL, arguments: {}, _meta: META } });
const legacyHeaders = { ...BASE_HEADERS, "mcp-protocol-version": "2025-11-25" };
const modernHeaders = { ...BASE_HEADERS, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": TRIVIAL_TOOL };
const toolOk = (status: number, body: string) =>
  status === 200 && body.includes('"structuredContent"') && !body.includes('"isError":true') && body.includes("user_id");

function baseline(kind: BaselineRequest["kind"], version?: string): BaselineRequest {
  const r = baselineRequests().find((b) => b.kind === kind && b.headers["mcp-protocol-version"] === version);
  if (!r) throw new Error(`no baseline request for ${kind} ${version ?? ""}`);
  return r;
}

function targets(p: Ports): Target[] {
  const auth = { authorization: `Bearer ${p.token}` };
  const url = (port: number, path: string) => `http://127.0.0.1:${port}${path}`;
  const base = (key: string, label: string, port: number, r: BaselineRequest): Target => ({
    key,
    label,
    url: url(port, BASELINE_PATH),
    headers: r.headers,
    body: r.body,
    check: (s, b) => s === 200 && r.verify(b),
  });
  return [
    base("echo", "bare express JSON echo", p.echo, baseline("echo")),
    {
      key: "full",
      label: "finance-mcp tools/call whoami (2025-11-25)",
      url: url(p.full, "/api/v1/mcp"),
      headers: { ...legacyHeaders, ...auth },
      body: legacyCall,
      check: toolOk,
    },
    {
      key: "fullModern",
      label: "finance-mcp tools/call whoami (2026-07-28)",
      url: url(p.full, "/api/v1/mcp"),
      headers: { ...modernHeaders, ...auth },
      body: modernCall,
      check: toolOk,
    },
    {
      key: "fullNoValidate",
      label: "finance-mcp, VALIDATE_RESULTS=false",
      url: url(p.fullNoValidate, "/api/v1/mcp"),
      headers: { ...legacyHeaders, ...auth },
      body: legacyCall,
      check: toolOk,
    },
    base("sdkV1", "SDK 1.x stateless Streamable HTTP", p.sdkV1, baseline("sdk-v1", "2025-11-25")),
    base("sdkV2Legacy", "SDK v2 createMcpHandler (2025-11-25)", p.sdkV2, baseline("sdk-v2", "2025-11-25")),
    base("sdkV2Modern", "SDK v2 createMcpHandler (2026-07-28)", p.sdkV2, baseline("sdk-v2", "2026-07-28")),
  ];
}

interface Measured {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  errors: number;
}

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
}
interface AutocannonInstance {
  on(event: "response", fn: () => void): void;
  stop(): void;
}
type Autocannon = (opts: Record<string, unknown>, done: (err: unknown, result: AutocannonResult) => void) => AutocannonInstance;
const autocannon = require("autocannon") as Autocannon;

/** One run, bounded by duration and by request count (autocannon's own `amount` would ignore the duration). */
function measure(t: Target, opts: { duration: number; connections: number; maxRequests: number }): Promise<Measured> {
  return new Promise((resolve, reject) => {
    let n = 0;
    const instance = autocannon(
      { url: t.url, method: "POST", headers: t.headers, body: t.body, connections: opts.connections, pipelining: 1, duration: opts.duration, timeout: 10 },
      (err, r) => {
        if (err) return reject(err instanceof Error ? err : new Error(String(err)));
        resolve({ rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, requests: r.requests.total, errors: r.errors + r.timeouts + r.non2xx });
      },
    );
    instance.on("response", () => {
      if (++n === opts.maxRequests) instance.stop();
    });
  });
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function startServers(profileDir?: string): Promise<{ ports: Ports; child: ChildProcess }> {
  const nodeArgs = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];
  const child = spawn(process.execPath, [...nodeArgs, "--import", "tsx", fileURLToPath(import.meta.url), "--serve"], { stdio: ["pipe", "pipe", "inherit"] });
  const ports = await new Promise<Ports>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      const nl = out.indexOf("\n");
      if (nl >= 0) resolve(JSON.parse(out.slice(0, nl)) as Ports);
    });
    child.on("exit", (code) => reject(new Error(`server process exited with ${code}`)));
    setTimeout(() => reject(new Error("servers did not start within 60 s")), 60_000).unref();
  });
  return { ports, child };
}

async function stopServers(child: ChildProcess): Promise<void> {
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.stdin!.end(); // the child exits by itself (and writes its CPU profile when --profile)
  const timer = setTimeout(() => child.kill(), 10_000);
  await exited;
  clearTimeout(timer);
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

/**
 * Where the server's CPU went: self time of the sampled frames, grouped by what they belong to. (Async
 * continuations lose their callers in a CPU profile, so grouping by the leaf frame's code is the honest
 * attribution: knex and better-sqlite3 run the token lookup and the limiter's counter.)
 */
function summarizeProfile(dir: string): void {
  const file = readdirSync(dir)
    .filter((f) => f.endsWith(".cpuprofile"))
    .map((f) => join(dir, f))[0];
  if (!file) return;
  const p = JSON.parse(readFileSync(file, "utf8")) as { nodes: ProfileNode[]; samples: number[] };
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const groups: [string, RegExp][] = [
    ["database: knex, better-sqlite3, tarn (token lookup, limiter)", /node_modules\/(knex|better-sqlite3|tarn)\//],
    ["rate-limiter-flexible", /node_modules\/rate-limiter-flexible\//],
    [
      "express, router, body-parser, raw-body…",
      /node_modules\/(express|router|body-parser|raw-body|iconv-lite|content-type|type-is|finalhandler|send|on-finished|statuses|mime|media-typer|qs|depd|http-errors)\//,
    ],
    ["ajv validators (generated/)", /\/generated\//],
    ["src/auth, src/limits", /\/src\/(auth|limits)\//],
    ["src/http, src/rpc, src/mcp (this layer)", /\/src\/(http|rpc|mcp)\//],
    ["src/tools, src/writes, other src/", /\/src\//],
    ["node: http, net, streams", /^node:(_http|net|internal\/(streams|stream_base|http|net))/],
    ["node: module loading, tsx (start-up)", /^node:internal\/(modules|bootstrap)|node_modules\/tsx\//],
  ];
  const counts = new Map<string, number>();
  let busy = 0;
  for (const id of p.samples) {
    const { functionName, url } = byId.get(id)!.callFrame;
    if (functionName === "(idle)") continue;
    busy++;
    let label =
      functionName === "(garbage collector)"
        ? "garbage collector"
        : url === ""
          ? "native (writev, crypto, JSON, …)"
          : "other node internals (events, hashes, timers…)";
    for (const [g, re] of groups)
      if (url && re.test(url)) {
        label = g;
        break;
      }
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  console.log(`\nserver CPU profile ${file}: self time while busy, by owner of the sampled code (start-up included)`);
  for (const [label, n] of [...counts].sort((a, b) => b[1] - a[1])) console.log(`  ${label.padEnd(62)} ${((100 * n) / busy).toFixed(1).padStart(5)} %`);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const quick = process.argv.includes("--quick");
  const profileDir = arg("--profile");
  const duration = Number(arg("--duration") ?? (quick ? 1 : 4));
  const rounds = Number(arg("--rounds") ?? (quick ? 1 : 3));
  const warmup = quick ? 0 : 2; // whole seconds: autocannon rounds durations up
  const connections = Number(arg("--connections") ?? 16);
  const maxRequests = quick ? 20_000 : 400_000;
  const only = arg("--only")?.split(",") ?? (profileDir ? ["full"] : undefined);
  const { ports, child } = await startServers(profileDir);
  const all = targets(ports).filter((t) => !only || only.includes(t.key));
  const runs = new Map<string, Measured[]>();
  let failed = false;
  try {
    const live: Target[] = [];
    for (const t of all) {
      const res = await fetch(t.url, { method: "POST", headers: t.headers, body: t.body });
      const text = await res.text();
      if (!t.check(res.status, text)) {
        console.error(`${t.label}: unexpected answer ${res.status} ${text.slice(0, 300)}`);
        failed = true;
        continue;
      }
      if (warmup > 0) await measure(t, { duration: warmup, connections, maxRequests });
      live.push(t);
    }
    // Rounds interleave the targets, so a machine busy with something else hurts them alike.
    for (let round = 1; round <= rounds; round++) {
      for (const t of live) {
        const m = await measure(t, { duration, connections, maxRequests });
        if (m.errors > 0) {
          console.error(`${t.label}: ${m.errors} errors / non-2xx answers during the run`);
          failed = true;
        }
        runs.set(t.key, [...(runs.get(t.key) ?? []), m]);
        console.error(`  round ${round}/${rounds} ${t.label}: ${m.rps.toFixed(0)} req/s`);
      }
    }
  } finally {
    await stopServers(child);
  }

  const results = new Map<string, Measured>();
  for (const [k, ms] of runs) {
    results.set(k, {
      rps: median(ms.map((m) => m.rps)),
      p50: median(ms.map((m) => m.p50)),
      p99: median(ms.map((m) => m.p99)),
      requests: ms.reduce((n, m) => n + m.requests, 0),
      errors: ms.reduce((n, m) => n + m.errors, 0),
    });
  }
  const rows = all.filter((t) => results.has(t.key));
  const mode = quick ? "QUICK SMOKE RUN (numbers not meaningful)" : `median of ${rounds} rounds of ${duration} s per target`;
  console.log(`\nbench:protocol — ${mode}, ${connections} connections, loopback, Node ${process.version}\n`);
  console.log(`${"target".padEnd(46)} ${"req/s".padStart(9)} ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)} ${"requests".padStart(9)}`);
  for (const t of rows) {
    const m = results.get(t.key)!;
    console.log(
      `${t.label.padEnd(46)} ${m.rps.toFixed(0).padStart(9)} ${m.p50.toFixed(2).padStart(8)} ${m.p99.toFixed(2).padStart(8)} ${String(m.requests).padStart(9)}`,
    );
  }
  const rps = (k: string) => results.get(k)?.rps ?? NaN;
  const ratio = (a: string, b: string) => (rps(a) / rps(b)).toFixed(2);
  if (results.size > 1) {
    console.log("\nratios (throughput):");
    console.log(`  finance-mcp / bare echo                    ${ratio("full", "echo")}   (target >= 0.5)`);
    console.log(`  finance-mcp / SDK 1.x                      ${ratio("full", "sdkV1")}   (target >= 3)`);
    console.log(`  finance-mcp / SDK v2 (2025-11-25)          ${ratio("full", "sdkV2Legacy")}   (target >= 3)`);
    console.log(`  finance-mcp / SDK v2, both on 2026-07-28   ${ratio("fullModern", "sdkV2Modern")}   (target >= 3)`);
    console.log(`  SDK 1.x / bare echo                        ${ratio("sdkV1", "echo")}`);
    console.log(`  SDK v2 (2025-11-25) / bare echo            ${ratio("sdkV2Legacy", "echo")}`);
    console.log(`  SDK v2 (2026-07-28) / bare echo            ${ratio("sdkV2Modern", "echo")}`);
    console.log(`  VALIDATE_RESULTS=false / true              ${ratio("fullNoValidate", "full")}   (the cost of result validation)`);
  }
  if (profileDir) summarizeProfile(profileDir);
  if (failed) {
    console.error("\nbench:protocol: some targets failed (see above)");
    process.exit(1);
  }
}

if (process.argv.includes("--serve")) {
  serve().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
} else {
  // Awaited: scripts/bench.ts runs this scenario by importing it and exits when the import settles.
  try {
    await main();
    process.exit(0);
  } catch (err) {
    console.error(err);
    process.exit(1);
  }
}
