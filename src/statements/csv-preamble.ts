/**
 * The lines a bank writes before a CSV's header, read as key-value pairs: the opening or closing balance
 * ("Kontostand vom 24.11.2026:";"5.911,54 €", "Saldo;5.911,54;EUR", "Ending balance as of 11/24/2026,,
 * 2,447.26", "Account Balance:","£1,234.56"), and the period whose end dates a balance that names no day.
 * So a CSV reconciles like OFX and CAMT (docs/import.md, "Reconciliation").
 */
import { parseDate } from "./dates.js";
import { parseDecimal } from "./numbers.js";
import { balanceKindOf } from "./row-kinds.js";
import type { FoundBalance } from "./stated-balances.js";
import type { DateOrder, StatedBalance } from "./types.js";

export interface Preamble {
  opening: StatedBalance | null;
  closing: StatedBalance | null;
  /** Every balance found, with what its name says of it ("stated" when it does not say opening or closing). */
  found: FoundBalance[];
  periodEnd: string | null;
  /** The first day of the period ("Von:;2026-11-01", "Zeitraum: 01.11.2026 - 24.11.2026"): a balance stated for the period's start is dated the day before. */
  periodStart: string | null;
}

const fold = (s: string): string =>
  s
    .toLowerCase()
    .replace(/ä/g, "ae")
    .replace(/ö/g, "oe")
    .replace(/ü/g, "ue")
    .replace(/[^a-z]/g, "");

// Folded key parts, checked in order. An available or credit-line figure is not the ledger's balance.
export const NOT_A_BALANCE = ["available", "verfuegbar", "disponible", "beschikbaar", "kreditlinie", "creditlimit", "dispo"];
const OPENING = [
  "anfangssaldo",
  "alterkontostand",
  "altersaldo",
  "opening",
  "beginning",
  "startsaldo",
  "beginsaldo",
  "soldeinitial",
  "soldedebut",
  "saldoiniziale",
  "saldoinicial",
  "previousbalance",
];
const CLOSING = ["kontostand", "saldo", "balance", "solde", "closing", "ending", "endsaldo", "eindsaldo"];
const PERIOD = ["zeitraum", "period", "periode", "periodo", "from", "von", "du", "vanaf", "desde", "fechadesde", "startdate", "datestart", "datumvon"];
// A line that holds one end of the period only ("Von:;2026-11-01;" then "Bis:;2026-11-30;", UBS): its one date
// is that end, never the period's end for a start (issue 48: a closing balance dated the period's first day).
const START = ["von", "from", "du", "vanaf", "desde", "fechadesde", "dal", "startdate", "datestart", "datumvon"];
const END = [
  "bis",
  "to",
  "until",
  "tot",
  "totenmet",
  "au",
  "hasta",
  "fechahasta",
  "al",
  "fino",
  "finoal",
  "enddate",
  "dateend",
  "todate",
  "dateto",
  "datumbis",
];

/** The dates in a text of several words ("01.11.2026 - 24.11.2026", "Kontostand vom 24.11.2026:"), in order. */
function datesIn(text: string, order: DateOrder): string[] {
  const found: string[] = [];
  for (const word of text.split(/[\s:;,()]+/)) {
    const d = word === "" ? null : parseDate(word, order);
    if (d !== null) found.push(d);
  }
  return found;
}
const lastDate = (text: string, order: DateOrder): string | null => datesIn(text, order).at(-1) ?? null;

export function readPreamble(lines: readonly string[][], decimal: "," | ".", order: DateOrder): Preamble {
  let periodEnd: string | null = null;
  let periodStart: string | null = null;
  const found: { kind: "opening" | "closing"; date: string | null; amount: string; named: boolean }[] = [];
  for (const cells of lines) {
    const filled = cells.filter((c) => c !== "");
    if (filled.length === 0) continue;
    const key = fold(filled[0]!);
    if (END.includes(key)) periodEnd = lastDate(filled.join(" "), order) ?? periodEnd;
    else if (PERIOD.some((p) => key.startsWith(p))) {
      const dates = datesIn(filled.join(" "), order);
      if (dates.length > 0) periodStart = dates[0]!;
      if (dates.length > 1 || !START.includes(key)) periodEnd = dates.at(-1) ?? periodEnd;
    }
    if (NOT_A_BALANCE.some((n) => key.includes(n))) continue;
    // A name that says which in any language the balance words know ("#Saldo początkowe", "Saldo di apertura") decides first.
    const says = balanceKindOf(filled[0]!);
    const kind =
      says === "opening" || (says !== "closing" && OPENING.some((o) => key.includes(o)))
        ? "opening"
        : says === "closing" || CLOSING.some((c) => key.includes(c))
          ? "closing"
          : null;
    if (kind === null) continue;
    const amount = filled
      .slice(1)
      .map((c) => parseDecimal(c, decimal))
      .find((v) => v !== null);
    if (amount === undefined || amount === null) continue;
    // The day: in the key ("Kontostand vom 24.11.2026:"), else in a cell of its own ("Kontostand;24.11.2026;;5.911,54").
    const date =
      lastDate(filled[0]!, order) ??
      filled
        .slice(1)
        .map((c) => parseDate(c, order))
        .find((d) => d !== null) ??
      null;
    found.push({
      kind,
      date,
      amount,
      named: kind === "opening" || balanceKindOf(filled[0]!) === "closing" || /ending|closing|endsaldo|eindsaldo|neuer/.test(key),
    });
  }
  const pick = (kind: "opening" | "closing"): StatedBalance | null => {
    const f = found.find((x) => x.kind === kind);
    const date = f?.date ?? (kind === "closing" ? periodEnd : null);
    return f === undefined ? null : { date: date ?? "", amount: f.amount };
  };
  return {
    opening: pick("opening"),
    closing: pick("closing"),
    found: found.map((f) => ({ kind: f.named ? f.kind : "stated", date: f.date, amount: f.amount })),
    periodEnd,
    periodStart,
  };
}
