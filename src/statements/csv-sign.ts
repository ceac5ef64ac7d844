/**
 * Signs as banks write them beside the amount: an indicator column (`S`/`H` Soll/Haben, `D`/`C`,
 * `DR`/`CR`, `Debit`/`Credit`, ING's `Af`/`Bij`, `Ausgang`/`Eingang`, `Débito`/`Crédito`) that makes an unsigned amount money
 * out or in. Found by content: a column of which every data row holds one of these words.
 */

// Directions too (Wise's Direction IN/OUT, a Type of Withdrawal or Deposit, Uttag/Insättning). Accents folded: Portuguese and Spanish "Débito"/"Crédito", French "Débit"/"Crédit", Italian "Addebito"/"Accredito", Polish "Obciążenie"/"Uznanie".
const OUT = new Set([
  "s",
  "d",
  "dr",
  "debit",
  "debet",
  "af",
  "soll",
  "dbit",
  "ausgang",
  "belastung",
  "debito",
  "addebito",
  "cargo",
  "uscita",
  "obciazenie",
  "out",
  "outgoing",
  "withdrawal",
  "uttag",
  "abgang",
  "sortie",
  "retrait",
  "prelievo",
  "opname",
  "-",
]);
const IN = new Set([
  "h",
  "c",
  "cr",
  "credit",
  "bij",
  "haben",
  "crdt",
  "eingang",
  "gutschrift",
  "credito",
  "accredito",
  "abono",
  "entrata",
  "uznanie",
  "in",
  "incoming",
  "deposit",
  "insattning",
  "zugang",
  "entree",
  "depot",
  "versamento",
  "storting",
  "+",
]);

const word = (cell: string) =>
  cell
    .trim()
    .toLowerCase()
    .replace(/ą/g, "a")
    .replace(/ż/g, "z")
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "");

/** "out", "in", or null when the cell is not an indicator. */
export function indicatorOf(cell: string): "out" | "in" | null {
  const w = word(cell);
  return OUT.has(w) ? "out" : IN.has(w) ? "in" : null;
}

/** Whether a column's cells (every data row's) are all indicators, of at least one row. */
export function isIndicatorColumn(cells: readonly string[]): boolean {
  return cells.length > 0 && cells.every((c) => indicatorOf(c) !== null);
}
