/**
 * How undo_change's time grows with the rows it undoes (issue 41: "Undo is linear in its rows"):
 *
 *   FINANCE_TEST_ENGINE=sqlite|postgres npm run bench -- undo [--rows 1250,2500,5000]
 *
 * For each size, imports a synthetic statement of that many rows into a new wallet (one change), then
 * times the undo's dry run and its commit through the tools, and prints one JSON line per size: rows,
 * seconds for the dry run and the undo, and the undo's CPU seconds of this process (on SQLite the
 * database's work is in it; wall time on a shared machine is noisy) per 1,000 rows: flat when linear. The
 * test server of the test suite (test/helpers/server.ts) runs in this process, on a database of its own.
 * Results: docs/performance.md, "Undo".
 */
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { girokontoCsv } from "../statement.js";
import { engine } from "../../../test/helpers/database.js";
import { startTestServer } from "../../../test/helpers/server.js";

const { values } = parseArgs({ options: { rows: { type: "string", default: "1250,2500,5000" } } });
const sizes = values.rows.split(",").map(Number);

const server = await startTestServer({ LOG_LEVEL: "silent" });
try {
  const u = await server.createUser();
  for (const rows of sizes) {
    const wallet = (
      await server.call(
        "create_wallet",
        { name: `Giro ${rows} ${randomUUID().slice(0, 6)}`, type: "checking", currency: "EUR", idempotency_key: randomUUID() },
        u.token,
      )
    ).wallet as { id: string };
    const made = await server.call("import_transactions", { wallet_id: wallet.id, statement: girokontoCsv(rows), idempotency_key: randomUUID() }, u.token);
    const time = async (dryRun: boolean) => {
      const started = performance.now();
      const cpu = process.cpuUsage();
      await server.call("undo_change", { audit_id: made.audit_id, idempotency_key: randomUUID(), dry_run: dryRun }, u.token);
      const used = process.cpuUsage(cpu);
      return { wall: (performance.now() - started) / 1000, cpu: (used.user + used.system) / 1e6 };
    };
    const dry = await time(true);
    const undo = await time(false);
    const s = (x: number) => +x.toFixed(2);
    console.log(
      JSON.stringify({
        engine,
        rows,
        dry_run_s: s(dry.wall),
        undo_s: s(undo.wall),
        undo_cpu_s: s(undo.cpu),
        undo_cpu_s_per_1000: +((undo.cpu / rows) * 1000).toFixed(3),
      }),
    );
  }
} finally {
  await server.close();
}
