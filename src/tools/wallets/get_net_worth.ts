import type { Handlers } from "../../../generated/handlers.js";
import { netWorth, seriesDays } from "../../domain/networth/worth.js";
import { todayFor } from "../../domain/shared/common.js";

export const get_net_worth: Handlers["get_net_worth"] = async (params, ctx) => {
  const to = params.to ?? todayFor(ctx);
  const days = params.from === undefined ? [to] : seriesDays(params.from, to, params.step ?? "month");
  return netWorth(ctx.db, ctx.caller.userId, days);
};
