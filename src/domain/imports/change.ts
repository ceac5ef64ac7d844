/**
 * The audit change of a write that creates many transactions from a statement or a bank: one "import" row,
 * holding the import's summary and each created transaction's own create snapshot, so that list_changes
 * shows one entry and undo deletes them together (src/audit/undo.ts reads `changes`). import_transactions
 * and sync_bank_connections both record this shape.
 */
import type { Transaction } from "../../../generated/types.js";
import type { AuditChange } from "../../writes/types.js";

export function importChange(importId: string, summary: Record<string, unknown>, created: readonly Transaction[]): AuditChange {
  return {
    action: "create",
    resourceType: "import",
    resourceId: importId,
    before: null,
    after: {
      import: summary,
      changes: created.map((t) => ({
        action: "create" as const,
        resourceType: "transaction" as const,
        resourceId: t.id,
        before: null,
        after: { transaction: t, counterpart: null },
      })),
    },
  };
}
