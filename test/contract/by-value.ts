/**
 * How an example's result compares with the server's answer by value (test/contract/replay.test.ts), as
 * execution-apis compares its recorded fixtures: every member equal, except what a replay cannot
 * reproduce. Timestamps and audit ids are minted at the call; an id minted at the call is compared by its
 * prefix (a created goal's id is some `gol_…`, not the example's).
 */
const MINTED_AT_THE_CALL = new Set(["created_at", "updated_at", "audit_id"]);
const ID = /^([a-z]{3}_)[A-Za-z0-9]{16,40}$/;

/** The first few places where `actual` differs from `expected`, each as "path: expected vs actual"; empty when equal. */
export function differences(expected: unknown, actual: unknown, path = "", out: string[] = []): string[] {
  if (out.length >= 5) return out;
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (expected.length !== actual.length) out.push(`${path || "(answer)"}: ${expected.length} items vs ${actual.length}`);
    for (let i = 0; i < Math.min(expected.length, actual.length); i++) differences(expected[i], actual[i], `${path}[${i}]`, out);
    return out;
  }
  if (isObject(expected) && isObject(actual)) {
    for (const key of new Set([...Object.keys(expected), ...Object.keys(actual)]))
      if (!MINTED_AT_THE_CALL.has(key)) differences(expected[key], actual[key], `${path}.${key}`, out);
    return out;
  }
  if (typeof expected === "string" && typeof actual === "string" && ID.exec(expected)?.[1] === ID.exec(actual)?.[1] && ID.test(expected)) return out;
  if (JSON.stringify(expected) !== JSON.stringify(actual)) out.push(`${path || "(answer)"}: ${short(expected)} vs ${short(actual)}`);
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
const short = (v: unknown) => (JSON.stringify(v) ?? "undefined").slice(0, 60);
