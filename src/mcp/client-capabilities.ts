/**
 * What the client holding a token declared at its last `initialize` (2025-06-18 and 2025-11-25 declare
 * capabilities only there). The server keeps no session, so it keeps this per token, in the database
 * (client_capabilities), where a tools/call on any process finds it. The last initialize wins: a token
 * moved to a client without elicitation stops being asked at that client's first initialize.
 */
import type { Knex } from "knex";

/** Form-mode elicitation: `elicitation: {}` (the 2025-06-18 shape, form by default) or `elicitation: {form: …}`. */
export function declaresFormElicitation(capabilities: unknown): boolean {
  if (capabilities === null || typeof capabilities !== "object") return false;
  const e = (capabilities as Record<string, unknown>).elicitation;
  if (e === null || typeof e !== "object" || Array.isArray(e)) return false;
  const modes = e as Record<string, unknown>;
  return modes.form !== undefined || modes.url === undefined;
}

export async function rememberCapabilities(db: Knex, tokenId: string, capabilities: unknown, now: Date): Promise<void> {
  if (!declaresFormElicitation(capabilities)) {
    await db("client_capabilities").where({ token_id: tokenId }).delete();
    return;
  }
  await db("client_capabilities")
    .insert({ token_id: tokenId, elicitation_form: true, declared_at: now.toISOString() })
    .onConflict("token_id")
    .merge(["elicitation_form", "declared_at"]);
}

export async function tokenClientElicits(db: Knex, tokenId: string): Promise<boolean> {
  const row = (await db("client_capabilities").where({ token_id: tokenId }).first("elicitation_form")) as { elicitation_form: unknown } | undefined;
  return row !== undefined && Boolean(row.elicitation_form);
}
