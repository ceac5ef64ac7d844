import type { Handlers } from "../../../generated/handlers.js";
import { setExchangeRate } from "../../domain/networth/rates.js";

export const set_exchange_rate: Handlers["set_exchange_rate"] = async (params, ctx) => {
  const { before, after } = await setExchangeRate(ctx, params);
  const { id, ...rate } = after;
  const old = before && { base: before.base, quote: before.quote, rate: before.rate, date: before.date };
  return {
    result: { exchange_rate: rate, warnings: [] },
    change: { action: before ? "update" : "create", resourceType: "exchange_rate", resourceId: id, before: old, after: rate },
  };
};
