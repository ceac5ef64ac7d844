/**
 * The ceiling for an answer of a given size: a bare express server that answers every POST with the same
 * pre-built JSON body of N bytes, driven like `npm run bench` drives its rows (autocannon, 50 connections,
 * 3 s warm-up, 10 s measured, server in its own process). docs/performance.md uses it to show what the
 * size of the tools/list answer alone costs on this stack, and what Postgres round trips alone cost:
 *
 *   npm run bench -- fixed-answer [--queries K] [bytes …]     (default: 100 287000)
 *
 * --queries K: before answering, run K `SELECT 1` one after the other on a pg pool of the service's size
 * (10) against DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres).
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import express from "express";
import pg from "pg";

async function serve(bytes: number, queries: number): Promise<void> {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { pad: "x".repeat(Math.max(0, bytes - 44)) } });
  const pool = queries > 0 ? new pg.Pool({ connectionString: process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres", max: 10 }) : null;
  const app = express();
  app.use(express.json());
  app.post("/", async (_req, res) => {
    for (let i = 0; i < queries; i++) await pool!.query("SELECT 1");
    res.type("application/json").send(body);
  });
  const server = app.listen(0, "127.0.0.1", () => {
    const address = server.address();
    process.stdout.write(`${typeof address === "object" && address ? address.port : 0} ${body.length}\n`);
  });
  process.stdin.on("end", () => process.exit(0));
  process.stdin.resume();
}

async function measure(bytes: number, queries: number): Promise<void> {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), "--serve", String(bytes), String(queries)], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const [port, size] = await new Promise<string[]>((resolve) => createInterface({ input: child.stdout! }).once("line", (l) => resolve(l.split(" "))));
  const opts = {
    url: `http://127.0.0.1:${port}/`,
    method: "POST" as const,
    connections: 50,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  };
  await autocannon({ ...opts, duration: 3 });
  const r = await autocannon({ ...opts, duration: 10 });
  console.log(
    `fixed ${size}-byte answer${queries > 0 ? ` after ${queries} Postgres round trips` : ""}: ${Math.round(r.requests.average)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms`,
  );
  child.stdin!.end();
}

const args = process.argv.slice(2);
if (args[0] === "--serve") await serve(Number(args[1]), Number(args[2]));
else {
  const q = args.indexOf("--queries");
  const queries = q >= 0 ? Number(args.splice(q, 2)[1]) : 0;
  for (const bytes of args.length > 0 ? args.map(Number) : [100, 287_000]) await measure(bytes, queries);
}
