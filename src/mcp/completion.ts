/**
 * completion/complete: what a client offers while a person fills in a resource template's variable or a
 * prompt's argument. A statement's wallet_id completes to the ids of the wallets whose id starts with, or
 * whose name contains, what was typed (only for a token that may list wallets), and a month (the
 * template's or monthly_review's) to the last 24 months, newest first. Anything else, and anything the
 * token may not see, completes to nothing rather than an error.
 */
import { prompts } from "../../generated/prompts.js";
import { recentMonths } from "../calendar/months.js";
import { todayInTimeZone } from "../calendar/time-zones.js";
import type { Config } from "../config.js";
import { INVALID_PARAMS, protocolError } from "../rpc/protocol-error.js";
import { listPrompts } from "./prompts.js";
import { resourceContext, type ResourceDeps } from "./resources.js";
import type { McpContext } from "./types.js";

/** At most this many values in one answer (MCP's limit). */
const MAX_VALUES = 100;

const record = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

function malformed(field: string, expected: string) {
  return protocolError(INVALID_PARAMS, `completion/complete: params.${field}: expected ${expected}.`, { field, expected });
}

async function promptValues(name: string, argument: string, prefix: string, ctx: McpContext, config: Config, now: Date): Promise<string[]> {
  const usable = listPrompts(ctx.caller.scopes, config).some((p) => p.name === name);
  const arg = prompts.find((p) => p.name === name)?.arguments.find((a) => a.name === argument);
  if (!usable || !arg || arg.name !== "month") return [];
  return recentMonths(todayInTimeZone(ctx.caller.timezone, now), 24).filter((m) => m.startsWith(prefix));
}

export async function complete(deps: ResourceDeps, params: unknown, ctx: McpContext): Promise<Record<string, unknown>> {
  const p = record(params) ?? {};
  const ref = record(p.ref);
  const argument = record(p.argument);
  if (!ref || (ref.type !== "ref/resource" && ref.type !== "ref/prompt"))
    throw malformed("ref", 'an object {type: "ref/resource", uri} or {type: "ref/prompt", name}');
  if (!argument || typeof argument.name !== "string" || typeof argument.value !== "string") throw malformed("argument", "an object {name, value} of strings");
  const prefix = argument.value.slice(0, 200);
  let values: string[];
  if (ref.type === "ref/resource") {
    if (typeof ref.uri !== "string") throw malformed("ref.uri", "the uriTemplate of a resource template");
    values = await deps.resources.complete(resourceContext(deps, params, ctx), ref.uri, argument.name, prefix);
  } else {
    if (typeof ref.name !== "string") throw malformed("ref.name", "the name of a prompt");
    values = await promptValues(ref.name, argument.name, prefix, ctx, deps.config, deps.now());
  }
  return { completion: { values: values.slice(0, MAX_VALUES), total: values.length, hasMore: values.length > MAX_VALUES } };
}
