import type { Handlers } from "../../../generated/handlers.js";
import { netWorthOf } from "../../domain/networth/worth.js";

export const get_net_worth: Handlers["get_net_worth"] = async (params, ctx) => netWorthOf(ctx, params);
