/**
 * Previews bound to what they showed (issue 39, docs/decisions.md#preview-ids). A dry run of a bulk write
 * (import_transactions, update_transactions, save_rule applying a rule to the past, undo_change) answers a
 * `preview_id`; a commit that passes it is refused with `stale_preview` when a row it would touch changed
 * since the preview, or rows joined or left what it would touch, when the id is older than
 * PREVIEW_TTL_MS, or when a commit already used it. A confirmation through the client binds the preview
 * its dialog showed the same way (src/writes/confirm.ts), a delete's too (its one record; the id is kept
 * beside the dry run's answer, not in it: keepDialogPreview). Without preview_id nothing changes.
 *
 * The handler names the rows it would touch (their ids and a version, a hash of what each row holds),
 * the same way in the dry run and in the commit, through ctx.bindPreview. The preview id is
 * "pv1.<count>.<made at>.<digest>.<HMAC-SHA256>" under a key the server generated once (server_secrets
 * "preview"), over the user, the tool, a hash of the arguments that decide what is written (BINDING_FREE
 * left out: a commit may use a new key, another rows_limit, and its expected_count is checked against the
 * count instead), a digest of the rows, their count and the moment it was made. So it cannot be forged
 * nor moved to another user, tool or arguments. The commit recomputes the digest over the rows as it
 * finds them, inside its transaction, before it writes anything, and claims the id there (previews_used).
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { Knex } from "knex";
import { canonicalJson } from "../json.js";
import { AppError, invalidParams } from "../errors.js";
import { rememberedSecret } from "../db/server-secret.js";
import type { PreviewBasis, PreviewRow } from "../context.js";

export type { PreviewBasis };

const VERSION = "pv1";
/** How long a preview id commits: a person reads a preview and answers within minutes (docs/decisions.md#preview-ids). */
export const PREVIEW_TTL_MS = 30 * 60_000;
/**
 * Arguments a commit may send otherwise than its dry run: the call's key and mode, the preview id itself,
 * how many rows the answer lists (rows_limit changes no row); expected_count, which the dry run may not
 * carry (save_rule's documented flow) and which is checked against the preview's count instead; and an
 * import's choices among the rows the preview showed, each with its status bound by the digest (the
 * possible duplicates named in import_rows, the invalid rows skip_invalid drops): the person makes them
 * after reading the preview (docs/decisions.md#preview-ids).
 */
const BINDING_FREE = ["dry_run", "preview_id", "idempotency_key", "rows_limit", "expected_count", "import_rows", "skip_invalid"];

/** What a preview id carries: the rows' count and digest, and when it was made; `mac` names it (previews_used). */
export interface Payload {
  n: number;
  m: number;
  d: string;
  mac: string;
}

/** The signing key, read (or made) outside any write's transaction, so a rolled-back dry run never loses it. */
export function previewKey(db: Knex): Promise<Buffer> {
  return rememberedSecret(db, "preview");
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
  const args = Object.fromEntries(Object.entries(params).filter(([k]) => !BINDING_FREE.includes(k)));
  return createHash("sha256")
    .update(`${tool}\n${canonicalJson(stable(args))}`)
    .digest("base64url");
}

/**
 * The rows' digest (128 bits), order-free (sorted by id), so a commit reading them in another order
 * agrees. Each row's content is its JSON as read (the same query in the dry run and the commit gives
 * the same key order), bigints as text: one hash over all rows, ~20 ms for 5,000 (docs/decisions.md#preview-ids).
 */
function digestOf(rows: readonly PreviewRow[]): string {
  const hash = createHash("sha256");
  const text = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? x.toString() : x)) ?? "null";
  for (const r of [...rows].sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0))) hash.update(`${r.id}\t${text(r.content)}\n`);
  return hash.digest().subarray(0, 16).toString("base64url");
}

/**
 * The MAC (128 bits) binds the id's body to the user, the tool and the arguments, which the commit knows
 * itself: they are not in the id, which stays short (a model copies it into the commit).
 */
const mac = (key: Buffer, body: string, userId: string, tool: string, params: Record<string, unknown>) =>
  createHmac("sha256", key)
    .update(`finance-mcp preview\n${body}\n${userId}\n${tool}\n${argumentsHash(tool, params)}`)
    .digest()
    .subarray(0, 16);

/** The preview id of a dry run that showed `basis`: "pv1.<rows>.<made at, base 36>.<digest>.<MAC>". */
export function signPreview(key: Buffer, userId: string, tool: string, params: Record<string, unknown>, basis: PreviewBasis, now: Date): string {
  const body = `${VERSION}.${basis.total ?? basis.rows.length}.${now.getTime().toString(36)}.${digestOf(basis.rows)}`;
  return `${body}.${mac(key, body, userId, tool, params).toString("base64url")}`;
}

function notOurs(why: string): AppError {
  return invalidParams(
    "preview_id",
    "the preview_id a dry run of this very call answered",
    `preview_id: ${why}, so nothing was changed. Send dry_run true with these arguments and pass the preview_id it answers.`,
  );
}

/** The preview ids of dry runs that bind only a confirmation's commit (a delete's: PreviewBasis.dialogOnly), by their answer. */
const dialogPreviews = new WeakMap<object, string>();

/** Keeps a dry run's preview id beside its answer, not in it: the confirmation that shows the answer binds its commit to it. */
export function keepDialogPreview(preview: Record<string, unknown>, previewId: string): void {
  dialogPreviews.set(preview, previewId);
}

/** The preview id kept beside a dry run's answer (keepDialogPreview), if any. */
export const dialogPreviewOf = (preview: Record<string, unknown>): string | undefined => dialogPreviews.get(preview);

/** A preview id that was this call's but commits no more: dry-run again. */
function spent(reason: "expired" | "used"): AppError {
  const why =
    reason === "expired"
      ? `the preview is older than ${PREVIEW_TTL_MS / 60_000} minutes`
      : "a commit already used this preview (one preview, one commit: that change was made, list_changes shows it)";
  return new AppError(
    "stale_preview",
    `preview_id: ${why}, so nothing was changed. Preview again (dry_run true), show the person the new preview, and commit with its preview_id.`,
    { field: "preview_id", reason },
  );
}

/**
 * Reads a preview id this server made for this user, tool and arguments; refuses any other with
 * invalid_params (it never says which part failed: an id of other arguments and an altered one look
 * alike), and one older than PREVIEW_TTL_MS with stale_preview.
 */
export function readPreview(key: Buffer, previewId: unknown, userId: string, tool: string, params: Record<string, unknown>, now: Date): Payload {
  const parts = typeof previewId === "string" ? previewId.split(".") : [];
  if (parts.length !== 5 || parts[0] !== VERSION || !/^\d{1,6}$/.test(parts[1]!) || !/^[0-9a-z]{1,12}$/.test(parts[2]!))
    throw notOurs("it is not a preview id of this server");
  const body = parts.slice(0, 4).join(".");
  const given = Buffer.from(parts[4]!, "base64url");
  const expected = mac(key, body, userId, tool, params);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw notOurs("it was made for another call (another tool or other arguments), or altered");
  const payload = { n: Number(parts[1]), m: parseInt(parts[2]!, 36), d: parts[3]!, mac: expected.toString("base64url") };
  if (now.getTime() - payload.m > PREVIEW_TTL_MS) throw spent("expired");
  return payload;
}

/**
 * A commit's expected_count must be the count its preview showed (the id does not bind it, so that a dry
 * run without one, as save_rule's, commits with the count it answered).
 */
export function assertPreviewCount(payload: Payload, expectedCount: unknown): void {
  if (typeof expectedCount !== "number" || expectedCount === payload.n) return;
  throw new AppError(
    "conflict",
    `expected_count: the preview showed ${payload.n}, not ${expectedCount}; nothing was changed. Send expected_count ${payload.n} with this preview_id if those are the rows meant.`,
    { field: "expected_count", expected: String(payload.n) },
  );
}

/**
 * Claims the preview id inside the commit's transaction (single use): a second commit with it, under
 * another key, is stale_preview; a refused or failed commit rolls the claim back. Rows are kept until
 * the id could no longer commit anyway (purgeUsedPreviews).
 */
export async function claimPreview(trx: Knex, userId: string, payload: Payload): Promise<void> {
  const claimed = await trx("previews_used")
    .insert({ mac: payload.mac, user_id: userId, expires_at: new Date(payload.m + PREVIEW_TTL_MS).toISOString() })
    .onConflict("mac")
    .ignore()
    .returning("mac");
  if (claimed.length !== 1) throw spent("used");
}

export async function purgeUsedPreviews(db: Knex, now: Date): Promise<number> {
  return db("previews_used").where("expires_at", "<", now.toISOString()).delete();
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
  // A delete takes no preview_id (dialogOnly): calling it again asks the person about the record as it is now.
  const next = basis.dialogOnly
    ? "Call again without dry_run: the person will be asked to confirm it as it is now."
    : "Preview again (dry_run true), show the person the new preview, and commit with its preview_id.";
  throw new AppError(
    "stale_preview",
    `preview_id: the ${basis.noun} this call would touch changed since the preview: ${parts.join(", and ")}. Nothing was changed. ${next}`,
    {
      field: "preview_id",
      changed_count: Math.max(changed.length, joinedOrLeft, 1),
      ...(changed.length > 0 ? { changed_id: changed[0] } : {}),
      rows_then: payload.n,
      rows_now: now,
    },
  );
}
