/**
 * import_transactions: the preview (dry run) or commit of one statement, as the tool answers it, and the
 * one audit entry that holds each created transaction's own create snapshot.
 */
import type { ImportTransactionsParams } from "../../../generated/types.js";
import type { WriteContext } from "../../writes/types.js";
import { countsOf, importWarnings, mappingFromApi, mappingToApi, overruledWarnings, reconciliationToApi, rowsPage } from "./answer.js";
import { importChange } from "./change.js";
import { importStatement, prepareStatement, type PreparedStatement } from "./import.js";
import type { ToolContext } from "../../context.js";

/**
 * Reads the statement before the write's transaction opens (the handler's `prepare`: src/writes/pipeline.ts),
 * as the wallet needs it read: a card wallet's hints and the mapping remembered for the file's layout.
 * Reading it again inside the transaction held SQLite's one connection 12–14 s (issue 51).
 */
export const prepareImport = (params: ImportTransactionsParams, ctx: ToolContext): Promise<PreparedStatement> =>
  prepareStatement(ctx.db, ctx.caller.userId, { walletId: params.wallet_id, statement: params.statement, mapping: mappingFromApi(params.mapping) });

export async function importTransactions(ctx: WriteContext, params: ImportTransactionsParams) {
  const outcome = await importStatement(ctx.db, ctx.caller.userId, {
    walletId: params.wallet_id,
    statement: params.statement,
    prepared: ctx.prepared as PreparedStatement | undefined,
    mapping: mappingFromApi(params.mapping),
    importRows: params.import_rows ?? [],
    skipInvalid: params.skip_invalid ?? false,
    ...(params.expected_balance === undefined ? {} : { expectedBalance: params.expected_balance }),
    dryRun: ctx.dryRun,
    now: ctx.now(),
    ids: ctx.ids,
    bindPreview: ctx.bindPreview,
  });
  const counts = countsOf(outcome);
  const summary = { id: outcome.importId, wallet_id: outcome.wallet.id, format: outcome.parsed.format, counts };
  return {
    // Warnings and the reconciliation first: a model reads the answer's start (docs/import.md, "Reconciliation").
    result: {
      warnings: [
        ...importWarnings(
          counts,
          outcome.reconciliation,
          params.skip_invalid ?? false,
          outcome.parsed,
          outcome.rows.filter((r) => r.descriptionCut).length,
          outcome.rows,
          outcome.gate,
          // A commit that went ahead needs no decision: its warnings say what the balance is.
          ctx.dryRun,
        ),
        ...overruledWarnings(outcome.mappingSource),
      ],
      reconciliation: reconciliationToApi(outcome.reconciliation),
      format: outcome.parsed.format,
      currency: outcome.wallet.currency,
      mapping: mappingToApi(outcome.parsed.mapping),
      mapping_source: outcome.mappingSource === null ? null : { source: outcome.mappingSource.source, saved_at: outcome.mappingSource.savedAt },
      counts,
      rows: rowsPage(outcome, params.rows_limit ?? 20, ctx.dryRun),
    },
    // One audit row for the whole import, holding each created transaction's own create snapshot.
    change: importChange(outcome.importId, summary, outcome.created),
  };
}
