/**
 * Which of the balances a CSV states is the opening and which the closing, each with its own date
 * (issue 48): balances come from the preamble or trailer ("Alter Kontostand", "Saldo"), from rows that name
 * a balance ("Anfangssaldo" … "Endsaldo" at the end of Volksbank's rows) and from a running balance column.
 * A name that says which ("Anfangs-", "opening", "Neuer") decides; two balances whose names do not (two
 * "Saldo" lines, "Kontostand am …" twice) are told apart by the rows: the one the rows' sum leads from is
 * the opening, else the earlier one. A stated balance wins over the running balance column.
 */
import type { BalanceKind } from "./row-kinds.js";
import { units } from "./running-balance.js";
import type { StatedBalance } from "./types.js";

export interface FoundBalance {
  kind: BalanceKind;
  /** YYYY-MM-DD, or null when the balance names no day. */
  date: string | null;
  amount: string;
}

export interface Period {
  /** The first and latest booking day among the rows. */
  earliest: string | null;
  latest: string | null;
  /** The end of a period line ("Zeitraum: 01.11.2026 - 24.11.2026"). */
  periodEnd: string | null;
  /** The start of a period line ("Von:;2026-11-01"): an opening balance that names no day is the balance the day before. */
  periodStart?: string | null;
  /** The sum of the rows that are booked, a signed decimal. */
  sum: string;
}

export function resolveBalances(found: readonly FoundBalance[], period: Period): { opening: StatedBalance | null; closing: StatedBalance | null } {
  const openings = found.filter((f) => f.kind === "opening");
  const closings = found.filter((f) => f.kind === "closing");
  const unnamed = found.filter((f) => f.kind === "stated");
  let opening = openings[0] ?? null;
  let closing = closings.length > 0 ? latestOf(closings) : null;
  // Balances whose names do not say which: the rows' sum leads from the opening to the closing.
  if (closing === null && unnamed.length > 0) {
    const sum = units(period.sum);
    const pair =
      opening === null
        ? unnamed.flatMap((a) => unnamed.filter((b) => b !== a && units(a.amount) + sum === units(b.amount)).map((b) => [a, b] as const))[0]
        : undefined;
    if (pair !== undefined) [opening, closing] = pair;
    else {
      const dated = unnamed.filter((f) => f.date !== null).sort((a, b) => a.date!.localeCompare(b.date!));
      if (opening === null && dated.length >= 2 && dated[0]!.date! < dated[dated.length - 1]!.date!) {
        opening = dated[0]!;
        closing = dated[dated.length - 1]!;
      } else closing = unnamed[0]!;
    }
  }
  const closingDate = closing?.date ?? period.periodEnd ?? period.latest;
  const openingDate = opening?.date ?? (period.periodStart == null ? period.earliest : dayBefore(period.periodStart));
  return {
    opening: opening === null || openingDate === null ? null : { date: openingDate, amount: opening.amount },
    closing: closing === null || closingDate === null ? null : { date: closingDate, amount: closing.amount },
  };
}

function latestOf(list: readonly FoundBalance[]): FoundBalance {
  return list.reduce((best, f) => (f.date !== null && (best.date === null || f.date > best.date) ? f : best));
}

const dayBefore = (date: string): string => new Date(Date.parse(`${date}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
