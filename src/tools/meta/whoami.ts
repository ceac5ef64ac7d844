import type { Handlers } from "../../../generated/handlers.js";
import type { Scope } from "../../../generated/types.js";
import { todayInTimeZone } from "../../calendar/time-zones.js";

export const whoami: Handlers["whoami"] = async (_params, ctx) => ({
  user_id: ctx.caller.userId,
  token_id: ctx.caller.tokenId,
  token_name: ctx.caller.tokenName,
  scopes: [...ctx.caller.scopes].sort() as Scope[],
  expires_at: ctx.caller.expiresAt,
  timezone: ctx.caller.timezone,
  today: todayInTimeZone(ctx.caller.timezone, ctx.now()),
  default_currency: ctx.caller.defaultCurrency,
});
