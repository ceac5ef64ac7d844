import type { Handlers } from "../../../generated/handlers.js";
import { netWorth, seriesDays } from "../../domain/networth/worth.js";
import { todayInTimeZone } from "../../calendar/time-zones.js";

export const get_net_worth: Handlers["get_net_worth"] = async (params, ctx) => {
  const to = params.to ?? todayInTimeZone(ctx.caller.timezone, ctx.now());
  const days = params.from === undefined ? [to] : seriesDays(params.from, to, params.step ?? "month");
  return netWorth(ctx.db, ctx.caller.userId, days);
};
