/**
 * Possible-duplicate matching (src/domain/imports/possible.ts) is linear in rows plus candidates (issue 51:
 * N rows of one amount against N transactions of that amount was rows × candidates, 135 s at N = 2,000
 * inside the write transaction). Work is counted, not timed: the payee groups examined and the payee
 * comparisons made grow with N, not N², and the ranking is the documented one.
 */
import { expect } from "chai";
import { GROUPS_PER_ROW, matchPossible, type Candidate, type OpenRow } from "../../src/domain/imports/possible.js";

const day = (i: number) => `2026-${String(1 + (i % 12)).padStart(2, "0")}-${String(1 + (i % 28)).padStart(2, "0")}`;

function world(n: number, shape: "one day" | "spread", payee: (i: number) => string) {
  const rows: OpenRow[] = [];
  const candidates: Candidate[] = [];
  for (let i = 0; i < n; i++) {
    const date = shape === "one day" ? "2026-03-10" : day(i);
    rows.push({ date, minor: -350n, payee: payee(i), bankId: null });
    // Imported with a bank id: a row matches them only with a similar payee.
    candidates.push({ id: `txn_${String(i).padStart(6, "0")}`, date, minor: -350n, payee: payee(n + i), externalId: `b${i}`, imported: true });
  }
  candidates.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.id < b.id ? -1 : 1));
  return { rows, candidates };
}

describe("possible-duplicate matching counts linear work", () => {
  const shapes: [string, "one day" | "spread", (i: number) => string][] = [
    ["one amount, one day, one payee", "one day", () => "Café Kiosk"],
    ["one amount, spread days, one payee", "spread", () => "Café Kiosk"],
    // Distinct unrelated payees: nothing is similar, nothing matches, every row looks at every group in range.
    ["one amount, one day, all payees different", "one day", (i) => `${String.fromCharCode(97 + (i % 26))}${i.toString(36)}qz${(i * 7919).toString(36)}`],
  ];
  for (const [name, shape, payee] of shapes) {
    it(`${name}: work at 4,000 rows is at most 2.2 × the work at 2,000`, () => {
      const small = matchPossible(...(Object.values(world(2000, shape, payee)) as [OpenRow[], Candidate[]]), new Set());
      const large = matchPossible(...(Object.values(world(4000, shape, payee)) as [OpenRow[], Candidate[]]), new Set());
      const work = (s: typeof small.stats) => s.groupsExamined + s.comparisons;
      expect(work(large.stats), `work ${work(small.stats)} → ${work(large.stats)}`).to.be.at.most(2.2 * work(small.stats) + 100);
      expect(large.stats.groupsExamined).to.be.at.most(4000 * GROUPS_PER_ROW);
    });
  }

  it("ranks a similar payee first, then the nearest day, then the earlier day; a transaction is claimed once", () => {
    const c = (id: string, date: string, payee: string | null, extra: Partial<Candidate> = {}): Candidate => ({
      id,
      date,
      minor: -1000n,
      payee,
      externalId: null,
      imported: false,
      ...extra,
    });
    const candidates = [
      c("txn_a", "2026-03-07", "Hausverwaltung Müller"),
      c("txn_b", "2026-03-09", "Bäckerei", { imported: true, externalId: "x1" }),
      c("txn_c", "2026-03-11", "Miete November Whg 3"),
      c("txn_d", "2026-03-13", "Miete November Whg 3"),
    ];
    const rows: OpenRow[] = [
      { date: "2026-03-10", minor: -1000n, payee: "MIETE NOVEMBER WHG 3", bankId: null },
      { date: "2026-03-10", minor: -1000n, payee: "MIETE NOVEMBER WHG 3", bankId: null },
      { date: "2026-03-10", minor: -1000n, payee: "Something else", bankId: null },
      { date: "2026-03-10", minor: -1000n, payee: "Something else", bankId: null },
      { date: "2026-03-10", minor: -2000n, payee: null, bankId: null },
    ];
    const { matches } = matchPossible(rows, candidates, new Set(["txn_x"]));
    // Similar, nearest (1 day) then the other similar (3 days); then a hand-typed one; the imported
    // Bäckerei with another payee never; another amount never.
    expect(matches).to.deep.equal(["txn_c", "txn_d", "txn_a", null, null]);
    expect(matchPossible(rows.slice(2, 3), candidates, new Set(["txn_a"])).matches).to.deep.equal(["txn_c"]);
    // At one distance the earlier day wins; a row with a bank id never takes a transaction with another.
    const twin = [c("txn_late", "2026-03-11", "Kiosk"), c("txn_early", "2026-03-09", "Kiosk"), c("txn_bank", "2026-03-10", "Kiosk", { externalId: "other" })];
    twin.sort((a, b) => (a.date < b.date ? -1 : 1));
    expect(matchPossible([{ date: "2026-03-10", minor: -1000n, payee: "Kiosk", bankId: "mine" }], twin, new Set()).matches).to.deep.equal(["txn_early"]);
    expect(matchPossible([{ date: "2026-03-10", minor: -1000n, payee: "Kiosk", bankId: null }], twin, new Set()).matches).to.deep.equal(["txn_bank"]);
  });
});
