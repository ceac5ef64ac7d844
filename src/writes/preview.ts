/**
 * Previews bound to what they showed (issue 39, docs/decisions.md#preview-ids). A dry run of a bulk write
 * (import_transactions, update_transactions, save_rule applying a rule to the past, undo_change) answers a
 * `preview_id`; a commit that passes it is refused with `stale_preview` when a row it would touch changed
 * since the preview, or rows joined or left what it would touch. Without preview_id nothing changes.
 *
 * Stateless, no table: the handler names the rows it would touch (their ids and a version, a hash of
 * what each row holds), the same way in the dry run and in the commit, through ctx.bindPreview. The
 * preview id is "pv1.<payload>.<HMAC-SHA256>" under a key the server generated once (server_secrets
 * "preview"), over the user, the tool, a hash of the arguments (dry_run, preview_id and idempotency_key
 * left out, so a commit may use a new key), a digest of the rows, their count and the moment it was made.
 * So it cannot be forged nor moved to another user, tool or arguments. The commit recomputes the digest
 * over the rows as it finds them, inside its transaction, before it writes anything.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { Knex } from "knex";
import { canonicalJson } from "../json.js";
import { AppError, invalidParams } from "../errors.js";
import { storedSecret } from "../db/server-secret.js";
import type { PreviewBasis, PreviewRow } from "../context.js";

export type { PreviewBasis };

const VERSION = "pv1";

interface Payload {
  /** user, tool, arguments' hash, rows' digest, row count, made at (ms since the epoch) */
  u: string;
  t: string;
  h: string;
  d: string;
  n: number;
  m: number;
}

const keys = new WeakMap<Knex, Promise<Buffer>>();
/** The signing key, read (or made) outside any write's transaction, so a rolled-back dry run never loses it. */
export function previewKey(db: Knex): Promise<Buffer> {
  let key = keys.get(db);
  if (!key) {
    key = storedSecret(db, "preview");
    key.catch(() => keys.delete(db));
    keys.set(db, key);
  }
  return key;
}

const stable = (v: unknown): unknown =>
  typeof v === "bigint"
    ? v.toString()
    : v instanceof Date
      ? v.toISOString()
      : v === null || typeof v !== "object"
        ? v
        : Array.isArray(v)
          ? v.map(stable)
          : Object.fromEntries(Object.entries(v as object).map(([k, x]) => [k, stable(x)]));

function argumentsHash(tool: string, params: Record<string, unknown>): string {
  const { dry_run: _d, preview_id: _p, idempotency_key: _k, ...args } = params;
  return createHash("sha256").update(`${tool}\n${canonicalJson(stable(args))}`).digest("base64url");
}

/** The rows' digest: order-free (sorted by id), so a commit reading them in another order agrees. */
function digestOf(rows: readonly PreviewRow[]): string {
  const lines = rows.map((r) => `${r.id}\t${createHash("sha256").update(canonicalJson(stable(r.content))).digest("base64url")}`).sort();
  return createHash("sha256").update(lines.join("\n")).digest("base64url");
}

const mac = (key: Buffer, body: string) => createHmac("sha256", key).update(`finance-mcp preview\n${body}`).digest();

/** The preview id of a dry run that showed `basis`. */
export function signPreview(key: Buffer, userId: string, tool: string, params: Record<string, unknown>, basis: PreviewBasis, now: Date): string {
  const payload: Payload = { u: userId, t: tool, h: argumentsHash(tool, params), d: digestOf(basis.rows), n: basis.rows.length, m: now.getTime() };
  const body = `${VERSION}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}`;
  return `${body}.${mac(key, body).toString("base64url")}`;
}

function notOurs(why: string): AppError {
  return invalidParams(
    "preview_id",
    "the preview_id a dry run of this very call answered",
    `preview_id: ${why}, so nothing was changed. Send dry_run true with these arguments and pass the preview_id it answers.`,
  );
}

/** Reads a preview id this server made for this user, tool and arguments; refuses any other (invalid_params). */
export function readPreview(key: Buffer, previewId: unknown, userId: string, tool: string, params: Record<string, unknown>): Payload {
  if (typeof previewId !== "string") throw notOurs("it is not a preview id");
  const parts = previewId.split(".");
  if (parts.length !== 3 || parts[0] !== VERSION) throw notOurs("it was not made by this server (or was altered)");
  const body = `${parts[0]}.${parts[1]}`;
  const given = Buffer.from(parts[2]!, "base64url");
  const expected = mac(key, body);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw notOurs("it was not made by this server (or was altered)");
  const payload = JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8")) as Payload;
  if (payload.u !== userId || payload.t !== tool || payload.h !== argumentsHash(tool, params))
    throw notOurs("it was made for another call (another tool or other arguments)");
  return payload;
}

/**
 * Refuses the commit with stale_preview unless `basis` is what the preview showed. Names the rows changed
 * since (those that keep when they last changed) and how many joined or left.
 */
export function assertFreshPreview(payload: Payload, basis: PreviewBasis): void {
  if (digestOf(basis.rows) === payload.d) return;
  const since = new Date(payload.m).toISOString();
  const changed = basis.rows.filter((r) => r.updatedAt !== undefined && r.updatedAt !== null && r.updatedAt > since).map((r) => r.id);
  const now = basis.total ?? basis.rows.length;
  const joinedOrLeft = Math.abs(now - payload.n);
  const parts: string[] = [];
  if (changed.length > 0) parts.push(`${changed.length} changed or joined (first: ${changed[0]})`);
  if (now !== payload.n) parts.push(`they are now ${now}, not ${payload.n}`);
  if (parts.length === 0) parts.push("at least one of them changed");
  throw new AppError(
    "stale_preview",
    `preview_id: the ${basis.noun} this call would touch changed since the preview: ${parts.join(", and ")}. Nothing was changed. Preview again (dry_run true), show the person the new preview, and commit with its preview_id.`,
    {
      field: "preview_id",
      changed_count: Math.max(changed.length, joinedOrLeft, 1),
      ...(changed.length > 0 ? { changed_id: changed[0] } : {}),
      rows_then: payload.n,
      rows_now: now,
    },
  );
}
