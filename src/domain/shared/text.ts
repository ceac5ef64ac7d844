/**
 * Text rules of the ledger, one place for both engines: what is trimmed, how names, categories, payees
 * and tags are compared (case-insensitively, folded in JavaScript so SQLite and Postgres agree), and how
 * user text becomes a LIKE pattern without becoming syntax.
 */
import { invalidParams } from "../../errors.js";

/** The comparison key of a name, category or payee: NFC, trimmed, lower-cased. */
export function foldKey(s: string): string {
  return s.normalize("NFC").trim().toLowerCase();
}

/** The folded keys stored beside a payee and a category. */
export interface FoldedKeys {
  payee_key?: string | null;
  category_key?: string | null;
}

/**
 * The keys a transaction or a split part stores beside its payee and category (payee_key, category_key),
 * one for each text given, null for none: every write, the import of an export and the test worlds take
 * them from here, so a row is found by the same key however it was written.
 */
export function foldedKeys(texts: { payee?: string | null; category?: string | null }): FoldedKeys {
  const keys: FoldedKeys = {};
  if (texts.payee !== undefined) keys.payee_key = texts.payee === null ? null : foldKey(texts.payee);
  if (texts.category !== undefined) keys.category_key = texts.category === null ? null : foldKey(texts.category);
  return keys;
}

/** User text as stored: NFC, trimmed; null for absent/null. (Schemas already refuse blank names, payees, categories.) */
export function cleanText(s: string): string;
export function cleanText(s: string | null | undefined): string | null;
export function cleanText(s: string | null | undefined): string | null {
  if (s === undefined || s === null) return null;
  return s.normalize("NFC").trim();
}

/** A nullable text column as read from either driver: null, or the text. */
export function nullableText(v: unknown): string | null {
  return v === null || v === undefined ? null : String(v);
}

/**
 * Labels a record keeps as the user spelled them (a budget's categories and tags): cleaned, without
 * blanks, and without a second spelling of the same folded key (the first one stays). The ledger's own
 * tags are folded instead (normalizeTags).
 */
export function distinctLabels(values: readonly string[] | undefined): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const v of values ?? []) {
    const key = foldKey(v);
    if (key.length === 0 || seen.has(key)) continue;
    seen.add(key);
    out.push(cleanText(v));
  }
  return out;
}

export const MAX_TAG_LENGTH = 40;

/**
 * Tags are stored folded (lower case), without duplicates, sorted: "Food" and "food" are one tag, and a
 * transaction's tags always come back in the same order.
 */
export function normalizeTags(tags: readonly string[] | undefined | null, field = "tags"): string[] {
  if (!tags) return [];
  const out = new Set<string>();
  for (const raw of tags) {
    const tag = foldKey(raw);
    if (tag.length === 0 || [...tag].length > MAX_TAG_LENGTH) {
      throw invalidParams(
        field,
        `tags of 1 to ${MAX_TAG_LENGTH} characters`,
        `${field}: ${JSON.stringify(raw)} is not a valid tag; expected 1 to ${MAX_TAG_LENGTH} characters`,
      );
    }
    out.add(tag);
  }
  return [...out].sort();
}

/** A LIKE pattern that finds `text` anywhere, with %, _ and the escape character itself escaped (ESCAPE '\'). */
export function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
