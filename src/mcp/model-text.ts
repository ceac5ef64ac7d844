/**
 * The text a language model reads of a tool's answer (CallToolResult.content), decided once for every
 * tool: the same data as structuredContent, rendered compactly. structuredContent keeps the full answer
 * and its outputSchema; the text leaves out what a conversation never needs and what it would pay for on
 * every turn: null members, empty lists, created_at/updated_at timestamps, and Money as "-12.50 USD"
 * (no `minor`, and no sibling `currency` repeating the currency of the amounts beside it).
 */
const TIMESTAMPS = new Set(["created_at", "updated_at"]);

function isMoney(v: unknown): v is { value: string; currency: string; minor: number } {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const keys = Object.keys(v);
  return keys.length === 3 && typeof (v as any).value === "string" && typeof (v as any).currency === "string" && typeof (v as any).minor === "number";
}

function compact(v: unknown): unknown {
  if (isMoney(v)) return `${v.value} ${v.currency}`;
  if (Array.isArray(v)) return v.map(compact);
  if (v === null || typeof v !== "object") return v;
  const entries = Object.entries(v as Record<string, unknown>);
  const moneyCurrencies = new Set(entries.filter(([, x]) => isMoney(x)).map(([, x]) => (x as { currency: string }).currency));
  const out: Record<string, unknown> = {};
  for (const [k, x] of entries) {
    if (x === null || x === undefined || TIMESTAMPS.has(k)) continue;
    if (Array.isArray(x) && x.length === 0) continue;
    if (k === "currency" && moneyCurrencies.size === 1 && moneyCurrencies.has(x as string)) continue;
    out[k] = compact(x);
  }
  return out;
}

/**
 * A replayed answer is the first answer to its idempotency_key, stored when it committed: the text says
 * so before the data, since the data may have changed since (structuredContent says it with status).
 */
const REPLAYED =
  "Replayed: this is the stored answer of the first call with this idempotency_key; nothing was changed now, and the data may have changed since (list_changes shows later writes).\n";

export function modelText(result: Record<string, unknown>): string {
  return `${result.status === "replayed" ? REPLAYED : ""}${JSON.stringify(compact(result))}`;
}
