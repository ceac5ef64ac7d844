/**
 * Issue 37's "Done when", over every layout of the statement corpus (test/fixtures/statements/corpus,
 * listed with its source in corpus.json and docs/import.md): each imports into a wallet where the person
 * typed two of the same transactions by hand, with other payee text and dates; 0 duplicates are created,
 * a re-import creates 0, an overlapping statement creates only the missing row, and the difference is
 * 0.00 wherever the layout states a balance. Files are read in their own encoding, as the import page
 * and a client do.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { corpusTable, tableInDoc } from "../fixtures/statements/corpus/table.js";

interface Layout {
  layout: string;
  file: string;
  format: "csv" | "mt940";
  currency: string;
  encoding: string;
  wallet_type: string;
  opening_balance: string;
  typed: "checking" | "card";
  overlap_marker: string;
  rows: number;
  /** Rows the bank has not booked (pending, declined …): shown, never imported. */
  not_booked?: number;
  /** The signed sum of the booked rows: the wallet ends at opening_balance + net (issue 48). */
  net?: string;
  states_balance: boolean;
  source: string;
  /** The mapping the person sends when the preview asks (mapping_unsure on money out and in): the commit waits for it. */
  answer?: Record<string, string>;
}

const dir = new URL("../fixtures/statements/corpus/", import.meta.url);
const layouts = JSON.parse(readFileSync(new URL("corpus.json", dir), "utf8")) as Layout[];
const textOf = (l: Layout) => new TextDecoder(l.encoding === "utf-8-bom" ? "utf-8" : l.encoding, { ignoreBOM: true }).decode(readFileSync(new URL(l.file, dir)));

/** What the person typed by hand before importing: the same amounts, their own words, a day or two off. */
const TYPED = {
  checking: [
    { date: "2026-11-01", amount: "900.00", direction: "expense", payee: "Rent" },
    { date: "2026-11-12", amount: "3150.00", direction: "income", payee: "Salary" },
  ],
  card: [
    { date: "2026-11-06", amount: "12.99", direction: "expense", payee: "TV subscription" },
    { date: "2026-11-14", amount: "64.00", direction: "expense", payee: "Gas" },
  ],
} as const;

/** The statement without the row holding the marker (an MT940 entry is its :61: line and what follows up to the next entry). */
function withoutRow(text: string, l: Layout): string {
  const lines = text.split("\n");
  const at = lines.findIndex((line) => line.includes(l.overlap_marker));
  expect(at, `${l.layout}: marker ${l.overlap_marker}`).to.be.greaterThan(-1);
  expect(lines.filter((line) => line.includes(l.overlap_marker)), `${l.layout}: one line holds the marker`).to.have.length(1);
  let end = at + 1;
  if (l.format === "mt940") while (end < lines.length && !lines[end]!.startsWith(":61:") && !lines[end]!.startsWith(":62")) end++;
  // A CSV record with a line break inside quotes (Volksbank's Vorgang/Verwendungszweck) starts where its quotes pair up.
  let start = at;
  const quotes = (from: number) => lines.slice(from, at + 1).join("\n").split('"').length - 1;
  if (l.format === "csv") while (start > 0 && quotes(start) % 2 === 1) start--;
  return [...lines.slice(0, start), ...lines.slice(end)].join("\n");
}

describe(`statement corpus: every layout imports right the first time (${engine})`, function () {
  this.timeout(300_000);
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(async () => server?.close());

  it("holds at least 30 layouts, each named <country>-<bank>-<format>", () => {
    expect(layouts.length).to.be.at.least(30);
    for (const l of layouts) expect(l.layout).to.match(/^[a-z]{2}-[a-z0-9]+(-[a-z0-9]+)+$/);
  });

  it("is listed in docs/import.md's table, each layout with its source and the result asserted below", () => {
    // Rewrite it with `npx tsx test/fixtures/statements/corpus/table.ts` after changing corpus.json.
    expect(tableInDoc()).to.equal(corpusTable(layouts));
  });

  const wallet = async (token: string, l: Layout) =>
    (
      await server.call(
        "create_wallet",
        { name: `W ${randomUUID().slice(0, 8)}`, type: l.wallet_type, currency: l.currency, opening_balance: l.opening_balance, idempotency_key: randomUUID() },
        token,
      )
    ).wallet.id as string;
  const importPlain = (token: string, walletId: string, statement: string, extra: Record<string, unknown> = {}) =>
    server.call("import_transactions", { wallet_id: walletId, statement, idempotency_key: randomUUID(), rows_limit: 200, ...extra }, token);
  const count = async (token: string, walletId: string) =>
    (await server.call("list_transactions", { wallet_id: walletId, limit: 200 }, token)).transactions.length as number;

  const minor = (amount: string) => BigInt(amount.replace(".", ""));
  /** The wallet's balance from its transactions (signed by direction) and its opening balance, in cents. */
  const balance = async (token: string, walletId: string) => {
    const { wallets } = await server.call("get_wallet_balance", { wallet_id: walletId, as_of: "2026-12-31" }, token);
    return BigInt(wallets[0].balance.minor);
  };

  it("refuses each Windows-1252 or ISO-8859-1 layout read as UTF-8, naming the line and the re-read, and imports nothing", async () => {
    const me = await server.createUser();
    const misreadOf = (l: Layout) => new TextDecoder("utf-8").decode(readFileSync(new URL(l.file, dir)));
    // Those with a byte above ASCII (an umlaut, a £): one all ASCII reads the same either way.
    const legacy = layouts.filter((l) => (l.encoding === "windows-1252" || l.encoding === "iso-8859-1") && misreadOf(l).includes("\uFFFD"));
    expect(legacy.length).to.be.at.least(3);
    for (const l of legacy) {
      const misread = misreadOf(l);
      const w = await wallet(me.token, l);
      const e = await server.callError("import_transactions", { wallet_id: w, statement: misread, idempotency_key: randomUUID() }, me.token);
      expect(e.data, l.layout).to.include({ code: "invalid_params", field: "statement" });
      expect(e.message, l.layout).to.match(/^statement: line \d+ holds an undecodable character .*Read it again as Windows-1252 or ISO-8859-1/);
      expect(await count(me.token, w), l.layout).to.equal(0);
    }
  });

  for (const l of layouts) {
    it(`${l.layout}: hand-typed rows are possible duplicates, a re-import and an overlap create only what is missing, the balance reconciles`, async () => {
      const me = await server.createUser();
      const text = textOf(l);
      const w = await wallet(me.token, l);
      const typed = [];
      for (const t of TYPED[l.typed])
        typed.push((await server.call("create_transaction", { wallet_id: w, ...t, idempotency_key: randomUUID() }, me.token)).transaction.id);

      if (l.answer !== undefined) {
        // Columns whose direction only the person can tell: the preview asks, the commit waits for the answer.
        const asked = await importPlain(me.token, w, text, { dry_run: true });
        expect(asked.warnings.map((x: { code: string }) => x.code), l.layout).to.include("mapping_unsure");
        const refused = await server.callError("import_transactions", { wallet_id: w, statement: text, idempotency_key: randomUUID() }, me.token);
        expect(refused.message, l.layout).to.match(/^mapping\.debit: .*Nothing was imported/);
      }
      const answered = l.answer === undefined ? {} : { mapping: l.answer };
      const importFile = (token: string, walletId: string, statement: string, extra: Record<string, unknown> = {}) =>
        importPlain(token, walletId, statement, { ...answered, ...extra });
      const nb = l.not_booked ?? 0;
      const preview = await importFile(me.token, w, text, { dry_run: true });
      expect(preview.format, l.layout).to.equal(l.format);
      expect(preview.counts, l.layout).to.deep.equal({
        rows: l.rows + nb,
        new: l.rows - 2,
        duplicate: 0,
        possible_duplicate: 2,
        invalid: 0,
        not_booked: nb,
        created: 0,
        to_create: l.rows - 2,
      });
      const flagged = preview.rows.filter((r: { status: string }) => r.status.startsWith("possible duplicate of "));
      expect(flagged.map((r: { status: string }) => r.status.slice("possible duplicate of ".length)).sort(), l.layout).to.deep.equal([...typed].sort());
      if (l.states_balance) {
        expect(preview.reconciliation, l.layout).to.include({ difference: l.currency === "JPY" ? "0" : "0.00" });
        expect(preview.warnings.map((x: { code: string }) => x.code), l.layout).to.deep.equal([...(nb > 0 ? ["not_booked"] : []), "possible_duplicates"]);
      } else expect(preview.reconciliation, l.layout).to.equal(null);

      const committed = await importFile(me.token, w, text);
      expect(committed.counts.created, l.layout).to.equal(l.rows - 2);
      expect(await count(me.token, w)).to.equal(l.rows);
      if (l.states_balance) expect(committed.reconciliation, l.layout).to.deep.equal(preview.reconciliation);
      // The money, by value: the wallet ends at its opening balance plus the booked rows, signs included.
      if (l.net !== undefined) expect(await balance(me.token, w), l.layout).to.equal(minor(l.opening_balance) + minor(l.net));

      const again = await importFile(me.token, w, text);
      expect(again.counts, l.layout).to.include({ created: 0, new: 0, duplicate: l.rows - 2, possible_duplicate: 2, not_booked: nb });
      expect(await count(me.token, w)).to.equal(l.rows);

      // An overlapping statement: the same file lacking one row first, then the whole file.
      const w2 = await wallet(me.token, l);
      // Where the layout states a balance, the statement lacking a row never passes silently (issue 48): the
      // preview leads with the difference, and where the statement's opening balance shows the row missing,
      // the commit waits for the person to confirm the balance it leads to.
      const lacking = withoutRow(text, l);
      const asked = await importFile(me.token, w2, lacking, { dry_run: true });
      const blocked = asked.warnings[0]?.code === "decision_needed";
      if (l.states_balance) {
        expect(asked.warnings[0]?.code, l.layout).to.be.oneOf(["decision_needed", "balance_mismatch"]);
        expect(asked.reconciliation.difference, l.layout).to.not.equal("0.00");
      } else expect(blocked, l.layout).to.equal(false);
      const confirm = blocked ? { expected_balance: asked.reconciliation.wallet_balance } : {};
      if (blocked) {
        const refused = await server.callError("import_transactions", { wallet_id: w2, statement: lacking, idempotency_key: randomUUID() }, me.token);
        expect(refused.data, l.layout).to.include({ field: "expected_balance" });
      }
      const partial = await importFile(me.token, w2, lacking, confirm);
      expect(partial.counts, l.layout).to.include({ rows: l.rows + nb - 1, created: l.rows - 1 });
      const whole = await importFile(me.token, w2, text);
      expect(whole.counts, l.layout).to.include({ rows: l.rows + nb, created: 1, duplicate: l.rows - 1, possible_duplicate: 0 });
      if (l.states_balance) expect(whole.reconciliation, l.layout).to.include({ difference: "0.00" });
    });
  }
});
