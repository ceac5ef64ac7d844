/**
 * prompts/list and prompts/get: the prompts of openrpc.json's x-prompts (generated/prompts.ts), for a
 * client's prompt menu. A prompt is listed only to a token that may use every tool it names (the same
 * rule as tools/list: the scope, and for a write the write switch); fetching one the token lacks a scope
 * for answers insufficient_scope, as calling its tool would (src/mcp/scope-refusal.ts). Argument values must match their pattern,
 * so nothing but a checked value (a month) is placed in a prompt's text.
 */
import { prompts, promptsByName } from "../../generated/prompts.js";
import { toolsByName } from "../../generated/registry.js";
import { toolAvailable } from "../auth/tool-access.js";
import type { Config } from "../config.js";
import { lacksScope } from "./scope-refusal.js";
import { INVALID_PARAMS, protocolError, type ProtocolError } from "../rpc/protocol-error.js";
import { promptResult, type GetPromptResult, type PromptSpec } from "./prompt-text.js";
import type { McpContext } from "./types.js";

export interface McpPrompt {
  name: string;
  title: string;
  description: string;
  arguments: { name: string; description: string; required: boolean }[];
}

const descriptors = new Map<PromptSpec, McpPrompt>(
  prompts.map((p) => [
    p,
    {
      name: p.name,
      title: p.title,
      description: p.description,
      arguments: p.arguments.map(({ name, description, required }) => ({ name, description, required })),
    },
  ]),
);

const usable = (p: PromptSpec, scopes: ReadonlySet<string>, config: Config) => p.tools.every((t) => toolAvailable(toolsByName.get(t)!, scopes, config));

/** The prompts this token may use right now, in spec order. */
export function listPrompts(scopes: ReadonlySet<string>, config: Config): McpPrompt[] {
  return prompts.filter((p) => usable(p, scopes, config)).map((p) => descriptors.get(p)!);
}

function invalid(field: string, expected: string, message: string, code = "invalid_params"): ProtocolError {
  return protocolError(INVALID_PARAMS, `prompts/get: ${message}`, { code, field, expected });
}

function unknownPrompt(name: string): ProtocolError {
  return invalid(
    "name",
    "the name of a prompt from prompts/list",
    `unknown prompt ${JSON.stringify(name.slice(0, 64))}. prompts/list shows the prompts this token may use.`,
    "unknown_prompt",
  );
}

/** The argument values of a prompts/get, each checked against its pattern; throws -32602 naming the argument. */
function argumentValues(prompt: PromptSpec, raw: unknown): Record<string, string> {
  if (raw !== undefined && raw !== null && (typeof raw !== "object" || Array.isArray(raw)))
    throw invalid("arguments", "an object of argument values (strings)", "params.arguments: expected an object of argument values.");
  const given = (raw ?? {}) as Record<string, unknown>;
  const known = new Set(prompt.arguments.map((a) => a.name));
  for (const key of Object.keys(given)) {
    if (!known.has(key)) {
      const names = [...known].join(", ") || "none";
      throw invalid(
        `arguments.${key.slice(0, 64)}`,
        `one of: ${names}`,
        `${prompt.name} takes no argument ${JSON.stringify(key.slice(0, 64))} (its arguments: ${names}).`,
      );
    }
  }
  const values: Record<string, string> = {};
  for (const a of prompt.arguments) {
    const v = given[a.name];
    if (v === undefined || v === null) {
      if (a.required) throw invalid(`arguments.${a.name}`, a.description, `${prompt.name} needs the argument ${a.name}: ${a.description}.`);
      continue;
    }
    if (typeof v !== "string" || !new RegExp(a.pattern).test(v))
      throw invalid(`arguments.${a.name}`, a.description, `arguments.${a.name}: expected ${a.description}, e.g. ${JSON.stringify(a.example)}.`);
    values[a.name] = v;
  }
  return values;
}

export function getPrompt(params: unknown, ctx: McpContext, config: Config): GetPromptResult {
  const p = params !== null && typeof params === "object" && !Array.isArray(params) ? (params as Record<string, unknown>) : {};
  if (typeof p.name !== "string") throw invalid("name", "the name of a prompt from prompts/list", "params.name: expected the name of a prompt, a string.");
  const prompt = promptsByName.get(p.name);
  if (!prompt) throw unknownPrompt(p.name);
  if (!usable(prompt, ctx.caller.scopes, config)) {
    const missing = prompt.tools.map((t) => toolsByName.get(t)!.scope).find((s) => !ctx.caller.scopes.has(s));
    // Writes switched off: the server does not offer the prompt at all.
    if (!missing) throw unknownPrompt(p.name);
    throw lacksScope(ctx.caller, missing, `the prompt ${prompt.name} (for its tools)`);
  }
  return promptResult(prompt, argumentValues(prompt, p.arguments));
}
