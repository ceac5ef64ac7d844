import type { Handlers } from "../../../generated/handlers.js";
import { forecastOf } from "../../domain/forecast/read.js";

export const get_cash_flow_forecast: Handlers["get_cash_flow_forecast"] = async (params, ctx) => forecastOf(ctx, params);
