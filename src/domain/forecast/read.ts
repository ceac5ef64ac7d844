/**
 * get_cash_flow_forecast: the caller's forecast as of their today (inputs.ts reads, project.ts
 * computes). What-if events and cancelled payees only change the answer; nothing is written.
 */
import type { DomainContext } from "../../context.js";
import { invalidParams } from "../../errors.js";
import { plusDays } from "../../calendar/days.js";
import { todayOf } from "../../calendar/time-zones.js";
import { parseAmountParam } from "../shared/amounts.js";
import { getWalletRow } from "../wallets/store.js";
import { readForecastInputs } from "./inputs.js";
import { projectForecast, type WhatIf } from "./project.js";

export interface ForecastParams {
  days?: number;
  buffer?: string;
  include_regular_spending?: boolean;
  what_if?: { date?: string; in_days?: number; amount: string; direction: "expense" | "income"; wallet_id?: string; label?: string }[];
  cancel?: string[];
  wallet_ids?: string[];
}

export async function forecastOf(ctx: DomainContext, params: ForecastParams) {
  const today = todayOf(ctx);
  const days = params.days ?? 90;
  const userId = ctx.caller.userId;
  const inputs = await readForecastInputs(ctx.db, userId, today, plusDays(today, days));
  // The wallets the answer is about: the person's, each counted in the forecast (not archived, in net worth).
  const chosen = params.wallet_ids === undefined ? null : [...new Set(params.wallet_ids)];
  for (const [i, id] of (chosen ?? []).entries()) {
    if (inputs.wallets.some((w) => w.id === id)) continue;
    const wallet = await getWalletRow(ctx.db, userId, id, `wallet_ids.${i}`);
    throw invalidParams(
      `wallet_ids.${i}`,
      "a wallet counted in the forecast",
      `wallet_ids.${i}: the wallet ${JSON.stringify(wallet.name)} is ${wallet.archived ? "archived" : "left out of net worth"}, so the forecast does not count it; name a wallet list_wallets shows counted.`,
    );
  }
  const whatIf: WhatIf[] = [];
  for (const [i, w] of (params.what_if ?? []).entries()) {
    const field = `what_if.${i}`; // as the schema validator names the same fields
    const date = whatIfDate(w, today, field);
    // With one wallet named, a what-if without a wallet is that wallet's (its row and the total agree).
    const walletId = w.wallet_id ?? (chosen?.length === 1 ? chosen[0] : undefined);
    const wallet =
      walletId === undefined
        ? undefined
        : (inputs.wallets.find((x) => x.id === walletId) ?? (await getWalletRow(ctx.db, userId, walletId, `${field}.wallet_id`)));
    if (chosen && w.wallet_id !== undefined && !chosen.includes(w.wallet_id))
      throw invalidParams(
        `${field}.wallet_id`,
        "one of wallet_ids",
        `${field}.wallet_id: not one of wallet_ids, so it would change nothing this answer shows; leave it out or add it to wallet_ids.`,
      );
    const currency = wallet?.currency ?? inputs.home;
    const minor = parseAmountParam(w.amount, currency, `${field}.amount`);
    whatIf.push({
      date,
      amountMinor: w.direction === "expense" ? -minor : minor,
      currency,
      walletId: walletId ?? null,
      label: w.label ?? "what if",
    });
  }
  return projectForecast(inputs, {
    today,
    days,
    bufferMinor: params.buffer === undefined ? 0n : parseAmountParam(params.buffer, inputs.home, "buffer"),
    includeRegularSpending: params.include_regular_spending === true,
    whatIf,
    cancel: params.cancel ?? [],
    walletIds: chosen,
  });
}

/**
 * A what-if event's day: `date` (after today), or `in_days` after today, which an example can show and
 * still hold on any day (issue 52: the published examples never expire).
 */
function whatIfDate(w: { date?: string; in_days?: number }, today: string, field: string): string {
  if (w.date !== undefined && w.in_days !== undefined) {
    throw invalidParams(`${field}.in_days`, "date or in_days, not both", `${field}: give the event's date or in_days, not both.`);
  }
  if (w.in_days !== undefined) return plusDays(today, w.in_days);
  if (w.date === undefined)
    throw invalidParams(`${field}.date`, "a date or in_days", `${field}.date: a what-if event needs its date (or in_days after today).`);
  if (w.date <= today) throw invalidParams(`${field}.date`, "a day after today", `${field}.date: a what-if event is a day after today (${today}).`);
  return w.date;
}
