/**
 * The fixed path of every call, one build against another on one machine in one run (docs/performance.md,
 * "The fixed path, cut"):
 *
 *   npx tsx scripts/bench-fixed-ab.ts --a /tmp/base [--b .] [--engine sqlite|postgres] [--redis]
 *     [--rows whoami,tools/call whoami,get_wallet_balance] [--rounds 3] [--seconds 5] [--connections 50]
 *     [--profile DIR] [--echo] [--tokens 40] [--env-a K=V,…] [--env-b K=V,…]
 *
 * A and B are two checkouts, each built (`npm run build`); each runs as production does (`node
 * bin/finance-mcp.js serve`, NODE_ENV=production, LOG_LEVEL=info, limits on with a limit no call reaches)
 * over the same data: on SQLite a copy of one seeded file each (one process per file), on Postgres one
 * scratch database (BENCH_PG_URL, default postgres://postgres@127.0.0.1:5432/postgres) and REDIS_URL
 * (default redis://127.0.0.1:6379) for both. Per row the two are driven in turn (A, B, A, B, …) by
 * autocannon in this process, so the drift of a shared machine falls on both alike; each turn records
 * req/s and the server's CPU per call (from /proc) with the load average. With --profile each server
 * runs under node --cpu-prof and writes its profile there when it stops. With --echo the benchmark's bare
 * express echo (scripts/bench/baselines.ts) is driven in the same turns, and each row's medians are given
 * as ratios to its median (the benchmark's targets are such ratios). --env-a/--env-b add environment
 * variables to one server (e.g. the same checkout twice, `--env-b REDIS_URL=redis://127.0.0.1:6379`, to
 * measure the SQLite limit check against Redis's); --tokens sets how many tokens the calls rotate over.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { randomBytes } from "node:crypto";
import autocannon from "autocannon";
import pg from "pg";
import { createDb } from "../src/db/knex.js";
import { migrateLatest } from "../src/db/migrate.js";
import { createToken, KNOWN_SCOPES } from "../src/auth/tokens.js";
import { newId } from "../src/db/ids.js";

const { values } = parseArgs({
  options: {
    a: { type: "string" },
    b: { type: "string", default: "." },
    engine: { type: "string", default: "sqlite" },
    redis: { type: "boolean", default: false },
    rows: { type: "string", default: "whoami,tools/call whoami,get_wallet_balance" },
    rounds: { type: "string", default: "3" },
    seconds: { type: "string", default: "5" },
    connections: { type: "string", default: "50" },
    profile: { type: "string" },
    echo: { type: "boolean", default: false },
    tokens: { type: "string", default: "40" },
    "env-a": { type: "string", default: "" },
    "env-b": { type: "string", default: "" },
  },
});
if (!values.a) throw new Error("--a DIR (the checkout to compare against) is required");
const postgres = values.engine === "postgres";
const adminUrl = process.env.BENCH_PG_URL || "postgres://postgres@127.0.0.1:5432/postgres";
const redisUrl = process.env.REDIS_URL || "redis://127.0.0.1:6379";
const pepper = randomBytes(32).toString("base64url");

const cpuOf = (pid: number): number => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(f[11]) + Number(f[12])) / 100;
};

interface Server {
  label: string;
  url: string;
  child: ChildProcess;
  wallet?: string;
}

/** "K=V,K=V" as an environment (an empty value clears the variable). */
const envOf = (spec: string): Record<string, string> =>
  Object.fromEntries(
    spec
      .split(",")
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
  );

function start(label: string, dir: string, databaseUrl: string, extra: Record<string, string> = {}): Promise<Server> {
  const args = values.profile ? ["--cpu-prof", "--cpu-prof-dir", resolve(values.profile, label)] : [];
  const child = spawn(process.execPath, [...args, join(resolve(dir), "bin/finance-mcp.js"), "serve"], {
    cwd: resolve(dir),
    env: {
      ...process.env,
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      PORT: "0",
      LOG_LEVEL: "info",
      TOKEN_PEPPER: pepper,
      RATE_LIMIT_MCP_PER_MINUTE: "100000000",
      REDIS_URL: postgres || values.redis ? redisUrl : "",
      DATABASE_URL: databaseUrl,
      ...extra,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((ok, fail) => {
    let rest = "";
    const timer = setTimeout(() => fail(new Error(`${label} did not start`)), 30_000);
    const onLine = (chunk: Buffer) => {
      const lines = (rest + chunk.toString()).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) {
        if (!line.includes('"listening"')) continue;
        clearTimeout(timer);
        ok({ label, url: (JSON.parse(line) as { url: string }).url, child });
      }
    };
    child.stderr!.on("data", onLine); // every log line is read (and dropped), as a log shipper would
    child.stdout!.on("data", onLine);
    child.once("exit", (code) => fail(new Error(`${label} exited (${code})`)));
  });
}

/** The benchmark's echo baseline in a process of its own; its "url" is its POST path. */
function startEcho(): Promise<Server> {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/bench/baseline-server.ts", "echo"], {
    cwd: resolve("."),
    env: { ...process.env, NODE_ENV: "production" },
    stdio: ["pipe", "pipe", "inherit"],
  });
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error("echo did not start")), 30_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      const m = /"echo":(\d+)/.exec(chunk.toString());
      if (!m) return;
      clearTimeout(timer);
      ok({ label: "echo", url: `http://127.0.0.1:${m[1]}/mcp`, child });
    });
    child.once("exit", (code) => fail(new Error(`echo exited (${code})`)));
  });
}

async function stop(s: Server): Promise<void> {
  if (s.child.exitCode !== null) return;
  const exited = new Promise((r) => s.child.once("exit", r));
  s.child.kill("SIGTERM");
  await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
  if (s.child.exitCode === null) s.child.kill("SIGKILL");
}

async function seed(databaseUrl: string): Promise<string[]> {
  const db = createDb(databaseUrl);
  try {
    await migrateLatest(db);
    const userId = newId("usr");
    const at = new Date().toISOString();
    await db("users").insert({
      id: userId,
      email: "ab@example.test",
      email_normalized: "ab@example.test",
      password_hash: "x",
      timezone: "UTC",
      default_currency: "EUR",
      created_at: at,
      updated_at: at,
    });
    const tokens: string[] = [];
    for (let i = 0; i < Number(values.tokens); i++)
      tokens.push((await createToken(db, userId, { name: `t${i}`, scopes: [...KNOWN_SCOPES], expiresInDays: 1 }, pepper)).token);
    return tokens;
  } finally {
    await db.destroy();
  }
}

async function call(s: Server, token: string, method: string, params: unknown): Promise<unknown> {
  const r = await fetch(s.url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await r.json()) as { result?: unknown; error?: unknown };
  if (!("result" in body)) throw new Error(`${method}: ${JSON.stringify(body)}`);
  return body.result;
}

function bodyOf(row: string, s: Server): string {
  if (row === "whoami") return JSON.stringify({ jsonrpc: "2.0", id: 1, method: "whoami", params: {} });
  if (row === "tools/call whoami") return JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "whoami", arguments: {} } });
  if (row === "get_wallet_balance") return JSON.stringify({ jsonrpc: "2.0", id: 1, method: "get_wallet_balance", params: { wallet_id: s.wallet } });
  throw new Error(`unknown row ${row}`);
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), "fmcp-ab-"));
  const dbName = `fmcp_fixed_ab_${process.pid}`;
  const admin = postgres ? new pg.Client({ connectionString: adminUrl }) : undefined;
  const servers: Server[] = [];
  try {
    let urlA: string;
    let urlB: string;
    let tokens: string[];
    if (admin) {
      await admin.connect();
      await admin.query(`CREATE DATABASE ${dbName}`);
      const u = new URL(adminUrl);
      u.pathname = `/${dbName}`;
      urlA = urlB = u.toString();
      tokens = await seed(urlA);
    } else {
      const file = join(work, "seed.sqlite");
      tokens = await seed(`sqlite:${file}`);
      copyFileSync(file, join(work, "a.sqlite"));
      copyFileSync(file, join(work, "b.sqlite"));
      urlA = `sqlite:${join(work, "a.sqlite")}`;
      urlB = `sqlite:${join(work, "b.sqlite")}`;
    }
    const a = await start("A", values.a!, urlA, envOf(values["env-a"]!));
    servers.push(a);
    const b = await start("B", values.b!, urlB, envOf(values["env-b"]!));
    servers.push(b);
    const echo = values.echo ? await startEcho() : undefined;
    for (const s of [a, b]) {
      const w = (await call(s, tokens[0]!, "create_wallet", {
        name: `Checking ${s.label}`,
        type: "checking",
        currency: "EUR",
        opening_balance: "100.00",
        idempotency_key: crypto.randomUUID(),
      })) as {
        wallet?: { id: string };
        id?: string;
      };
      s.wallet = w.wallet?.id ?? w.id;
    }
    const half = tokens.length / 2; // on Postgres each process its own tokens, so neither counts the other's calls
    const tokensOf = (s: Server) => (postgres ? (s === a ? tokens.slice(0, half) : tokens.slice(half)) : tokens);
    const turn = async (row: string, s: Server, seconds: number, record: boolean) => {
      const ts = tokensOf(s);
      let i = 0;
      const body = bodyOf(row, s);
      const cpuBefore = cpuOf(s.child.pid!);
      const load = loadavg()[0]!;
      const r = await autocannon({
        url: s.url,
        connections: Number(values.connections),
        duration: seconds,
        requests: [
          {
            method: "POST",
            setupRequest: (req) => ({
              ...req,
              body,
              headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${ts[i++ % ts.length]}` },
            }),
          },
        ],
      });
      if (!record) return undefined;
      const n = r.requests.total;
      const line = {
        row,
        server: s.label,
        req_s: Math.round(r.requests.average),
        non_2xx: r.non2xx,
        errors: r.errors,
        cpu_ms_per_req: +(((cpuOf(s.child.pid!) - cpuBefore) * 1000) / n).toFixed(3),
        load_1min: +load.toFixed(2),
      };
      console.log(JSON.stringify(line));
      return line;
    };
    if (echo) servers.push(echo);
    // Warm each (JIT): a fresh node server keeps getting faster for tens of thousands of requests.
    for (const s of servers) for (const row of s === echo ? ["whoami"] : values.rows!.split(",")) await turn(row, s, s === echo ? 10 : 4, false);
    const summary: Record<string, unknown>[] = [];
    for (const row of values.rows!.split(",")) {
      const got: Record<string, { req_s: number; cpu_ms_per_req: number }[]> = { A: [], B: [], echo: [] };
      for (let round = 0; round < Number(values.rounds); round++) {
        const order = round % 2 === 0 ? [a, b] : [b, a];
        for (const s of echo ? [echo, ...order] : order) got[s.label]!.push((await turn(row, s, Number(values.seconds), true))!);
      }
      const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
      const m = (k: string) => ({ req_s: median(got[k]!.map((r) => r.req_s)), cpu_ms_per_req: median(got[k]!.map((r) => r.cpu_ms_per_req)) });
      const ratios = echo
        ? { a_over_echo: +(m("A").req_s / m("echo").req_s).toFixed(3), b_over_echo: +(m("B").req_s / m("echo").req_s).toFixed(3), echo: m("echo") }
        : {};
      summary.push({ row, A: m("A"), B: m("B"), b_over_a: +(m("B").req_s / m("A").req_s).toFixed(3), ...ratios });
    }
    for (const s of summary) console.log(JSON.stringify({ summary: s }));
  } finally {
    for (const s of servers) await stop(s);
    if (admin) {
      await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
      await admin.end();
    }
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
