/**
 * One statement cannot hold up another person (issue 41): while the largest allowed statement
 * (4,000,000 characters) of each format is previewed, another user's stream of whoami calls is answered
 * within 250 ms at the 99th percentile, and the event loop's longest block (this process runs the server)
 * stays under the same bound. A bound asserted, not a speed: the figures are measured by
 * `npm run bench -- statements`. docs/reliability.md#bounded-work.
 *
 * Both figures are taken on the process's own clock, as test/limits/bulk-event-loop.test.ts takes them
 * (test/helpers/own-clock.ts): wall time less the time the main thread waited for a CPU. On the shared
 * 2-core machine at a load average of 10 wall time alone failed once at 250.98 ms with the parse in its
 * worker; the own clock drops what other processes' load adds and keeps all this process causes (a parse
 * on the main thread, the 4 MB body read and checked, garbage collection). Wall figures are in the messages.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { engine } from "../helpers/database.js";
import { hostileStatements } from "../helpers/hostile-statements.js";
import { loopBlocks, mark, ownBetween, watchPauses, type Mark } from "../helpers/own-clock.js";
import { INLINE_CHARS, parseStatementBounded } from "../../src/statements/bounded.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const ALLOWED = 4_000_000;
const BOUND_MS = 250;

const p99 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.99))]!;

describe(`statement parsing beside another user's calls (${engine})`, function () {
  this.timeout(600_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    // The first worker under tsx compiles the parsers (the built server's worker loads JavaScript): done
    // once here, so the cases measure reading statements, not the test's TypeScript toolchain.
    await parseStatementBounded(hostileStatements["QIF, blank lines"]!(INLINE_CHARS + 1)).catch(() => undefined);
    // And the server's first import (its modules and validators loaded on first use), likewise once.
    const someone = await server.createUser({ currency: "EUR" });
    const { wallet } = await server.call(
      "create_wallet",
      { name: "Warm-up", type: "checking", currency: "EUR", opening_balance: "0", idempotency_key: randomUUID() },
      someone.token,
    );
    const small = "!Type:Bank\nD11/01/2026\nT-1.00\nPShop\n^\n";
    await server.call("import_transactions", { wallet_id: wallet.id, statement: small, dry_run: true, idempotency_key: randomUUID() }, someone.token);
  });
  after(async () => server?.close());

  // Each format's hostile shapes at the allowed size: the work of reading the statement is what is bounded
  // here (an ordinary 4,000,000-character file's tens of thousands of rows are the row cap's to bound).
  const cases: [string, string][] = [
    "OFX 1.x, unclosed tags",
    "OFX 1.x, stray closing tags",
    "OFX 2.x, deep nesting",
    "QIF, blank lines",
    "CAMT, unclosed attributes",
    "CSV, unclosed quotes",
  ].map((name) => [name, hostileStatements[name]!(ALLOWED)]);
  for (const [name, statement] of cases) {
    it(`${name}: another user's whoami p99 and the loop's longest block stay under ${BOUND_MS} ms`, async () => {
      const importer = await server.createUser({ currency: "EUR" });
      const other = await server.createUser();
      const { wallet } = await server.call(
        "create_wallet",
        { name: "Giro", type: "checking", currency: "EUR", opening_balance: "0", idempotency_key: randomUUID() },
        importer.token,
      );
      expect(statement.length).to.be.within(ALLOWED - 200, ALLOWED);
      // Each whoami's start and end; its own-clock latency is taken once the pauses are all reported.
      const spans: [Mark, Mark][] = [];
      const stopWatching = watchPauses();
      const wallLatencies: number[] = [];
      let done = false;
      const stream = (async () => {
        // Until the import is answered, and at least 6 calls: a statement read in a kept worker can be
        // answered within a few calls (issue 37), and a p99 needs samples.
        while (!done || spans.length < 6) {
          const sent = mark();
          const me = await server.call("whoami", {}, other.token);
          const answered = mark();
          spans.push([sent, answered]);
          wallLatencies.push(answered.wall - sent.wall);
          expect(me.user_id ?? me.user?.id ?? me).to.not.equal(undefined);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      })();
      const stop = loopBlocks();
      let blocks = { wall: 0, own: 0 };
      const answer = await server
        .rpc(
          {
            jsonrpc: "2.0",
            id: 1,
            method: "import_transactions",
            params: { wallet_id: wallet.id, statement, dry_run: true, skip_invalid: true, idempotency_key: randomUUID() },
          },
          importer.token,
        )
        .finally(() => {
          done = true;
          blocks = stop();
        });
      await stream;
      const latencies = spans.map(([a, b]) => ownBetween(a, b));
      stopWatching();
      // A hostile file is refused naming the statement, an ordinary one previewed; never internal_error.
      if (answer.body.error) expect(answer.body.error.data).to.include({ code: "invalid_params", field: "statement" });
      else expect(answer.body.result.status).to.equal("dry_run");
      expect(latencies.length).to.be.greaterThan(5);
      const r = Math.round;
      expect(p99(latencies), `whoami p99 of ${latencies.length} calls (wall ${r(p99(wallLatencies))} ms)`).to.be.below(BOUND_MS);
      expect(blocks.own, `the event loop's longest block (wall ${r(blocks.wall)} ms)`).to.be.below(BOUND_MS);
    });
  }
});
