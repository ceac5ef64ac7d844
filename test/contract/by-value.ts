/**
 * How an example's result compares with the server's answer by value (test/contract/replay.test.ts), as
 * execution-apis compares its recorded fixtures: every member equal, except what a replay cannot
 * reproduce. Timestamps, audit ids and preview ids (signed with the server's own key) are minted at the call; an id minted at the call is compared by its
 * prefix (a created goal's id is some `gol_…`, not the example's).
 */
const MINTED_AT_THE_CALL = new Set(["created_at", "updated_at", "audit_id", "preview_id"]);
const ID = /^([a-z]{3}_)[A-Za-z0-9]{16,40}$/;

/** The first `max` places where `actual` differs from `expected`, each as "path: expected vs actual"; empty when equal. */
export function differences(expected: unknown, actual: unknown, max = 5, path = "", out: string[] = []): string[] {
  if (out.length >= max) return out;
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (expected.length !== actual.length) out.push(`${path || "(answer)"}: ${expected.length} items vs ${actual.length}`);
    for (let i = 0; i < Math.min(expected.length, actual.length); i++) differences(expected[i], actual[i], max, `${path}[${i}]`, out);
    return out;
  }
  if (isObject(expected) && isObject(actual)) {
    for (const key of new Set([...Object.keys(expected), ...Object.keys(actual)]))
      if (!MINTED_AT_THE_CALL.has(key)) differences(expected[key], actual[key], max, `${path}.${key}`, out);
    return out;
  }
  if (typeof expected === "string" && typeof actual === "string" && ID.exec(expected)?.[1] === ID.exec(actual)?.[1] && ID.test(expected)) return out;
  if (JSON.stringify(expected) !== JSON.stringify(actual)) out.push(`${path || "(answer)"}: ${short(expected)} vs ${short(actual)}`);
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
/** A value as a difference shows it: an id minted at the call by its prefix (the example world's ids say "example"). */
const short = (v: unknown) =>
  (JSON.stringify(typeof v === "string" && ID.test(v) && !v.includes("example") ? `${ID.exec(v)![1]}…` : v) ?? "undefined").slice(0, 60);
