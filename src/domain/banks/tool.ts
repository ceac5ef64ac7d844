/**
 * The tools' entries: sync_bank_connections (a write: its prepare reads the bridges before the
 * transaction opens) and list_bank_connections (a read, one statement).
 */
import type { ListBankConnectionsParams, SyncBankConnectionsParams } from "../../../generated/types.js";
import type { ToolContext } from "../../context.js";
import type { WriteContext } from "../../writes/types.js";
import { importChange } from "../imports/change.js";
import { fetchBankData, syncFetched, type FetchedBanks } from "./sync.js";
import { sanitizeBridgeText } from "./sanitize.js";

/** Reads the bridges before the write's transaction opens (the handler's `prepare`: src/writes/pipeline.ts). */
export const prepareBankSync = (params: SyncBankConnectionsParams, ctx: ToolContext): Promise<FetchedBanks> => fetchBankData(ctx, params);

export async function syncBankConnections(ctx: WriteContext, params: SyncBankConnectionsParams) {
  const fetched = (ctx.prepared as FetchedBanks | undefined) ?? (await fetchBankData(ctx, params));
  const outcome = await syncFetched(ctx, fetched);
  const created = outcome.created.length;
  return {
    result: {
      warnings: outcome.warnings,
      created: ctx.dryRun ? outcome.connections.reduce((n, c) => n + c.accounts.reduce((m, a) => m + a.created, 0), 0) : created,
      connections: outcome.connections,
    },
    // One audit row for the whole sync, as an import's: undo takes back what it created at once.
    change: importChange(
      outcome.importId,
      { id: outcome.importId, source: "bank_sync", connections: outcome.connections.map((c) => c.connection_id), created },
      outcome.created,
    ),
  };
}

/** The person's connections with their accounts, in one statement. */
export async function listBankConnections(ctx: ToolContext, _params: ListBankConnectionsParams) {
  const rows: Record<string, unknown>[] = await ctx
    .db("bank_connections as c")
    .leftJoin("bank_accounts as a", function () {
      this.on("a.connection_id", "=", "c.id").andOn("a.user_id", "=", "c.user_id");
    })
    .where("c.user_id", ctx.caller.userId)
    .orderBy([{ column: "c.created_at" }, { column: "c.id" }, { column: "a.name" }, { column: "a.account_id" }])
    .select(
      "c.id",
      "c.bridge",
      "c.created_at",
      "c.last_sync_at",
      "c.last_status",
      "c.last_errors",
      "c.next_sync_at",
      "a.account_id",
      "a.name",
      "a.currency",
      "a.wallet_id",
      "a.skip_reason",
    );
  const scheduled = ctx.config.banks.syncIntervalSeconds > 0;
  const text = (v: unknown) => (v == null ? null : String(v));
  const out = new Map<string, ConnectionListed>();
  for (const r of rows) {
    const id = String(r.id);
    let c = out.get(id);
    if (c === undefined) {
      let errors: unknown = [];
      try {
        errors = JSON.parse(String(r.last_errors ?? "[]"));
      } catch {
        errors = [];
      }
      c = {
        connection_id: id,
        bridge: String(r.bridge),
        connected_at: String(r.created_at),
        last_sync_at: text(r.last_sync_at),
        last_status: r.last_status == null ? null : (String(r.last_status) as "ok" | "failed"),
        errors: (Array.isArray(errors) ? errors : []).filter((e): e is string => typeof e === "string").map(sanitizeBridgeText),
        next_sync_at: scheduled ? String(r.next_sync_at) : null,
        accounts: [],
      };
      out.set(id, c);
    }
    if (r.account_id != null)
      c.accounts.push({
        account: String(r.name),
        currency: String(r.currency).slice(0, 200),
        wallet_id: text(r.wallet_id),
        skipped: text(r.skip_reason) ?? (r.wallet_id == null ? "not linked to a wallet" : null),
      });
  }
  return { connections: [...out.values()] };
}

interface ConnectionListed {
  connection_id: string;
  bridge: string;
  connected_at: string;
  last_sync_at: string | null;
  last_status: "ok" | "failed" | null;
  errors: string[];
  next_sync_at: string | null;
  accounts: { account: string; currency: string; wallet_id: string | null; skipped: string | null }[];
}
