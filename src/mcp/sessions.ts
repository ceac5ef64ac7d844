/**
 * Which Mcp-Session-Id values name a live session (Streamable HTTP, 2025-06-18 and 2025-11-25). A session is
 * opened by an initialize on the full endpoint (src/http/mcp-route.ts) and lives SESSION_DAYS; a request
 * naming a session that was never opened, has been pruned, has outlived that, or belongs to another user
 * answers 404, as the transport specification says, so that the client starts a new session instead of
 * running on without the capabilities it declared (issue 52 item 7). The SDK clients (1.x and v2) surface
 * the 404 as an error of that call; the host reconnects with a new initialize.
 *
 * Per user, not per token: an OAuth client's token is refreshed within one session.
 */
import type { Knex } from "knex";
import { SESSION_DAYS } from "./client-capabilities.js";

const DAY_MS = 86_400_000;
/** A known session is looked up again after this long (a revoked token's or a deleted account's rows go). */
const RECHECK_MS = 60_000;
/** Known sessions remembered per process; past this the memory starts again (a lookup each, nothing more). */
const MAX_REMEMBERED = 10_000;

interface Known {
  userId: string;
  /** When the session ends (its initialize + SESSION_DAYS), ms. */
  endsAt: number;
  checkedAt: number;
}

/** The live sessions a process has seen, so that a request naming one costs no lookup each time. */
export class SessionBook {
  private readonly known = new Map<string, Known>();

  constructor(private readonly db: Knex) {}

  /** Whether `sessionId` names a live session of this user at `now`. */
  async isLive(sessionId: string, userId: string, now: Date): Promise<boolean> {
    const at = now.getTime();
    let k = this.known.get(sessionId);
    if (!k || at - k.checkedAt > RECHECK_MS) {
      const row = (await this.db("mcp_sessions as s")
        .join("mcp_tokens as t", "t.id", "s.token_id")
        .where("s.id", sessionId)
        .first("t.user_id", "s.created_at")) as { user_id: string; created_at: string } | undefined;
      if (!row) {
        this.known.delete(sessionId);
        return false;
      }
      if (this.known.size >= MAX_REMEMBERED) this.known.clear();
      k = { userId: String(row.user_id), endsAt: Date.parse(row.created_at) + SESSION_DAYS * DAY_MS, checkedAt: at };
      this.known.set(sessionId, k);
    }
    return k.userId === userId && at < k.endsAt;
  }
}

/** Deletes the sessions past their life (src/serve.ts runs it at start and on its purge schedule). */
export async function pruneSessions(db: Knex, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - SESSION_DAYS * DAY_MS).toISOString();
  return db("mcp_sessions").where("created_at", "<", cutoff).delete();
}
