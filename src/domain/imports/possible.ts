/**
 * Layer 3 of de-duplication, the matching itself (import.ts markPossible reads the candidates): each open
 * row of the statement gets the best transaction of the wallet with its signed amount at most FUZZY_DAYS
 * away, each transaction claimed by one row at most (docs/decisions.md#fuzzy-match-by-amount). Ranked: a
 * similar payee first, then the nearest day, then the earlier day, then the smaller id. A candidate whose
 * payee is not similar qualifies only when it was typed by hand (no bank id, not imported).
 *
 * Linear in rows plus candidates (issue 51: rows × candidates took 135 s for 2,000 rows of one amount):
 * candidates are indexed by amount and day, and within a day by normalised payee, so a row looks at the
 * payee groups of at most 2·FUZZY_DAYS + 1 days, each group's first unclaimed candidate only (claimed ones
 * are passed once, for good), and each payee is normalised once. A row examines at most GROUPS_PER_ROW groups: only a statement whose many rows of one
 * amount meet a wallet with more than that many different payees of that amount around each row's day
 * reaches it, and such a row is then compared with the first groups only
 * (docs/decisions.md#bounded-at-the-cap).
 */
import { toEpochDay } from "../../calendar/days.js";
import { FUZZY_DAYS, normalizePayee, payeeProfile, similarProfiles, type PayeeProfile } from "./keys.js";

/** The most payee groups one row examines (see the head comment). */
export const GROUPS_PER_ROW = 32;

export interface OpenRow {
  date: string;
  minor: bigint;
  payee: string | null;
  bankId: string | null;
}

export interface Candidate {
  id: string;
  date: string;
  minor: bigint;
  payee: string | null;
  externalId: string | null;
  /** Created by an import (it has keys in the wallet's import ledger). */
  imported: boolean;
}

interface Queue {
  items: Candidate[];
  head: number;
}

/** One normalised payee's candidates on one day, in id order: with a bank id, imported without one, typed by hand. */
interface Group {
  payee: PayeeProfile;
  withBankId: Queue;
  imported: Queue;
  byHand: Queue;
}

export interface MatchStats {
  /** Payee groups examined, over all rows: the work, which the tests count. */
  groupsExamined: number;
  /** Payee comparisons (one per group examined that has an unclaimed candidate). */
  comparisons: number;
}

/**
 * For each row (in order) the id of the candidate it matches, or null. `candidates` come in (date, id)
 * order; `claimed` ids (already the duplicates of other rows) are never matched.
 */
export function matchPossible(
  rows: readonly OpenRow[],
  candidates: readonly Candidate[],
  claimed: ReadonlySet<string>,
): { matches: (string | null)[]; stats: MatchStats } {
  const stats: MatchStats = { groupsExamined: 0, comparisons: 0 };
  const taken = new Set<string>(claimed);
  // amount → day number → normalised payee → its group.
  const amounts = new Map<bigint, Map<number, Map<string, Group>>>();
  const profiles = new Map<string, PayeeProfile>();
  const profile = (normalized: string): PayeeProfile => {
    let p = profiles.get(normalized);
    if (p === undefined) profiles.set(normalized, (p = payeeProfile(normalized)));
    return p;
  };
  for (const c of candidates) {
    if (taken.has(c.id)) continue;
    let days = amounts.get(c.minor);
    if (days === undefined) amounts.set(c.minor, (days = new Map()));
    const day = toEpochDay(c.date);
    let groups = days.get(day);
    if (groups === undefined) days.set(day, (groups = new Map()));
    const payee = normalizePayee(c.payee);
    let group = groups.get(payee);
    if (group === undefined)
      groups.set(
        payee,
        (group = { payee: profile(payee), withBankId: { items: [], head: 0 }, imported: { items: [], head: 0 }, byHand: { items: [], head: 0 } }),
      );
    (c.externalId !== null ? group.withBankId : c.imported ? group.imported : group.byHand).items.push(c);
  }
  const similar = (a: PayeeProfile, b: PayeeProfile): boolean => {
    stats.comparisons++;
    return similarProfiles(a, b);
  };
  const first = (q: Queue): Candidate | undefined => {
    while (q.head < q.items.length && taken.has(q.items[q.head]!.id)) q.head++;
    return q.items[q.head];
  };
  const earlier = (a: Candidate | undefined, b: Candidate | undefined) => (a === undefined ? b : b === undefined ? a : b.id < a.id ? b : a);

  const matches = rows.map((r) => {
    const days = amounts.get(r.minor);
    if (days === undefined) return null;
    const payee = profile(normalizePayee(r.payee));
    const day = toEpochDay(r.date);
    let fallback: Candidate | undefined;
    let budget = GROUPS_PER_ROW;
    for (let d = 0; d <= FUZZY_DAYS && budget > 0; d++) {
      let best: Candidate | undefined;
      for (let side = d === 0 ? 1 : -1; side <= 1; side += 2) {
        const groups = days.get(day + side * d);
        if (groups === undefined) continue;
        let bestOfDay: Candidate | undefined;
        for (const g of groups.values()) {
          if (budget-- <= 0) break;
          stats.groupsExamined++;
          const byHand = first(g.byHand);
          // Two different bank ids are two transactions by the bank's own word: a row with one never
          // matches a transaction with another (one with the same was a duplicate already).
          const head = earlier(earlier(byHand, first(g.imported)), r.bankId === null ? first(g.withBankId) : undefined);
          if (head === undefined) continue;
          if (similar(payee, g.payee)) bestOfDay = earlier(bestOfDay, head);
          else if (byHand !== undefined && (fallback === undefined || fallbackRank(fallback, byHand, day) > 0)) fallback = byHand;
        }
        // At one distance the earlier day first: the first day with a similar candidate decides.
        if (bestOfDay !== undefined) {
          best = bestOfDay;
          break;
        }
      }
      if (best !== undefined) {
        taken.add(best.id);
        return best.id;
      }
    }
    if (fallback === undefined) return null;
    taken.add(fallback.id);
    return fallback.id;
  });
  return { matches, stats };
}

/** > 0 when `b` ranks before `a` as a fallback: nearer day, then earlier day, then smaller id. */
function fallbackRank(a: Candidate, b: Candidate, day: number): number {
  const da = toEpochDay(a.date);
  const db = toEpochDay(b.date);
  const dist = Math.abs(da - day) - Math.abs(db - day);
  if (dist !== 0) return dist;
  if (da !== db) return da - db;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
