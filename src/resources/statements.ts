/**
 * A month's statement of one wallet, as a resource template (scope read:transactions):
 * `finance://wallets/{wallet_id}/statements/{month}`. It is list_transactions' answer (that wallet, the
 * month's first to last day, oldest first), read through dispatch, the one path of every tool call, and
 * written in the compact text every tool answer uses (src/mcp/model-text.ts): no second query, no second
 * format. Another user's wallet, like a wallet that does not exist, is not found.
 */
import { AppError } from "../errors.js";
import { limits } from "../../generated/limits.js";
import { daysInMonth } from "../calendar/days.js";
import { recentMonths } from "../calendar/months.js";
import { todayOf } from "../calendar/time-zones.js";
import { ANSWER_BUDGETS } from "../mcp/answer-budgets.js";
import { modelText } from "../mcp/model-text.js";
import { resourceNotFound } from "./errors.js";
import type { ResourceContext, ResourceProvider } from "./types.js";

const PREFIX = "finance://wallets/";
export const STATEMENT_TEMPLATE = "finance://wallets/{wallet_id}/statements/{month}";
const STATEMENT_URI = /^finance:\/\/wallets\/([^/?#]+)\/statements\/([^/?#]+)$/;
const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;
const MIME = "application/json";
/**
 * As many transactions as fit the 20,000 tokens any answer may cost at the 60 a listed transaction may
 * cost (src/mcp/answer-budgets.ts), less 1,000 for the rest: 316, read as pages of up to 200. A busier
 * month ends with the cursor to go on with.
 */
export const STATEMENT_MAX_ROWS = Math.floor((ANSWER_BUDGETS.anyAnswerTokens - 1000) / ANSWER_BUDGETS.listedTransactionTokens);

function monthRange(month: string): { date_from: string; date_to: string } {
  const m = MONTH.exec(month);
  const from = `${month}-01`;
  if (!m || from < limits.firstDate || from > limits.lastDate) {
    throw new AppError("invalid_params", `month: expected a month as YYYY-MM between ${limits.firstDate.slice(0, 7)} and ${limits.lastDate.slice(0, 7)}.`, {
      field: "month",
      expected: "a month YYYY-MM",
    });
  }
  return { date_from: from, date_to: `${month}-${String(daysInMonth(Number(m[1]), Number(m[2]) - 1)).padStart(2, "0")}` };
}

async function statement(ctx: ResourceContext, uri: string, walletId: string, month: string): Promise<Record<string, unknown>> {
  const query = { wallet_id: walletId, ...monthRange(month), sort: "date_asc" };
  const transactions: unknown[] = [];
  let cursor: string | undefined;
  let total = 0;
  try {
    do {
      // The cursor does not depend on the page size, so the last page is only as long as the room left.
      const limit = Math.min(limits.maxPageSize, STATEMENT_MAX_ROWS - transactions.length);
      const page = await ctx.dispatch(
        "list_transactions",
        { ...query, limit, ...(cursor ? { cursor } : {}) },
        { caller: ctx.caller, requestId: ctx.requestId },
      );
      transactions.push(...(page.transactions as unknown[]));
      total = page.total_count as number;
      cursor = (page.next_cursor as string | null | undefined) ?? undefined;
    } while (cursor && transactions.length < STATEMENT_MAX_ROWS);
  } catch (err) {
    // The wallet is not this user's (or does not exist): the same answer as any unknown uri.
    if (err instanceof AppError && err.errorName === "not_found") throw resourceNotFound(uri);
    throw err;
  }
  return {
    wallet_id: walletId,
    month,
    date_from: query.date_from,
    date_to: query.date_to,
    total_count: total,
    transactions,
    ...(cursor ? { next_cursor: cursor, more: "list_transactions with this wallet_id, date_from, date_to, sort date_asc and cursor next_cursor" } : {}),
  };
}

export const walletStatements: ResourceProvider = {
  name: "wallet statements",
  scope: "read:transactions",
  owns: (uri) => uri.startsWith(PREFIX),
  list: () => Promise.resolve([]),
  templates: () => [
    {
      uriTemplate: STATEMENT_TEMPLATE,
      name: "wallet-statement",
      title: "Wallet statement for a month",
      description: "One wallet's transactions in a month (YYYY-MM), oldest first; wallet ids from list_wallets.",
      mimeType: MIME,
    },
  ],
  async complete(ctx, _template, variable, prefix) {
    if (variable === "month") return recentMonths(todayOf(ctx), 24).filter((m) => m.startsWith(prefix));
    // Wallet ids come from list_wallets, so only a token that may list wallets gets them.
    if (variable !== "wallet_id" || !ctx.caller.scopes.has("read:wallets")) return [];
    const { wallets } = await ctx.dispatch("list_wallets", {}, { caller: ctx.caller, requestId: ctx.requestId });
    const typed = prefix.toLowerCase();
    return (wallets as { id: string; name: string }[]).filter((w) => w.id.startsWith(prefix) || w.name.toLowerCase().includes(typed)).map((w) => w.id);
  },
  async read(ctx, uri) {
    const m = STATEMENT_URI.exec(uri);
    if (!m) throw resourceNotFound(uri);
    return [{ uri, mimeType: MIME, text: modelText(await statement(ctx, uri, m[1]!, m[2]!)) }];
  },
};
