/** whoami: who the token acts for, what it may do, and the caller's today (so no other call is needed to learn it). */
import type { Scope, WhoamiResult } from "../../../generated/types.js";
import type { ToolContext } from "../../context.js";
import { todayOf } from "../../calendar/time-zones.js";

export function whoAmI(ctx: ToolContext, _p: object): WhoamiResult {
  return {
    user_id: ctx.caller.userId,
    token_id: ctx.caller.tokenId,
    token_name: ctx.caller.tokenName,
    scopes: [...ctx.caller.scopes].sort() as Scope[],
    expires_at: ctx.caller.expiresAt,
    timezone: ctx.caller.timezone,
    today: todayOf(ctx),
    default_currency: ctx.caller.defaultCurrency,
    // Where the help articles send the person (/account): the configured origin, else the one this request
    // reached (a direct call from inside the process has neither: the loopback default).
    account_url: `${ctx.config.publicUrl || ctx.origin || "http://127.0.0.1"}/account`,
  };
}
