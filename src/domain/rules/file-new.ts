/**
 * create_transaction with the person's rules: a transaction given without a category is filed by the
 * first matching rule (docs/import.md, "Rules"). The rules area calls the ledger's create, never the other
 * way round (the ledger does not depend on the rules, which read transactions to apply to the past).
 */
import type { CreateTransactionParams } from "../../../generated/types.js";
import type { DomainContext } from "../../context.js";
import { createTransaction } from "../transactions/write.js";
import { ruleFor } from "./apply.js";

export function createFiledTransaction(ctx: DomainContext, params: CreateTransactionParams) {
  return createTransaction(ctx, params, (draft) => ruleFor(ctx.db, ctx.caller.userId, draft));
}
