/**
 * list_changes: the caller's committed writes from the audit log, newest first, each in the person's words
 * (describe.ts), with the client that wrote it (the token's name; an OAuth client's token is named after
 * the client) and the rows it touched (the audit's captured rows: both legs of a transfer, a goal
 * contribution and its transfer legs, a delete's refunds; on a page of several changes the first few). For "did that go through?" (idempotency_key, audit_id) and "what
 * changed today?" (day, since, tool, client, area). Only areas the token may read: the tool's own scope is
 * meta:whoami, which reads no finance data, so each entry's area is checked here against read:<area>.
 */
import type { Caller, DomainContext } from "../../context.js";
import type { ChangeEntry, ListChangesParams } from "../../../generated/types.js";
import { AREA_OF } from "../../audit/areas.js";
import { auditEntriesQuery, auditEntryOf, type AuditEntry } from "../../audit/log.js";
import { jsonRowsSql, jsonValue } from "../../db/dialect.js";
import { startOfDayIn } from "../../calendar/time-zones.js";
import { addDays } from "../../calendar/days.js";
import { describeChange } from "./describe.js";
import { decodeCursor, encodeCursor, pageSize, queryFingerprint, splitPage } from "../paging.js";
import { invalidParams } from "../../errors.js";

/** `since` as an ISO instant. The schema's date-time format admits a leap second (:60), which a Date cannot hold. */
function instantOf(since: string): string {
  const ms = Date.parse(since);
  if (Number.isNaN(ms)) throw invalidParams("since", "a date-time such as 2026-11-27T08:00:00Z", "since: not a date-time that can be read (seconds 00–59)");
  return new Date(ms).toISOString();
}

/** The ids of its rows one change asked for by id lists (the spec's maxItems of ChangeEntry.ids). */
const IDS_SHOWN = 200;

interface Position extends Record<string, unknown> {
  i: string;
}
// At most 18 digits, like AuditId in the spec: always within a 64-bit integer, whichever engine reads it.
const isPosition = (c: Record<string, unknown>): c is Position => typeof c.i === "string" && /^[1-9][0-9]{0,17}$/.test(c.i);

/** The resource ids a write's snapshots name (entries written before rows were captured). */
function idsOf(e: AuditEntry): string[] {
  const ids = new Set([e.resource_id]);
  for (const snapshot of [e.before, e.after]) {
    if (snapshot === null || typeof snapshot !== "object") continue;
    for (const v of Object.values(snapshot as Record<string, unknown>)) {
      const id = v !== null && typeof v === "object" ? (v as { id?: unknown }).id : undefined;
      if (typeof id === "string" && /^[a-z]{3}_[A-Za-z0-9]+$/.test(id)) ids.add(id);
    }
  }
  return [...ids];
}

/**
 * How many row ids an entry names on a page of changes: an import or a bulk edit touches hundreds, and
 * ten changes of a day must read in a page (ANSWER_BUDGETS.changesTodayTokens). A call that names one
 * change (audit_id, idempotency_key) lists every row; more_ids counts the rest.
 */
const IDS_ON_A_PAGE = 5;

/** `timezone` is where a `day` starts and ends (the user's; the account page lists without a day). */
export async function listChanges(
  ctx: Pick<DomainContext, "db"> & { caller: Pick<Caller, "userId" | "scopes" | "timezone"> },
  p: ListChangesParams,
): Promise<{ changes: ChangeEntry[]; next_cursor: string | null }> {
  const { db, caller } = ctx;
  const { userId } = caller;
  const size = pageSize(p.limit);
  const since = p.since !== undefined ? instantOf(p.since) : undefined;
  const { cursor: _c, limit: _l, ...filters } = p;
  const fingerprint = queryFingerprint({ list: "changes", ...filters });
  const after = p.cursor !== undefined ? decodeCursor(p.cursor, fingerprint, isPosition) : undefined;
  const resourceTypes = Object.keys(AREA_OF).filter((type) => caller.scopes.has(`read:${AREA_OF[type]}`) && (p.area === undefined || AREA_OF[type] === p.area));
  if (resourceTypes.length === 0) return { changes: [], next_cursor: null };

  // One statement without a client filter: the entries, each with its client's name, the keys of the rows
  // it touched (the audit's captured rows) and the user's wallet names (uncorrelated: read once). A client
  // filter first looks up the tokens whose name holds it (JavaScript's case folding, not the database's).
  let tokenIds: string[] | undefined;
  if (p.client !== undefined) {
    const wanted = p.client.toLowerCase();
    const tokens = (await db("mcp_tokens").where({ user_id: userId }).select("id", "name")) as { id: unknown; name: unknown }[];
    tokenIds = tokens.filter((t) => String(t.name).toLowerCase().includes(wanted)).map((t) => String(t.id));
    if (tokenIds.length === 0) return { changes: [], next_cursor: null };
  }
  const dayRange =
    p.day === undefined
      ? {}
      : { since: startOfDayIn(caller.timezone, p.day).toISOString(), until: startOfDayIn(caller.timezone, addDays(p.day, 1)).toISOString() };
  const q = auditEntriesQuery(
    db,
    userId,
    {
      resourceTypes,
      idempotencyKey: p.idempotency_key,
      auditId: p.audit_id,
      tool: p.tool,
      since: since !== undefined && dayRange.since !== undefined ? (since > dayRange.since ? since : dayRange.since) : (since ?? dayRange.since),
      until: dayRange.until,
      tokenIds,
      beforeId: after?.i,
    },
    size + 1,
  ).select(
    "audit_log.*",
    db.raw("(SELECT k.name FROM mcp_tokens k WHERE k.id = audit_log.token_id AND k.user_id = audit_log.user_id) AS client_name"),
    db.raw(jsonRowsSql(db, { row_key: "x.row_key" }, "audit_rows x WHERE x.user_id = audit_log.user_id AND x.audit_id = audit_log.id", "x.id", "touched_rows")),
    db.raw(jsonRowsSql(db, { id: "w.id", name: "w.name" }, "wallets w WHERE w.user_id = ?", "w.id", "wallet_names"), [userId]),
  );
  const raw = (await q) as Record<string, unknown>[];
  const { page, hasMore, last } = splitPage(
    raw.map((r) => ({ ...auditEntryOf(r), row: r })),
    size,
  );
  const walletNames = new Map<string, string>();
  for (const w of (jsonValue(raw[0]?.wallet_names) as { id: string; name: string }[] | null) ?? []) walletNames.set(String(w.id), String(w.name));
  const wallet = (id: string) => walletNames.get(id) ?? id;
  const idsShown = p.audit_id !== undefined || p.idempotency_key !== undefined ? IDS_SHOWN : IDS_ON_A_PAGE;
  return {
    changes: page.map((e) => {
      const rows = jsonValue(e.row.touched_rows) as { row_key: string }[] | null;
      const touched = rows && rows.length > 0 ? rows.map((r) => JSON.parse(String(r.row_key)) as Record<string, unknown>) : undefined;
      // Rows of the user's data with an id of their own (a tag row belongs to its transaction).
      const ids = touched ? [...new Set(touched.filter((key) => typeof key.id === "string").map((key) => String(key.id)))] : idsOf(e);
      return {
        audit_id: e.id,
        at: e.created_at,
        tool: e.tool,
        client: e.token_id === null || e.row.client_name == null ? null : String(e.row.client_name),
        summary: describeChange(e, wallet),
        // A page names each change's first few rows; one change asked for by id names up to IDS_SHOWN (the
        // spec's maxItems): a 5,000-row change listed every id, 300 KB (issue 51). more_ids counts the rest.
        ids: ids.slice(0, idsShown) as ChangeEntry["ids"], // the generated type spells maxItems as tuples
        ...(ids.length > idsShown ? { more_ids: ids.length - idsShown } : {}),
      };
    }),
    next_cursor: hasMore && last ? encodeCursor(fingerprint, { i: last.id }) : null,
  };
}
