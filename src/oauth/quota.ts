/**
 * How OAuth counts against the token-creation limit (RATE_LIMIT_TOKENS_PER_HOUR, 10 by default): an
 * authorization-code exchange creates a token (a row of mcp_tokens) and counts like POST
 * /api/v1/mcp-tokens; a refresh rotates the secret of that same row and creates nothing, so it does not
 * count (a connected client refreshes every hour and would otherwise use the whole allowance up).
 */
import type { Knex } from "knex";

const HOUR_MS = 3_600_000;

/** Tokens of the user created in the hour before `now` (static and OAuth alike). */
export async function tokensCreatedSince(db: Knex, userId: string, now: Date): Promise<number> {
  const since = new Date(now.getTime() - HOUR_MS).toISOString();
  const row = await db("mcp_tokens").where({ user_id: userId }).where("created_at", ">", since).count({ n: "*" }).first();
  return Number(row?.n ?? 0);
}

/** When the oldest of the hour's last `perHour` creations leaves the window, in seconds from now. */
export async function secondsUntilSlot(db: Knex, userId: string, now: Date, perHour: number): Promise<number> {
  const since = new Date(now.getTime() - HOUR_MS).toISOString();
  const rows = await db("mcp_tokens")
    .where({ user_id: userId })
    .where("created_at", ">", since)
    .orderBy("created_at", "desc")
    .limit(perHour)
    .select("created_at");
  const oldest = rows[rows.length - 1];
  if (!oldest) return 1;
  return Math.max(1, Math.ceil((Date.parse(String(oldest.created_at)) + HOUR_MS - now.getTime()) / 1000));
}
