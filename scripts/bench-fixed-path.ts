/**
 * The fixed path of every call on Postgres (token and limit), A against B on one machine in one run:
 *
 *   npx tsx scripts/bench-fixed-path.ts [--rounds 3] [--seconds 4] [--connections 20]
 *
 * Two server processes over one scratch Postgres database (BENCH_PG_URL, default
 * postgres://postgres@127.0.0.1:5432/postgres): A as before this change (TOKEN_CACHE=off, limits in the
 * database), B with the token cache and REDIS_URL (default redis://127.0.0.1:6379). They are driven in
 * turn (A, B, A, B, …) with `whoami` over HTTP by autocannon, so that the drift of a shared machine falls
 * on both alike, and each turn records req/s, the server process's CPU and the Postgres server
 * processes' CPU (from /proc) per request. Prints one JSON line per turn and a summary.
 * docs/performance.md, "The fixed path on Postgres".
 */
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import pg from "pg";
import { createDb } from "../src/db/knex.js";
import { migrateLatest } from "../src/db/migrate.js";
import { createToken, KNOWN_SCOPES } from "../src/auth/tokens.js";
import { newId } from "../src/db/ids.js";
import { startServerProcess } from "../test/helpers/process.js";

const { values } = parseArgs({
  options: { rounds: { type: "string", default: "3" }, seconds: { type: "string", default: "4" }, connections: { type: "string", default: "20" } },
});
const adminUrl = process.env.BENCH_PG_URL || "postgres://postgres@127.0.0.1:5432/postgres";
const redisUrl = process.env.REDIS_URL || "redis://127.0.0.1:6379";
const dbName = `fmcp_fixed_path_${process.pid}`;

const cpuOf = (pid: number): number => {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
};

async function main(): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const u = new URL(adminUrl);
  u.pathname = `/${dbName}`;
  const url = u.toString();
  const db = createDb(url);
  const servers: Awaited<ReturnType<typeof startServerProcess>>[] = [];
  try {
    await migrateLatest(db);
    const userId = newId("usr");
    const at = new Date().toISOString();
    await db("users").insert({
      id: userId,
      email: "b@example.test",
      email_normalized: "b@example.test",
      password_hash: "x",
      timezone: "UTC",
      default_currency: "EUR",
      created_at: at,
      updated_at: at,
    });
    const tokens: string[] = [];
    for (let i = 0; i < 20; i++) tokens.push((await createToken(db, userId, { name: `t${i}`, scopes: [...KNOWN_SCOPES], expiresInDays: 1 }, "")).token);
    const common = { RATE_LIMIT_MCP_PER_MINUTE: "100000000", LOG_LEVEL: "silent" };
    const a = await startServerProcess(url, { ...common, TOKEN_CACHE: "off", REDIS_URL: "" });
    servers.push(a);
    const b = await startServerProcess(url, { ...common, TOKEN_CACHE: "on", REDIS_URL: redisUrl });
    servers.push(b);
    // CPU seconds of each Postgres server process of the database; a delta counts the processes alive at its end.
    const backends = async () =>
      new Map(
        ((await admin.query("SELECT pid FROM pg_stat_activity WHERE datname = $1", [dbName])).rows as { pid: number }[]).map((r) => [r.pid, cpuOf(r.pid)]),
      );
    const spent = (before: Map<number, number>, after: Map<number, number>) => [...after].reduce((s, [pid, c]) => s + c - (before.get(pid) ?? 0), 0);
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "whoami" });
    const turn = async (label: string, server: (typeof servers)[number]) => {
      let i = 0;
      const run = (seconds: number) =>
        autocannon({
          url: server.mcpUrl,
          connections: Number(values.connections),
          duration: seconds,
          requests: [
            {
              method: "POST",
              setupRequest: (req) => ({
                ...req,
                body,
                headers: {
                  "content-type": "application/json",
                  accept: "application/json, text/event-stream",
                  authorization: `Bearer ${tokens[i++ % tokens.length]}`,
                },
              }),
            },
          ],
        });
      await run(1); // warm
      const pgBefore = await backends();
      const cpuBefore = cpuOf(server.child.pid!);
      const load = loadavg()[0]!;
      const r = await run(Number(values.seconds));
      const n = r.requests.total;
      const line = {
        label,
        req_s: Math.round(r.requests.average),
        non_2xx: r.non2xx,
        server_cpu_ms_per_req: +(((cpuOf(server.child.pid!) - cpuBefore) * 1000) / n).toFixed(3),
        postgres_cpu_ms_per_req: +((spent(pgBefore, await backends()) * 1000) / n).toFixed(3),
        load_1min: +load.toFixed(1),
      };
      console.log(JSON.stringify(line));
      return line;
    };
    const results: Record<string, ReturnType<typeof Object>[]> = { A: [], B: [] };
    for (let round = 0; round < Number(values.rounds); round++) {
      results.A!.push(await turn("A: lookup + limiter upsert per call", a));
      results.B!.push(await turn("B: token cache + Redis limits", b));
    }
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
    for (const k of ["A", "B"]) {
      const rs = results[k] as unknown as { req_s: number; server_cpu_ms_per_req: number; postgres_cpu_ms_per_req: number }[];
      console.log(
        JSON.stringify({
          summary: k,
          median_req_s: median(rs.map((r) => r.req_s)),
          median_server_cpu_ms_per_req: median(rs.map((r) => r.server_cpu_ms_per_req)),
          median_postgres_cpu_ms_per_req: median(rs.map((r) => r.postgres_cpu_ms_per_req)),
        }),
      );
    }
  } finally {
    for (const s of servers) await s.stop();
    await db.destroy();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
}

await main();
