/**
 * How long `finance-mcp import` takes for a large account, and how much memory it holds:
 *
 *   npm run bench -- import [--engine sqlite|postgres] [--transactions N] [--payees P] [--alongside]
 *
 * Writes an export of N transactions (default 100,000; four wallets, one or two tags each, an audit entry
 * per transaction; P distinct payees, default 500) to a temporary file, imports it with importFile (the
 * CLI's path: streamed, checked, batched, one database transaction) into a new database, and prints one
 * JSON line: seconds, rows per second, the CPU seconds of this process and (Postgres on this machine) of
 * the database's server processes, the file's size and the process's peak RSS before and after. Postgres:
 * a scratch database on BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres), dropped
 * afterwards. Results: docs/performance.md, "Import".
 *
 * --alongside (issue 41: "other users' writes unaffected"): the import runs as the real CLI in a process of
 * its own (`node bin/finance-mcp.js import --email … FILE`, the compiled build), while the real server
 * (`node bin/finance-mcp.js serve`) on the same database answers another person's create_transaction
 * calls, two at a time, from before the import starts until it ends. The line adds their count, how many
 * were answered with a result, with an error, or not at all within 30 s, and their latency p50/p99/max.
 * The writes run alone for --baseline S seconds first (default 20), reported as other_alone_p50_ms/p99,
 * so the figures during the import have the same machine's figures without it beside them.
 *
 * --through-tools: instead of the CLI, the same N transactions of P payees through the real server's
 * import_transactions, one Girokonto CSV statement of at most x-limits.bulk_write_rows rows per call,
 * while another person writes as with --alongside (implied).
 *
 * --summary-ab (Postgres): no export; the recurring summary's insert trigger alone, A/B. N rows of P
 * distinct payees inserted by SQL in statements of 5,000 (the restore's COPY size) in one transaction
 * with the totals' row triggers off (as the restore has them), rolled back, three ways, twice: the
 * set-based refresh (migration 20261128150000), the per-payee refresh it replaced, and no summary
 * trigger at all. One JSON line per run; the summary's cost is a run's seconds minus the last.
 */
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { randomBytes, randomUUID } from "node:crypto";
import { spawn } from "node:child_process";
import pg from "pg";
import { createDb } from "../../../src/db/knex.js";
import { migrateLatest, migrationsDirectory } from "../../../src/db/migrate.js";
import { pathToFileURL } from "node:url";
import { newId } from "../../../src/db/ids.js";
import { lastMigration } from "../../../src/portability/export.js";
import { importFile } from "../../../src/portability/import.js";
import { createToken, KNOWN_SCOPES } from "../../../src/auth/tokens.js";
import { ROOT, startFinanceServer } from "../processes.js";
import { girokontoCsv } from "../statement.js";
import { limits } from "../../../generated/limits.js";

/** The set-based summary's migration, for --summary-ab (down: the per-payee refresh; up: set-based). */
const setBased = (await import(pathToFileURL(join(migrationsDirectory, "20261128150000_recurring_payees_set_based.js")).href)) as {
  up(db: ReturnType<typeof createDb>): Promise<void>;
  down(db: ReturnType<typeof createDb>): Promise<void>;
};

const { values } = parseArgs({
  options: {
    engine: { type: "string", default: "sqlite" },
    transactions: { type: "string", default: "100000" },
    payees: { type: "string", default: "500" },
    alongside: { type: "boolean", default: false },
    "summary-ab": { type: "boolean", default: false },
    "through-tools": { type: "boolean", default: false },
    baseline: { type: "string", default: "20" },
  },
});
const engine = values.engine === "postgres" ? "postgres" : "sqlite";
const n = Number(values.transactions);
const payees = Number(values.payees);
const folder = mkdtempSync(join(tmpdir(), "fmcp-import-bench-"));
const adminUrl = process.env.BENCH_PG_URL || "postgres://postgres@127.0.0.1:5432/postgres";
const dbName = `fmcp_import_bench_${process.pid}`;

async function writeExport(path: string, schema: string): Promise<void> {
  const out = createWriteStream(path);
  const write = (s: string) => (out.write(s) ? Promise.resolve() : new Promise<void>((r) => out.once("drain", () => r())));
  const at = "2026-01-01T00:00:00.000Z";
  const wallets = ["Checking", "Savings", "Cash", "Card"].map((name) => ({ id: newId("wal"), name, type: "checking", currency: "EUR" }));
  await write(
    `{"format":"finance-mcp-export","version":1,"exported_at":"${at}","schema":${JSON.stringify(schema)},"user":{"email":"x@example.test","timezone":"UTC","default_currency":"EUR"},\n"wallets":[`,
  );
  await write(
    wallets
      .map((w) =>
        JSON.stringify({
          ...w,
          name_normalized: w.name.toLowerCase(),
          opening_balance_minor: 0,
          opening_date: null,
          archived: false,
          notes: null,
          created_at: at,
          updated_at: at,
        }),
      )
      .join(","),
  );
  await write('],\n"transactions":[');
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = newId("txn");
    ids.push(id);
    const income = i % 10 === 0;
    const day = `20${20 + (i % 7)}-${String(1 + (i % 12)).padStart(2, "0")}-${String(1 + (i % 28)).padStart(2, "0")}`;
    const row = {
      id,
      wallet_id: wallets[i % 4]!.id,
      date: day,
      amount_minor: income ? 250000 : -(100 + (i % 9000)),
      currency: "EUR",
      direction: income ? "income" : "expense",
      payee: `Shop ${i % payees}`,
      description: null,
      category: ["Groceries", "Rent", "Travel", "Fun"][i % 4],
      notes: null,
      external_id: null,
      transfer_id: null,
      counterpart_wallet_id: null,
      created_at: at,
      updated_at: at,
      category_key: null,
      payee_key: null,
      tags: i % 3 === 0 ? ["weekly", "food"] : ["weekly"],
    };
    await write(`${i === 0 ? "" : ","}\n${JSON.stringify(row)}`);
  }
  await write('],\n"budgets":[],"goals":[],"goal_contributions":[],"bill_reminders":[],\n"audit_log":[');
  for (let i = 0; i < n; i++) {
    const entry = {
      id: i + 1,
      created_at: at,
      tool: "create_transaction",
      action: "create",
      resource_type: "transaction",
      resource_id: ids[i],
      before_json: null,
      after_json: JSON.stringify({ transaction: { id: ids[i] }, counterpart: null }),
      idempotency_key: randomUUID(),
      request_id: `req-${i}`,
    };
    await write(`${i === 0 ? "" : ","}\n${JSON.stringify(entry)}`);
  }
  await write("]}\n");
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
}

/** CPU seconds used so far by each server process of this database (Postgres on this machine: /proc). */
async function backendCpu(db: ReturnType<typeof createDb>): Promise<Map<number, number>> {
  const cpu = new Map<number, number>();
  if (engine !== "postgres") return cpu;
  const { rows } = (await db.raw("SELECT pid FROM pg_stat_activity WHERE datname = current_database()")) as { rows: { pid: number }[] };
  for (const { pid } of rows) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      cpu.set(pid, (Number(fields[11]) + Number(fields[12])) / 100); // utime + stime, in clock ticks of 1/100 s
    } catch {
      // not on this machine: no figure
    }
  }
  return cpu;
}

interface Alongside {
  stop(): Promise<Record<string, unknown>>;
  /** A tool call to the same server with another token (--through-tools: the bench user's). */
  callAs(token: string, method: string, params: Record<string, unknown>): Promise<{ result?: any; error?: { code: number; message: string } }>;
  pepper: string;
}

/** Another person's writes through the real server, two at a time, until stopped. */
async function writesAlongside(db: ReturnType<typeof createDb>, url: string): Promise<Alongside> {
  const pepper = randomBytes(24).toString("hex");
  const other = newId("usr");
  const at = new Date().toISOString();
  await db("users").insert({
    id: other,
    email: "other@example.test",
    email_normalized: "other@example.test",
    password_hash: "x",
    timezone: "UTC",
    default_currency: "EUR",
    created_at: at,
    updated_at: at,
  });
  const { token } = await createToken(db, other, { name: "bench", scopes: [...KNOWN_SCOPES], expiresInDays: 1 }, pepper);
  const server = await startFinanceServer({ databaseUrl: url, env: { TOKEN_PEPPER: pepper, LOG_LEVEL: "info", RATE_LIMIT_MCP_PER_MINUTE: "100000000" } });
  const mcp = `http://127.0.0.1:${server.port}/api/v1/mcp`;
  let id = 1;
  const callAs = async (as: string, method: string, params: Record<string, unknown>, timeoutMs = 30_000) => {
    const res = await fetch(mcp, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${as}` },
      body: JSON.stringify({ jsonrpc: "2.0", id: id++, method, params }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    return (await res.json()) as { result?: any; error?: { code: number; message: string } };
  };
  const call = (method: string, params: Record<string, unknown>) => callAs(token, method, params);
  const wallet = (await call("create_wallet", { name: "Other", type: "checking", currency: "EUR", idempotency_key: randomUUID() })).result.wallet.id as string;
  let latencies: number[] = [];
  let answered = 0;
  let errors = 0;
  const errorKinds = new Set<string>();
  let unanswered = 0;
  let running = true;
  const loop = async () => {
    for (let i = 0; running; i++) {
      const started = performance.now();
      try {
        const answer = await call("create_transaction", {
          wallet_id: wallet,
          date: "2026-03-01",
          amount: "2.50",
          direction: "expense",
          payee: `Bakery ${i % 50}`,
          idempotency_key: randomUUID(),
        });
        latencies.push(performance.now() - started);
        if (answer.result) answered++;
        else {
          errors++;
          errorKinds.add(`${answer.error?.code} ${answer.error?.message}`);
        }
      } catch {
        unanswered++;
      }
    }
  };
  const loops = [loop(), loop()];
  await new Promise((r) => setTimeout(r, Number(values.baseline) * 1000)); // the writes alone, before the import starts
  const alone = latencies;
  latencies = [];
  const aloneErrors = errors;
  const percentile = (list: number[], q: number) => {
    const sorted = [...list].sort((a, b) => a - b);
    return +(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0).toFixed(0);
  };
  return {
    pepper,
    callAs: (as, method, params) => callAs(as, method, params, 600_000),
    async stop() {
      running = false;
      await Promise.all(loops);
      await server.stop();
      const during = latencies.length + unanswered;
      return {
        other_alone_writes: alone.length,
        other_alone_errors: aloneErrors,
        other_alone_p50_ms: percentile(alone, 0.5),
        other_alone_p99_ms: percentile(alone, 0.99),
        other_writes: during,
        other_answered: answered - (alone.length - aloneErrors),
        other_errors: errors - aloneErrors,
        ...(errorKinds.size > 0 ? { other_error_kinds: [...errorKinds].slice(0, 5) } : {}),
        other_unanswered: unanswered,
        other_p50_ms: percentile(latencies, 0.5),
        other_p99_ms: percentile(latencies, 0.99),
        other_max_ms: percentile(latencies, 1),
      };
    },
  };
}

/** `finance-mcp import --email E FILE`, the compiled CLI in a process of its own; its standard output. */
function cliImport(url: string, email: string, file: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ["bin/finance-mcp.js", "import", "--email", email, file], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: url },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolvePromise(out) : reject(new Error(`finance-mcp import exited ${code}: ${err.slice(-2000)}`))));
  });
}

/** --summary-ab: the insert trigger's cost, three ways, on the scratch database (user and wallet made here). */
async function summaryAb(db: ReturnType<typeof createDb>, userId: string): Promise<void> {
  const at = "2026-01-01T00:00:00.000Z";
  const walletId = newId("wal");
  await db("wallets").insert({
    id: walletId,
    user_id: userId,
    name: "W",
    name_normalized: "w",
    type: "checking",
    currency: "EUR",
    opening_balance_minor: 0,
    archived: false,
    created_at: at,
    updated_at: at,
  });
  const run = async (label: string) => {
    const trx = await db.transaction();
    await trx.raw("SET LOCAL finance_mcp.bulk = 'on'");
    const started = performance.now();
    for (let i = 0; i < n; i += 5000) {
      await trx.raw(
        `INSERT INTO transactions (id, user_id, wallet_id, date, amount_minor, currency, direction, payee, created_at, updated_at, tags_key)
         SELECT 'txn_summaryab' || lpad(g::text, 12, '0'), ?, ?, '2026-01-' || lpad((1 + g % 28)::text, 2, '0'), -100, 'EUR', 'expense',
                'Shop ' || (g % ?), ?, ?, '[]'
           FROM generate_series(?::int, ?::int) g`,
        [userId, walletId, payees, at, at, i, Math.min(n, i + 5000) - 1],
      );
    }
    const seconds = (performance.now() - started) / 1000;
    const summarised = Number((await trx("recurring_payees").count({ n: "*" }))[0]!.n);
    await trx.rollback();
    console.log(JSON.stringify({ run: label, transactions: n, payees, seconds: +seconds.toFixed(2), summarised, load: +loadavg()[0]!.toFixed(1) }));
  };
  for (let round = 0; round < 2; round++) {
    await run("set-based refresh (20261128150000)");
    await setBased.down(db);
    await run("per-payee refresh (20261128130000)");
    await setBased.up(db);
    await db.raw("ALTER TABLE transactions DISABLE TRIGGER recurring_payees_insert");
    await run("no summary trigger");
    await db.raw("ALTER TABLE transactions ENABLE TRIGGER recurring_payees_insert");
  }
}

/**
 * --through-tools: the same N transactions of P distinct payees through import_transactions, in
 * statements of at most the cap (x-limits.bulk_write_rows), each one call, while another person writes.
 */
async function throughTools(db: ReturnType<typeof createDb>, userId: string, url: string): Promise<void> {
  const others = await writesAlongside(db, url);
  const { token } = await createToken(db, userId, { name: "bench import", scopes: [...KNOWN_SCOPES], expiresInDays: 1 }, others.pepper);
  const wallet = (await others.callAs(token, "create_wallet", { name: "Giro", type: "checking", currency: "EUR", idempotency_key: randomUUID() })).result.wallet
    .id as string;
  const calls: number[] = [];
  let imported = 0;
  const started = performance.now();
  for (let offset = 0; offset < n; offset += limits.bulkWriteRows) {
    const rows = Math.min(limits.bulkWriteRows, n - offset);
    const statement = girokontoCsv(rows, "2026-11-24", { payee: (i) => `Shop ${(offset + i) % payees}`, cents: (i) => 100 + offset + i });
    const t = performance.now();
    const answer = await others.callAs(token, "import_transactions", { wallet_id: wallet, statement, idempotency_key: randomUUID() });
    calls.push((performance.now() - t) / 1000);
    if (!answer.result) throw new Error(`import_transactions at row ${offset}: ${answer.error?.code} ${answer.error?.message}`);
    imported += Number(answer.result.counts?.created ?? 0);
  }
  const seconds = (performance.now() - started) / 1000;
  const summarised = Number((await db("recurring_payees").where({ user_id: userId }).count({ n: "*" }))[0]!.n);
  console.log(
    JSON.stringify({
      engine,
      through: "import_transactions",
      transactions: imported,
      payees: summarised,
      calls: calls.length,
      rows_per_call: limits.bulkWriteRows,
      seconds: +seconds.toFixed(1),
      call_seconds_max: +Math.max(...calls).toFixed(1),
      // Each call's seconds in order: a call's work must not grow with the wallet's history (issue 41).
      call_seconds: calls.map((s) => +s.toFixed(1)),
      load: +loadavg()[0]!.toFixed(1),
      ...(await others.stop()),
    }),
  );
}

async function main(): Promise<void> {
  let url = `sqlite:${join(folder, "bench.sqlite")}`;
  if (engine === "postgres") {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`);
    await admin.end();
    const u = new URL(adminUrl);
    u.pathname = `/${dbName}`;
    url = u.toString();
  }
  const db = createDb(url);
  try {
    await migrateLatest(db);
    const userId = newId("usr");
    await db("users").insert({
      id: userId,
      email: "bench@example.test",
      email_normalized: "bench@example.test",
      password_hash: "x",
      timezone: "UTC",
      default_currency: "EUR",
      created_at: "2026-01-01T00:00:00.000Z",
      updated_at: "2026-01-01T00:00:00.000Z",
    });
    if (values["summary-ab"]) {
      if (engine !== "postgres") throw new Error("--summary-ab measures the Postgres trigger: add --engine postgres");
      await summaryAb(db, userId);
      return;
    }
    if (values["through-tools"]) {
      await throughTools(db, userId, url);
      return;
    }
    const file = join(folder, "export.json");
    await writeExport(file, await lastMigration(db));
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    const serverBefore = await backendCpu(db);
    const cpuBefore = process.cpuUsage();
    let peakHeap = 0;
    const sampler = setInterval(() => (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)), 50);
    const alongside = values.alongside ? await writesAlongside(db, url) : undefined;
    const started = process.hrtime.bigint();
    const counts: Record<string, number> = alongside
      ? (JSON.parse((await cliImport(url, "bench@example.test", file)).trim().split("\n").at(-1)!) as { imported: Record<string, number> }).imported
      : (await importFile(db, userId, file)).counts;
    clearInterval(sampler);
    const others = await alongside?.stop();
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const cpu = process.cpuUsage(cpuBefore);
    const serverAfter = await backendCpu(db);
    const serverCpu = [...serverAfter].reduce((sum, [pid, s]) => sum + s - (serverBefore.get(pid) ?? 0), 0);
    const peakRss = process.resourceUsage().maxRSS * 1024;
    console.log(
      JSON.stringify({
        engine,
        transactions: counts.transactions,
        payees: Math.min(payees, counts.transactions ?? 0),
        ...(alongside ? { through: "the CLI process" } : {}),
        audit_entries: counts.audit_log,
        file_mb: +(statSync(file).size / 1048576).toFixed(1),
        seconds: +seconds.toFixed(1),
        rows_per_second: Math.round(((counts.transactions ?? 0) + (counts.audit_log ?? 0)) / seconds),
        // CPU, comparable across runs on a loaded machine where the wall time is not
        // (--alongside: the import is another process; these are the bench's own and left out)
        ...(alongside ? {} : { client_cpu_s: +((cpu.user + cpu.system) / 1e6).toFixed(1) }),
        // (--alongside: the import's server process comes and goes with the CLI, out of this sample)
        ...(engine === "postgres" && !alongside ? { server_cpu_s: +serverCpu.toFixed(1) } : {}),
        ...(alongside
          ? {}
          : {
              rss_before_import_mb: +(rssBefore / 1048576).toFixed(0),
              peak_rss_mb: +(peakRss / 1048576).toFixed(0),
              peak_heap_used_mb: +(peakHeap / 1048576).toFixed(0), // sampled every 50 ms: what the heap held, garbage included
            }),
        ...others,
      }),
    );
  } finally {
    await db.destroy();
    rmSync(folder, { recursive: true, force: true });
    if (engine === "postgres") {
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${dbName}`);
      await admin.end();
    }
  }
}

await main();
