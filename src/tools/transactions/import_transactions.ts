import type { Handlers } from "../../../generated/handlers.js";
import { countsOf, mappingFromApi, mappingToApi, rowsPage } from "../../domain/imports/answer.js";
import { importStatement } from "../../domain/imports/import.js";
import { importWarnings } from "../../domain/imports/answer.js";

export const import_transactions: Handlers["import_transactions"] = async (params, ctx) => {
  const outcome = await importStatement(ctx.db, ctx.caller.userId, {
    walletId: params.wallet_id,
    statement: params.statement,
    mapping: mappingFromApi(params.mapping),
    importRows: params.import_rows ?? [],
    skipInvalid: params.skip_invalid ?? false,
    dryRun: ctx.dryRun,
    now: ctx.now(),
    ids: ctx.ids,
  });
  const counts = countsOf(outcome);
  const summary = { id: outcome.importId, wallet_id: outcome.wallet.id, format: outcome.parsed.format, counts };
  return {
    result: {
      format: outcome.parsed.format,
      currency: outcome.wallet.currency,
      mapping: mappingToApi(outcome.parsed.mapping),
      counts,
      rows: rowsPage(outcome, params.rows_limit ?? 20, ctx.dryRun),
      reconciliation: outcome.reconciliation,
      warnings: importWarnings(counts, outcome.reconciliation, params.skip_invalid ?? false),
    },
    // One audit row for the whole import, holding each created transaction's own create snapshot.
    change: {
      action: "create",
      resourceType: "import",
      resourceId: outcome.importId,
      before: null,
      after: {
        import: summary,
        changes: outcome.created.map((t) => ({ action: "create", resourceType: "transaction", resourceId: t.id, before: null, after: { transaction: t, counterpart: null } })),
      },
    },
  };
};
