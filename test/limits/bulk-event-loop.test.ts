/**
 * The largest allowed call of each bulk path holds up no one (issue 51): beside an import at the cap (preview
 * and commit), a bulk edit of 5,000 rows, a rule applied to 5,000 past rows and the undo of each (dry run
 * and commit), another user's stream of whoami calls is answered, and every answer stays within the
 * answer budget (src/mcp/answer-budgets.ts anyAnswerTokens).
 *
 * Asserted, on both engines: the p99 of the whoami latencies and the event loop's longest block under the
 * issue's 250 ms. The whoami stream runs in this process, which also runs the server, so a blocked event
 * loop delays it as it would delay any other request, and on SQLite a call that waited for the write
 * transaction's connection shows too.
 *
 * How it stays robust on a loaded machine (the suite runs on 2 shared cores at a load average of 10): both
 * figures are taken on the process's own clock, i.e. wall time less the time the main thread was ready to
 * run but not scheduled (its run-queue wait, the second field of Linux's /proc/thread-self/schedstat),
 * and the main thread's sleep in a garbage collection pause while V8's helper threads waited for a CPU
 * (a 305 ms whoami in CI at load 12: test/helpers/own-clock.ts). That discounts exactly what other processes' load adds, and keeps everything this process causes:
 * its CPU work, its waits for a lock, the disk (fsync), Postgres. Elsewhere (no schedstat) the figures are
 * wall time. Wall figures are printed beside them. And, load-free, on SQLite: no read repeated page after
 * page sorts every page (each page is one range of an index). The margin comes from small slices: the work runs in
 * stretches of about 10 ms between turns of the loop (src/db/pace.ts, statements of a few hundred rows);
 * at a load average of 10–12 whoami's p99 was 11–91 ms and the longest block 11–89 ms. Figures:
 * docs/performance.md "Bulk writes at the cap"; `FINANCE_PRINT_BULK=1` prints them as its table's rows.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { ANSWER_BUDGETS } from "../../src/mcp/answer-budgets.js";
import { modelText } from "../../src/mcp/model-text.js";
import { limits } from "../../generated/limits.js";
import { tokens } from "../../scripts/answer-measure.js";
import { girokontoCsv } from "../../scripts/bench/statement.js";
import { engine } from "../helpers/database.js";
import { loopBlocks, mark, ownBetween, watchPauses, type Mark } from "../helpers/own-clock.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

const CAP = limits.bulkWriteRows;
/** No whoami p99 and no single stretch without a turn of the loop this long (issue 51's bound). */
const BOUND_MS = 250;

const key = () => randomUUID();
const p99 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.99))]!;

describe(`bulk writes at the cap beside another user's calls (${engine})`, function () {
  this.timeout(900_000);
  let server: TestServer;
  let me: TestUser;
  let other: TestUser;
  let wallet: string;
  const figures: string[] = [];
  before(async () => {
    server = await startTestServer({}, { now: () => new Date("2026-11-25T12:00:00Z") });
    me = await server.createUser();
    other = await server.createUser();
    wallet = (await server.call("create_wallet", { name: "Giro", type: "checking", currency: "EUR", idempotency_key: key() }, me.token)).wallet.id;
    // The server's first import, and the other user's first call (its token's last use is written), once.
    await server.call("import_transactions", { wallet_id: wallet, statement: "!Type:Bank\nD01/10/2020\nT-1.00\nPShop\n^\n", idempotency_key: key() }, me.token);
    await server.call("whoami", {}, other.token);
  });
  after(async () => {
    if (process.env.FINANCE_PRINT_BULK) console.log(figures.join("\n"));
    await server?.close();
  });

  /**
   * SQLite: the reads a call repeats (a page at a time) whose plan sorts in a temporary b-tree, i.e. reads
   * and sorts every remaining row for each page, work that grows with the square of the rows (the later
   * changes' rows paged by id alone did: 30–110 ms a page). Load-free, unlike the timings: each page
   * must be one range of an index. Postgres plans by statistics; its statements do not block the loop.
   */
  function pagedReads(): () => Promise<string[]> {
    if (engine !== "sqlite") return async () => [];
    const seen = new Map<string, { bindings: unknown[]; count: number }>();
    const record = (q: { sql: string; bindings?: unknown[] }) => {
      if (!/^select/i.test(q.sql) || !/ limit /i.test(q.sql)) return;
      const found = seen.get(q.sql);
      if (found) found.count++;
      else seen.set(q.sql, { bindings: q.bindings ?? [], count: 1 });
    };
    server.db.on("query", record);
    return async () => {
      server.db.off("query", record);
      const sorting: string[] = [];
      for (const [sql, { bindings, count }] of seen) {
        if (count < 3) continue;
        const plan = (await server.db.raw(`EXPLAIN QUERY PLAN ${sql}`, bindings as never[])) as { detail: string }[];
        if (plan.some((step) => /TEMP B-TREE/.test(step.detail))) sorting.push(`${sql.slice(0, 120)}… (${count} pages)`);
      }
      return sorting;
    };
  }

  /** Runs the call beside a stream of the other user's whoami; asserts the bounds and the answer's budget. */
  async function beside(name: string, call: () => Promise<Record<string, unknown>>): Promise<Record<string, any>> {
    // Each whoami's start and end; its own-clock latency is taken once the pauses are all reported.
    const spans: [Mark, Mark][] = [];
    const stopWatching = watchPauses();
    const wallLatencies: number[] = [];
    let done = false;
    const stream = (async () => {
      while (!done || spans.length < 10) {
        const sent = mark();
        const whoami = await server.call("whoami", {}, other.token);
        const answered = mark();
        spans.push([sent, answered]);
        wallLatencies.push(answered.wall - sent.wall);
        expect(whoami.user_id).to.equal(other.id);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    const reads = pagedReads();
    const stop = loopBlocks();
    const start = performance.now();
    let blocks = { wall: 0, own: 0 };
    const answer = await call().finally(() => {
      done = true;
      blocks = stop();
    });
    const took = performance.now() - start;
    await stream;
    const latencies = spans.map(([a, b]) => ownBetween(a, b));
    stopWatching();
    const answerTokens = tokens(modelText(answer));
    const r = Math.round;
    figures.push(
      `| ${engine} | ${name} | ${r(took)} | ${latencies.length} | ${r(p99(latencies))} (${r(p99(wallLatencies))}) | ${r(blocks.own)} (${r(blocks.wall)}) | ${answerTokens} |`,
    );
    expect(p99(latencies), `${name}: whoami p99 of ${latencies.length} calls (call took ${r(took)} ms)`).to.be.below(BOUND_MS);
    expect(blocks.own, `${name}: the longest event loop block`).to.be.below(BOUND_MS);
    expect(answerTokens, `${name}: answer tokens`).to.be.at.most(ANSWER_BUDGETS.anyAnswerTokens);
    expect(await reads(), `${name}: reads repeated page after page that sort every page`).to.deep.equal([]);
    return answer;
  }

  it(`an import of ${CAP} rows, a bulk edit, a rule applied to the past and the undo of each`, async () => {
    const statement = girokontoCsv(CAP);
    const importArgs = { wallet_id: wallet, statement };
    const preview = await beside("import preview", () =>
      server.call("import_transactions", { ...importArgs, dry_run: true, idempotency_key: key() }, me.token),
    );
    expect(preview.counts).to.include({ to_create: CAP });
    const imported = await beside("import commit", () => server.call("import_transactions", { ...importArgs, idempotency_key: key() }, me.token));
    expect(imported.counts).to.include({ created: CAP });

    const edit = { filter: { wallet_id: wallet, date_from: "2021-01-01" }, set_category: "Bulk", expected_count: CAP };
    await beside("bulk edit preview", () => server.call("update_transactions", { ...edit, dry_run: true, idempotency_key: key() }, me.token));
    const edited = await beside("bulk edit commit", () => server.call("update_transactions", { ...edit, idempotency_key: key() }, me.token));
    expect(edited.changed).to.equal(CAP);
    const undoEdit = await beside("undo of the bulk edit, preview", () =>
      server.call("undo_change", { audit_id: edited.audit_id, dry_run: true, idempotency_key: key() }, me.token),
    );
    expect(undoEdit.counts).to.deep.equal({ delete: 0, restore: 0, revert: CAP });
    expect(undoEdit.rows).to.have.length(20);
    await beside("undo of the bulk edit", () => server.call("undo_change", { audit_id: edited.audit_id, idempotency_key: key() }, me.token));

    const rule = { field: "description", value: "sagt danke", set_category: "Filed", apply_to_existing: true };
    await beside("rule preview", () => server.call("save_rule", { ...rule, dry_run: true, idempotency_key: key() }, me.token));
    const applied = await beside("rule applied to the past", () =>
      server.call("save_rule", { ...rule, expected_count: CAP, idempotency_key: key() }, me.token),
    );
    expect(applied.applied.count).to.equal(CAP);
    await beside("undo of the rule", () => server.call("undo_change", { audit_id: applied.audit_id, idempotency_key: key() }, me.token));

    await beside("undo of the import, preview", () =>
      server.call("undo_change", { audit_id: imported.audit_id, dry_run: true, rows_limit: 200, idempotency_key: key() }, me.token),
    );
    const undone = await beside("undo of the import", () => server.call("undo_change", { audit_id: imported.audit_id, idempotency_key: key() }, me.token));
    expect(undone.counts.delete).to.be.greaterThan(CAP);
    const changes = await beside("list_changes after", () => server.call("list_changes", { limit: 1 }, me.token));
    expect(changes.changes[0].ids).to.have.length(5);
    expect(changes.changes[0].more_ids).to.be.at.least(CAP - 5);
    const one = await beside("list_changes of that change by id", () => server.call("list_changes", { audit_id: changes.changes[0].audit_id }, me.token));
    expect(one.changes[0].ids).to.have.length(200);
    expect(one.changes[0].more_ids).to.be.at.least(CAP - 200);
  });
});
