/**
 * What a CSV row is, before what its columns say: a transaction, a balance the bank states as a row
 * (Volksbank's "Anfangssaldo" and "Endsaldo" rows at the end, Bank of America's "Beginning balance"), or a
 * transaction the bank has not booked (a Status column's "Pending", Sparkasse's Info "Umsatz vorgemerkt",
 * Revolut's State "DECLINED"). A balance row is never a transaction and a row not booked is never imported
 * as posted (issue 48; docs/import.md, "Balances and rows not booked").
 */

const fold = (s: string): string =>
  s
    .toLowerCase()
    .replace(/ä/g, "ae")
    .replace(/ö/g, "oe")
    .replace(/ü/g, "ue")
    .replace(/ß/g, "ss")
    .replace(/ø/g, "o")
    .replace(/æ/g, "ae")
    .replace(/ł/g, "l")
    .normalize("NFKD")
    .replace(/[^a-z0-9 ]/g, "");

/**
 * A row's status as banks write it, folded without spaces: the kind it is when not booked. English,
 * German, French, Dutch, Spanish, Italian, Portuguese, Polish and the Nordic languages, as their exports
 * write a Status or Info column (or a date column's "Reserverat").
 */
const NOT_BOOKED: Record<string, string> = {
  pending: "pending",
  pdng: "pending",
  authorised: "pending",
  authorized: "pending",
  authorisation: "pending",
  authorization: "pending",
  onhold: "pending",
  processing: "pending",
  inprogress: "pending",
  ausstehend: "pending",
  vorgemerkt: "pending",
  umsatzvorgemerkt: "pending",
  vormerkung: "pending",
  inbearbeitung: "pending",
  enattente: "pending",
  encours: "pending",
  autorise: "pending",
  autorisee: "pending",
  provisoire: "pending",
  pendiente: "pending",
  enproceso: "pending",
  retenido: "pending",
  retenida: "pending",
  autorizado: "pending",
  autorizada: "pending",
  insospeso: "pending",
  inattesa: "pending",
  autorizzato: "pending",
  autorizzata: "pending",
  pendente: "pending",
  inafwachting: "pending",
  inbehandeling: "pending",
  gereserveerd: "pending",
  oczekujaca: "pending",
  oczekujace: "pending",
  blokada: "pending",
  zablokowana: "pending",
  varaus: "pending",
  katevaraus: "pending",
  odottaa: "pending",
  reserverat: "pending",
  reservert: "pending",
  reserveret: "pending",
  reservation: "pending",
  venter: "pending",
  afventer: "pending",
  ventende: "pending",
  vantar: "pending",
  scheduled: "scheduled",
  upcoming: "scheduled",
  future: "scheduled",
  geplant: "scheduled",
  terminiert: "scheduled",
  planned: "scheduled",
  programme: "scheduled",
  programmee: "scheduled",
  avenir: "scheduled",
  differe: "scheduled",
  programado: "scheduled",
  programada: "scheduled",
  programmato: "scheduled",
  programmata: "scheduled",
  pianificato: "scheduled",
  pianificata: "scheduled",
  agendado: "scheduled",
  agendada: "scheduled",
  gepland: "scheduled",
  zaplanowana: "scheduled",
  zaplanowany: "scheduled",
  planlagt: "scheduled",
  planerad: "scheduled",
  kommande: "scheduled",
  tuleva: "scheduled",
  reverted: "reverted",
  storniert: "reverted",
  declined: "declined",
  abgelehnt: "declined",
  rejected: "declined",
  refused: "declined",
  denied: "declined",
  refuse: "declined",
  rechazado: "declined",
  rechazada: "declined",
  rifiutato: "declined",
  rifiutata: "declined",
  geweigerd: "declined",
  odrzucona: "declined",
  afvist: "declined",
  avvist: "declined",
  avvisad: "declined",
  failed: "failed",
  fehlgeschlagen: "failed",
  cancelled: "cancelled",
  canceled: "cancelled",
  annule: "cancelled",
  annulee: "cancelled",
  anulado: "cancelled",
  anulada: "cancelled",
  annullato: "cancelled",
  annullata: "cancelled",
  geannuleerd: "cancelled",
  anulowana: "cancelled",
};
const BOOKED = new Set([
  "posted",
  "completed",
  "complete",
  "cleared",
  "booked",
  "book",
  "paid",
  "done",
  "gebucht",
  "umsatzgebucht",
  "ausgefuehrt",
  "settled",
  "executed",
  "comptabilise",
  "comptabilisee",
  "execute",
  "executee",
  "effectue",
  "effectuee",
  "contabilizado",
  "contabilizada",
  "ejecutado",
  "ejecutada",
  "realizado",
  "realizada",
  "contabilizzato",
  "contabilizzata",
  "eseguito",
  "eseguita",
  "geboekt",
  "verwerkt",
  "uitgevoerd",
  "zaksiegowana",
  "zaksiegowany",
  "zrealizowana",
  "wykonana",
  "udfort",
  "gennemfort",
  "bogfort",
  "bokfort",
  "bokfoert",
  "bokfoerd",
  "utfort",
  "utfoerd",
  "genomfoerd",
  "kirjattu",
  "toteutunut",
  "accepted",
  "approved",
  "accepte",
  "acceptee",
  "valide",
  "validee",
  "aanvaard",
  "geaccepteerd",
  "goedgekeurd",
  "akzeptiert",
  "genehmigt",
  "aceptado",
  "aceptada",
  "accettato",
  "accettata",
  "aceite",
  "hyvaksytty",
  "godkand",
  "godkendt",
  "godkjent",
]);

const statusWord = (cell: string): string => fold(cell).replace(/ /g, "");

/** The kind of a status cell when it says the row is not booked; null when it is booked or not a status. */
export function notBookedOf(cell: string): string | null {
  return NOT_BOOKED[statusWord(cell)] ?? null;
}

// The nouns of a section heading ("Pending Transactions", "Vorgemerkte Umsätze", "Gebuchte Umsätze").
const SECTION_NOUNS = new Set([
  "transactions",
  "transaction",
  "activity",
  "items",
  "umsaetze",
  "umsatz",
  "buchungen",
  "operations",
  "operaciones",
  "movimientos",
  "movimenti",
  "operazioni",
  "transaktioner",
  "posteringer",
  "transacties",
  "transakcje",
  "operacje",
]);

/**
 * A line that heads a section of rows by their state (Schwab's "Pending Transactions" and "Posted
 * Transactions", "Vorgemerkte Umsätze" above "Gebuchte Umsätze"): "booked", the kind not booked, or null
 * when the text is anything else ("Total Pending Check and other Credit(s)" is a total, no heading).
 */
export function sectionOf(text: string): string | null {
  const words = fold(text)
    .split(" ")
    .filter((w) => w !== "" && !SECTION_NOUNS.has(w));
  if (
    words.length !== 1 ||
    words.length ===
      fold(text)
        .split(" ")
        .filter((w) => w !== "").length
  )
    return null;
  const w = words[0]!;
  for (const stem of [w, w.replace(/e$/, ""), w.replace(/en$/, ""), w.replace(/s$/, "")]) {
    if (NOT_BOOKED[stem] !== undefined) return NOT_BOOKED[stem]!;
    if (BOOKED.has(stem)) return "booked";
  }
  return null;
}

/** A line that sums rows up ("Total Pending …", "Summe", "Totale"): no transaction, when it has no date. */
export const isTotalLine = (text: string): boolean => /^(total|totals|summe|gesamt|totale|totaal|suma|somme)$/.test(fold(text).split(" ")[0] ?? "");

/**
 * A status column: every filled cell of it a status word (booked or not), and at least one of them. Found
 * by content, so that "State", "Status", "Info" or a bank's own header all work, and a payee named
 * "Pending" in a column of names is never one.
 */
export function isStatusColumn(cells: readonly string[]): boolean {
  const filled = cells.filter((c) => c !== "");
  const unknown = filled.filter((c) => !BOOKED.has(statusWord(c)) && NOT_BOOKED[statusWord(c)] === undefined);
  if (filled.length > 0 && unknown.length === 0) return true;
  // A booked word no list knows ("Accepté", "Verbucht"): one word repeated on most rows beside a word that
  // says not booked is the column's word for booked, never a payee (a payee column varies).
  const words = new Set(unknown.map(statusWord));
  return words.size === 1 && unknown.length >= 2 && unknown.length * 2 > filled.length && unknown.length < filled.length;
}

// The words of a balance's name, folded: the balance itself (alone or ending a compound, "Anfangssaldo"),
// the words that say which one, and filler ("as of", "am", "vom"). A text of these words only names a
// balance; "Balance transfer" or "Saldo-Ausgleich Kreditkarte" does not.
const BALANCE = ["saldo", "kontostand", "balance", "solde", "stand", "zustatek", "egyenleg"];
// Which balance, without saying opening or closing: the ledger's ("Saldo contabile", "Solde comptable",
// "Bokfört saldo") is a stated balance; an available one ("Saldo disponibile", "Available balance") is no
// transaction either, but never reconciled against (it counts pending card payments and credit lines).
const LEDGER = [
  "contabile",
  "comptable",
  "contable",
  "contabil",
  "ledger",
  "bokfort",
  "bokfoert",
  "bogfort",
  "booked",
  "gebucht",
  "crediteur",
  "debiteur",
  "creditore",
  "debitore",
  "acreedor",
  "deudor",
  "credit",
  "debit",
];
const AVAILABLE = [
  "available",
  "disponibile",
  "disponible",
  "verfuegbar",
  "verfugbar",
  "beschikbaar",
  "disponibel",
  "disponibelt",
  "tillgangligt",
  "tillganglig",
  "dostepne",
  "dostepny",
  "disponivel",
];
const OPENING = [
  "anfangs",
  "opening",
  "beginning",
  "begin",
  "start",
  "alter",
  "alt",
  "old",
  "previous",
  "initial",
  "ancien",
  "vortrag",
  "brought",
  "inngaende",
  "ingaende",
  "primo",
  "anterior",
  "iniziale",
  "inicial",
  "vorheriger",
  "precedent",
  "precedente",
  "apertura",
  "debut",
  "pocatecni",
  "nyito",
  "poczatkowe",
  "poczatkowy",
  "otwarcia",
  "indgaende",
  "alku",
  "aloitus",
];
const CLOSING = [
  "end",
  "ending",
  "schluss",
  "closing",
  "neuer",
  "neu",
  "new",
  "final",
  "current",
  "aktueller",
  "aktuell",
  "nouveau",
  "utgaende",
  "ultimo",
  "finale",
  "carried",
  "actual",
  "tages",
  "eind",
  "abschluss",
  "cierre",
  "chiusura",
  "fin",
  "koncowe",
  "koncowy",
  "konecny",
  "zaro",
  "zamkniecia",
  "udgaende",
  "loppu",
];
const FILLER = [
  "as",
  "of",
  "at",
  "on",
  "am",
  "vom",
  "per",
  "au",
  "du",
  "al",
  "the",
  "statement",
  "account",
  "konto",
  "forward",
  "date",
  "datum",
  "zum",
  "des",
  "der",
  "del",
  "de",
  "van",
  "op",
  "di",
  "a",
  "la",
  "z",
  "na",
  "total",
  "dia",
  "do",
  "da",
  "eur",
  "usd",
  "gbp",
  "chf",
];

export type BalanceKind = "opening" | "closing" | "stated" | "available";

/**
 * Whether a text names a balance, and which: "Anfangssaldo", "Endsaldo", "Opening balance",
 * "Kontostand am 24.11.2026", "Solde au 24/11/2026", "Beginning balance as of 11/01/2026". Null when the
 * text says anything else.
 */
export function balanceKindOf(text: string): BalanceKind | null {
  const words = fold(text)
    .split(" ")
    .filter((w) => w !== "" && !/^\d+$/.test(w));
  if (words.length === 0 || words.length > 6) return null;
  let named = false;
  let kind: BalanceKind = "stated";
  let available = false;
  for (const w of words) {
    const base = BALANCE.find((b) => w === b || (w.endsWith(b) && w.length > b.length));
    if (base !== undefined && (base !== "stand" || w === "kontostand")) {
      named = true;
      const prefix = w.slice(0, w.length - base.length);
      if (prefix !== "" && !OPENING.includes(prefix) && !CLOSING.includes(prefix) && prefix !== "konto") return null;
      if (OPENING.includes(prefix)) kind = "opening";
      else if (CLOSING.includes(prefix)) kind = "closing";
      continue;
    }
    if (OPENING.includes(w)) kind = "opening";
    else if (CLOSING.includes(w)) kind = "closing";
    else if (AVAILABLE.includes(w)) available = true;
    else if (!FILLER.includes(w) && !LEDGER.includes(w)) return null;
  }
  return !named ? null : available ? "available" : kind;
}
