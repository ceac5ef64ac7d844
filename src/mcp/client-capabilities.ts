/**
 * What the client of one MCP session declared at its `initialize` (2025-06-18 and 2025-11-25 declare
 * capabilities only there). The initialize answer names a new session (the Mcp-Session-Id header) and
 * the client sends it back on every request; it is kept in the database (mcp_sessions), where a
 * tools/call on any process finds it. Per session, never per token (issue 39): two clients on one token
 * are two sessions, so a client that can confirm is always asked and one that cannot never is. A request
 * without a session, or naming another token's, is never asked.
 */
import { randomBytes } from "node:crypto";
import type { Knex } from "knex";

/**
 * A session lives this long from its initialize, far beyond any client's session; past it the session is
 * unknown (404, src/mcp/sessions.ts) and its row is pruned by the server's schedule (src/serve.ts).
 */
export const SESSION_DAYS = 30;

/** Form-mode elicitation: `elicitation: {}` (the 2025-06-18 shape, form by default) or `elicitation: {form: …}`. */
export function declaresFormElicitation(capabilities: unknown): boolean {
  if (capabilities === null || typeof capabilities !== "object") return false;
  const e = (capabilities as Record<string, unknown>).elicitation;
  if (e === null || typeof e !== "object" || Array.isArray(e)) return false;
  const modes = e as Record<string, unknown>;
  return modes.form !== undefined || modes.url === undefined;
}

/** A new session id: 32 random bytes, base64url (43 characters, visible ASCII as the transport requires). */
export function newSessionId(): string {
  return randomBytes(32).toString("base64url");
}

/** Records the session's capabilities (its row is what makes the session known: src/mcp/sessions.ts). */
export async function rememberCapabilities(db: Knex, tokenId: string, sessionId: string, capabilities: unknown, now: Date): Promise<void> {
  await db("mcp_sessions").insert({ id: sessionId, token_id: tokenId, elicitation_form: declaresFormElicitation(capabilities), created_at: now.toISOString() });
}

/** Whether the client of this session (of this token) declared form elicitation; no session: no. */
export async function sessionClientElicits(db: Knex, tokenId: string, sessionId: string | undefined): Promise<boolean> {
  if (sessionId === undefined) return false;
  const row = (await db("mcp_sessions").where({ id: sessionId, token_id: tokenId }).first("elicitation_form")) as { elicitation_form: unknown } | undefined;
  return row !== undefined && Boolean(row.elicitation_form);
}
