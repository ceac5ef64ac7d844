/**
 * The person's connected OAuth clients, for the account page: one entry per grant (an approved
 * authorization) with its client, scopes and its one access token's dates. Revoking one ends the grant
 * and its token at once, as DELETE /api/v1/mcp-tokens/<its token id> does.
 */
import type { Knex } from "knex";
import { revokeGrant } from "./token.js";

export interface ConnectedClient {
  grant_id: string;
  client_id: string;
  client_name: string;
  scopes: string[];
  /** When the person approved it. */
  created_at: string;
  /** The grant's access token (listed with the other tokens too). */
  token_id: string | null;
  last_used_at: string | null;
  /** The current access token's expiry (an hour after the last refresh); the client refreshes it. */
  token_expires_at: string | null;
  /** Refreshing stops after this, at the latest. */
  grant_expires_at: string;
  revoked_at: string | null;
}

export async function listConnectedClients(db: Knex, userId: string): Promise<ConnectedClient[]> {
  const rows = await db("oauth_grants as g")
    .leftJoin("mcp_tokens as t", "t.grant_id", "g.id")
    .leftJoin("oauth_clients as c", "c.client_id", "g.client_id")
    .where("g.user_id", userId)
    .orderBy("g.created_at", "desc")
    .select(
      "g.id",
      "g.client_id",
      "g.scopes",
      "g.created_at",
      "g.expires_at",
      "g.revoked_at",
      "t.id as token_id",
      "t.last_used_at",
      "t.expires_at as token_expires_at",
      "t.scopes as token_scopes",
      "c.metadata",
    );
  return rows.map((r) => {
    const name = r.metadata ? (JSON.parse(String(r.metadata)) as { name?: string }).name : undefined;
    return {
      grant_id: String(r.id),
      client_id: String(r.client_id),
      client_name: name || String(r.client_id),
      // A refresh may have narrowed the token's scopes: those are what the client can use now.
      scopes: JSON.parse(String(r.token_scopes ?? r.scopes)) as string[],
      created_at: String(r.created_at),
      token_id: r.token_id == null ? null : String(r.token_id),
      last_used_at: r.last_used_at == null ? null : String(r.last_used_at),
      token_expires_at: r.token_expires_at == null ? null : String(r.token_expires_at),
      grant_expires_at: String(r.expires_at),
      revoked_at: r.revoked_at == null ? null : String(r.revoked_at),
    };
  });
}

/** Ends one of the user's grants; false when the user has no such grant (another user's looks the same). */
export async function revokeConnectedClient(db: Knex, userId: string, grantId: string, now = new Date()): Promise<boolean> {
  const row = await db("oauth_grants").where({ id: grantId, user_id: userId }).first("id");
  if (!row) return false;
  await revokeGrant(db, grantId, now);
  return true;
}
