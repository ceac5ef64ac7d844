/**
 * Calendar feed secrets: the feed URL /api/v1/calendar/<secret>.ics is the only credential a calendar
 * app can present (it sends no headers), so the secret is long (192 random bits), shown once, stored as a
 * hash (HMAC with TOKEN_PEPPER), and revocable. One live feed per user (a partial unique index, migration 20261128120000).
 */
import { randomBytes } from "node:crypto";
import type { Knex } from "knex";
import { forUpdate } from "../db/dialect.js";
import { hashToken } from "./token-format.js";

const SECRET = /^cal_[A-Za-z0-9_-]{32}$/;

export interface FeedStatus {
  created_at: string;
  last_fetched_at: string | null;
}

/**
 * Makes a new feed secret for the user, revoking the live one; answers the secret (shown once). The
 * partial unique index calendar_feeds_one_live holds one live feed per user; locking the user's row first
 * makes concurrent requests take turns (the last one's URL stays live) instead of failing on it.
 */
export async function createCalendarFeed(db: Knex, userId: string, pepper: string, now: Date): Promise<string> {
  const secret = `cal_${randomBytes(24).toString("base64url")}`;
  await db.transaction(async (trx) => {
    await forUpdate(trx, trx("users").where({ id: userId }).first("id"));
    await trx("calendar_feeds").where({ user_id: userId }).whereNull("revoked_at").update({ revoked_at: now.toISOString() });
    await trx("calendar_feeds").insert({ secret_hash: hashToken(secret, pepper), user_id: userId, created_at: now.toISOString() });
  });
  return secret;
}

export async function revokeCalendarFeed(db: Knex, userId: string, now: Date): Promise<void> {
  await db("calendar_feeds").where({ user_id: userId }).whereNull("revoked_at").update({ revoked_at: now.toISOString() });
}

export async function liveCalendarFeed(db: Knex, userId: string): Promise<FeedStatus | undefined> {
  const row = await db("calendar_feeds").where({ user_id: userId }).whereNull("revoked_at").first("created_at", "last_fetched_at");
  return row ? { created_at: String(row.created_at), last_fetched_at: row.last_fetched_at == null ? null : String(row.last_fetched_at) } : undefined;
}

/** Whether the person chose on /account that their feed carries their confirmed regular payments too (issue 38 item 4). */
export async function feedCarriesSeries(db: Knex, userId: string): Promise<boolean> {
  const row = (await db("users").where({ id: userId }).first("calendar_series")) as { calendar_series: unknown } | undefined;
  return Number(row?.calendar_series ?? 0) === 1;
}

export async function setFeedCarriesSeries(db: Knex, userId: string, on: boolean): Promise<void> {
  await db("users")
    .where({ id: userId })
    .update({ calendar_series: on ? 1 : 0 });
}

/** The user of a live feed secret, or undefined (malformed, unknown or revoked: all answered alike). */
export async function feedOwner(db: Knex, secret: string, pepper: string, now: Date): Promise<{ id: string; timezone: string; series: boolean } | undefined> {
  if (!SECRET.test(secret)) return undefined;
  const hash = hashToken(secret, pepper);
  const row = await db("calendar_feeds as f")
    .join("users as u", "u.id", "f.user_id")
    .where("f.secret_hash", hash)
    .whereNull("f.revoked_at")
    .first("u.id", "u.timezone", "u.calendar_series");
  if (!row) return undefined;
  await db("calendar_feeds").where({ secret_hash: hash }).update({ last_fetched_at: now.toISOString() });
  return { id: String(row.id), timezone: String(row.timezone), series: Number(row.calendar_series) === 1 };
}
