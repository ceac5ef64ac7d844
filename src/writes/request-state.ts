/**
 * The requestState of a 2026-07-28 confirmation (docs/security.md, "requestState"): what the server hands
 * the client with its input_required answer and gets back on the retry. It carries no secret and no
 * argument value, only what binds it: the user, the token, the tool, a hash of the canonical arguments
 * (the idempotency_key included, dry_run left out), the preview_id of the dry run the person was shown
 * (a bulk write's, which the accepted commit is bound to), a random nonce and an expiry, signed with HMAC-SHA256
 * under a key the server generated once (server_secrets "request-state"). So it cannot be forged, nor
 * moved to another user, token, tool or arguments; it is good for REQUEST_STATE_TTL_MS and only once
 * (its nonce is claimed in request_states_used when it is answered).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Knex } from "knex";
import { canonicalJson } from "../json.js";
import { AppError } from "../errors.js";
import { rememberedSecret } from "../db/server-secret.js";
import type { Caller } from "../context.js";

/** How long the person has to answer, and the client to retry. */
export const REQUEST_STATE_TTL_MS = 5 * 60_000;
const VERSION = "rs1";

interface StatePayload {
  /** user, token, tool, hash of the arguments, the preview shown (if any), nonce, expiry (ms since the epoch) */
  u: string;
  k: string;
  t: string;
  h: string;
  p?: string;
  n: string;
  e: number;
}

function stateKey(db: Knex): Promise<Buffer> {
  return rememberedSecret(db, "request-state");
}

function argumentsHash(tool: string, params: Record<string, unknown>): string {
  const { dry_run: _d, ...args } = params;
  return createHash("sha256")
    .update(`${tool}\n${canonicalJson(args)}`)
    .digest("base64url");
}

function mac(key: Buffer, body: string): Buffer {
  return createHmac("sha256", key).update(`finance-mcp requestState\n${body}`).digest();
}

export async function signRequestState(
  db: Knex,
  caller: Caller,
  tool: string,
  params: Record<string, unknown>,
  now: Date,
  shownPreview?: string,
): Promise<string> {
  const payload: StatePayload = {
    u: caller.userId,
    k: caller.tokenId,
    t: tool,
    h: argumentsHash(tool, params),
    ...(shownPreview === undefined ? {} : { p: shownPreview }),
    n: randomBytes(32).toString("base64url"),
    e: now.getTime() + REQUEST_STATE_TTL_MS,
  };
  const body = `${VERSION}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}`;
  return `${body}.${mac(await stateKey(db), body).toString("base64url")}`;
}

function invalid(reason: "forged" | "other_call" | "used"): AppError {
  const why = {
    forged: "was not issued by this server (or was altered)",
    other_call: "was issued for another call (another user, token, tool or arguments)",
    used: "was already answered once",
  }[reason];
  return new AppError(
    "request_state_invalid",
    `The requestState of this retry ${why}, so nothing was changed. Call the tool again without requestState: the person will be asked again.`,
    { field: "requestState", reason },
  );
}

/**
 * Checks a requestState against this very call and claims it (single use); answers the preview it was
 * asked with. Throws request_state_invalid (forged, other_call, used) or request_state_expired; never says
 * which part of a forged state failed.
 */
export async function redeemRequestState(
  db: Knex,
  state: unknown,
  caller: Caller,
  tool: string,
  params: Record<string, unknown>,
  now: Date,
): Promise<{ shownPreview?: string }> {
  if (typeof state !== "string" || state.length > 1024) throw invalid("forged");
  const parts = state.split(".");
  if (parts.length !== 3 || parts[0] !== VERSION) throw invalid("forged");
  const body = `${parts[0]}.${parts[1]}`;
  const expected = mac(await stateKey(db), body);
  const given = Buffer.from(parts[2]!, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid("forged");
  const payload = JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8")) as StatePayload;
  if (now.getTime() > payload.e) {
    throw new AppError(
      "request_state_expired",
      "The person's answer came too late (the confirmation is good for 5 minutes), so nothing was changed. Call the tool again without requestState to ask them again.",
      { field: "requestState" },
    );
  }
  if (payload.u !== caller.userId || payload.k !== caller.tokenId || payload.t !== tool || payload.h !== argumentsHash(tool, params))
    throw invalid("other_call");
  const claimed = await db("request_states_used")
    .insert({ nonce: payload.n, user_id: caller.userId, expires_at: new Date(payload.e).toISOString() })
    .onConflict("nonce")
    .ignore()
    .returning("nonce");
  if (claimed.length !== 1) throw invalid("used");
  return typeof payload.p === "string" ? { shownPreview: payload.p } : {};
}

export async function purgeUsedRequestStates(db: Knex, now: Date): Promise<number> {
  return db("request_states_used").where("expires_at", "<", now.toISOString()).delete();
}
