/**
 * The rate_limits keys that name one person, for the deletion of their account (src/account/delete.ts):
 * the per-token counts of each of their tokens (`mcp`, `sse`), their per-user count of token creations
 * (`tokens`) and the failed-login count of their email (`login_email`, a hash). rate-limiter-flexible
 * stores a key as `<keyPrefix>:<key>`; the prefixes are the limiters' names in limiter.ts. Counts keyed by
 * an address alone, or by an email and an address together, name no person the deletion knows.
 */
import { emailKey } from "./login.js";

export function personLimitKeys(person: { id: string; email: string }, tokenIds: readonly string[]): string[] {
  return [...tokenIds.flatMap((id) => [`mcp:${id}`, `sse:${id}`]), `tokens:${person.id}`, `login_email:${emailKey(person.email)}`];
}
