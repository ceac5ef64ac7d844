/**
 * What prompts/get answers for one prompt of openrpc.json's `x-prompts` (generated/prompts.ts): one user
 * message, the prompt's lines with each `{{argument}}` replaced by its value. Codegen measures this very
 * result for its token budget (codegen/budgets.ts), so what is measured is what a client receives.
 * Argument values are checked against their pattern before they are placed (src/mcp/prompts.ts), so no
 * free text of the caller's reaches the prompt.
 */

export interface PromptArgumentSpec {
  readonly name: string;
  readonly description: string;
  readonly required: boolean;
  /** The value's form, checked before it is placed in the text. */
  readonly pattern: string;
  /** A valid value, the one the token budget is measured with. */
  readonly example: string;
}

export interface PromptSpec {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly arguments: readonly PromptArgumentSpec[];
  /** The tools the prompt has the model call: it is listed only to a token that may use every one. */
  readonly tools: readonly string[];
  readonly text: readonly string[];
}

export interface GetPromptResult {
  description: string;
  messages: { role: "user"; content: { type: "text"; text: string } }[];
}

/** The prompts/get result of a prompt with these (already checked) argument values. */
export function promptResult(prompt: PromptSpec, values: Readonly<Record<string, string>>): GetPromptResult {
  const text = prompt.text.join("\n").replace(/\{\{([a-z_]+)\}\}/g, (_m, name: string) => values[name] ?? "");
  return { description: prompt.description, messages: [{ role: "user", content: { type: "text", text } }] };
}

/** The placeholders a prompt's text uses. */
export const placeholders = (prompt: Pick<PromptSpec, "text">): Set<string> =>
  new Set([...prompt.text.join("\n").matchAll(/\{\{([a-z_]+)\}\}/g)].map((m) => m[1]!));
