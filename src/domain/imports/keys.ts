/**
 * How an imported row is recognised again (docs/import.md, "De-duplication"):
 *   - by the bank's own id, compared exactly: key "id:<id>";
 *   - by its content: the date, the signed amount in minor units and the normalised payee, with the
 *     occurrence of that content in the file (two identical coffees on one day are #0 and #1): key
 *     "c:<date>|<minor>|<payee>|<n>";
 *   - as a possible duplicate of a transaction already in the wallet: same signed amount, dates at most
 *     FUZZY_DAYS apart; a similar payee only ranks the candidates. That one is a suggestion, never a key.
 */
import { createHash } from "node:crypto";
import { limits } from "../../../generated/limits.js";

/** How far apart (in days, either way) a row and an existing transaction may be to be a possible duplicate (the spec's bound). */
export const FUZZY_DAYS = limits.importMatchDays;

/**
 * A payee as banks vary it between exports: folded, accents and punctuation gone, card and reference
 * numbers (runs of 3+ digits) gone, spaces collapsed. "REWE Markt GmbH 0815" and "Rewe Markt GmbH" agree.
 */
export function normalizePayee(payee: string | null): string {
  if (payee === null) return "";
  return payee
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/\d{3,}/g, " ")
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim()
    .replace(/\s+/g, " ");
}

export const bankKey = (id: string): string => `id:${id.length <= 200 ? id : createHash("sha256").update(id).digest("hex")}`;

export function contentKey(date: string, minor: bigint, payee: string | null, occurrence: number): string {
  const p = normalizePayee(payee);
  const shown = p.length <= 150 ? p : createHash("sha256").update(p).digest("hex");
  return `c:${date}|${minor}|${shown}|${occurrence}`;
}

function bigrams(s: string): Map<string, number> {
  const out = new Map<string, number>();
  const t = s.replace(/ /g, "");
  for (let i = 0; i < t.length - 1; i++) out.set(t.slice(i, i + 2), (out.get(t.slice(i, i + 2)) ?? 0) + 1);
  return out;
}

/** A normalised payee with what comparing it needs, computed once (matching compares one payee with many). */
export interface PayeeProfile {
  text: string;
  first: string;
  bigrams: Map<string, number>;
  pairs: number;
}

export function payeeProfile(normalized: string): PayeeProfile {
  const grams = bigrams(normalized);
  let pairs = 0;
  for (const n of grams.values()) pairs += n;
  return { text: normalized, first: normalized.split(" ")[0] ?? "", bigrams: grams, pairs };
}

/**
 * Whether two payees (their profiles: payeeProfile of normalizePayee) plausibly name the same party:
 * either is missing (a hand-typed row often has no payee), one's first word starts the other, or their
 * letter pairs overlap by at least half (Dice).
 */
export function similarProfiles(p: PayeeProfile, q: PayeeProfile): boolean {
  const [x, y] = [p.text, q.text];
  if (x === "" || y === "") return true;
  if (x === y) return true;
  if (p.first.length >= 3 && q.first.length >= 3 && (y.startsWith(p.first) || x.startsWith(q.first))) return true;
  const [small, large] = p.bigrams.size <= q.bigrams.size ? [p.bigrams, q.bigrams] : [q.bigrams, p.bigrams];
  let both = 0;
  for (const [g, n] of small) both += Math.min(n, large.get(g) ?? 0);
  const total = p.pairs + q.pairs;
  return total > 0 && (2 * both) / total >= 0.5;
}
