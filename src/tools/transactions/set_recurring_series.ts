import type { Handlers } from "../../../generated/handlers.js";
import { setRecurringSeries } from "../../domain/recurring/decide.js";

export const set_recurring_series: Handlers["set_recurring_series"] = async (params, ctx) => {
  const { id, before, after } = await setRecurringSeries(ctx, params);
  return {
    result: { series: after, warnings: [] },
    change: { action: before ? "update" : "create", resourceType: "recurring_series", resourceId: id, before, after },
  };
};
