/**
 * generated/registry.ts (per-tool metadata read by dispatch, tools/list and list_capabilities),
 * generated/handlers.ts (the Handlers interface), generated/tool-modules.ts (the static import map that
 * must satisfy Handlers, so a spec method without a handler fails to compile) and generated/errors.ts.
 */
import type { MethodSpec, Spec } from "./load.js";
import { mcpInputSchema, mcpOutputSchema, paramsDefName, resultDefName } from "./schemas.js";
import { positionalOrder } from "./emit-published.js";
import { validatorName } from "./emit-validators.js";

export function toolArea(m: MethodSpec): string {
  const area = m.scope.split(":")[1];
  if (!area) throw new Error(`method ${m.name}: scope ${m.scope} has no area`);
  return area === "whoami" ? "meta" : area;
}

export function toolFile(m: MethodSpec): string {
  return `src/tools/${toolArea(m)}/${m.name}.ts`;
}

function title(m: MethodSpec): string {
  const words = m.name.split("_");
  return [words[0]![0]!.toUpperCase() + words[0]!.slice(1), ...words.slice(1)].join(" ");
}

/**
 * All four MCP hints, always stated (hosts' app reviews reject a tool that leaves one to its default, and
 * the defaults are the worst case: destructive, open world). Derived from x-kind and the verb, so they
 * cannot disagree with what the tool does: a read changes nothing; a write is idempotent because its
 * required idempotency_key makes a repeated call a replay; a delete or an update removes or overwrites
 * what the user had (docs/decisions.md, "Room to grow"), and so does a write the spec marks x-destructive
 * because some of its modes do (undo_change, save_rule applied to the past, set_exchange_rate replacing a
 * day's rate: docs/decisions.md#hints-for-directories); nothing reaches outside the user's own ledger.
 */
export function annotations(m: MethodSpec) {
  const read = m.kind === "read";
  const overwrites = /^(delete|update)_/.test(m.name) || m.destructive;
  return { readOnlyHint: read, destructiveHint: !read && overwrites, idempotentHint: true, openWorldHint: false };
}

const json = (v: unknown) => JSON.stringify(v, null, 2);

/**
 * A tool's MCP Apps link (io.modelcontextprotocol/ui, 2026-01-26): `_meta.ui.resourceUri` only; the
 * deprecated flat "ui/resourceUri" key the ext-apps server helper adds as well would double what every
 * turn pays for it (docs/decisions.md, "MCP Apps").
 */
function appMeta(spec: Spec, m: MethodSpec) {
  const uri = spec.apps[m.name];
  return uri ? { _meta: { ui: { resourceUri: uri } } } : {};
}

export function registryEntries(spec: Spec) {
  return spec.methods.map((m) => ({
    name: m.name,
    title: title(m),
    description: m.description,
    summary: m.summary ?? m.description.split(/(?<=\.)\s/)[0]!,
    scope: m.scope,
    kind: m.kind,
    paramNames: m.params.map((p) => p.name),
    positionalNames: positionalOrder(m.params, (p) => p.required === true).map((p) => p.name),
    errors: m.errors,
    annotations: annotations(m),
    inputSchema: mcpInputSchema(spec, m),
    outputSchema: mcpOutputSchema(spec, m),
    ...appMeta(spec, m),
  }));
}

export function emitRegistry(spec: Spec, banner: string): string {
  const entries = registryEntries(spec);
  const lines = [
    banner,
    `import * as validators from "./validators.js";`,
    `import type { ValidateFunction } from "ajv";`,
    ``,
    `export interface ToolDefinition {`,
    `  readonly name: ToolName;`,
    `  readonly title: string;`,
    `  readonly description: string;`,
    `  /** The spec's one-line summary: what list_capabilities says of the tool. */`,
    `  readonly summary: string;`,
    `  readonly scope: string;`,
    `  readonly kind: "read" | "write";`,
    `  /** Param names in spec order. */`,
    `  readonly paramNames: readonly string[];`,
    `  /** How positional JSON-RPC params map to names: the required params first, as the published document lists them. */`,
    `  readonly positionalNames: readonly string[];`,
    `  readonly errors: readonly string[];`,
    `  readonly annotations: Readonly<Record<string, boolean>>;`,
    `  readonly inputSchema: Readonly<Record<string, unknown>>;`,
    `  readonly outputSchema: Readonly<Record<string, unknown>>;`,
    `  /** The MCP App drawing the result (openrpc.json x-apps), as tools/list's _meta. */`,
    `  readonly _meta?: { readonly ui: { readonly resourceUri: string } };`,
    `  readonly validateParams: ValidateFunction;`,
    `  readonly validateResult: ValidateFunction;`,
    `}`,
    ``,
    `export type ToolName = ${spec.methods.map((m) => json(m.name)).join(" | ")};`,
    ``,
    `/** Every tool, in spec order (the order of tools/list). */`,
    `export const tools: readonly ToolDefinition[] = [`,
    ...entries.map((e) => {
      const body = json(e).slice(0, -2); // drop the closing "\n}"
      return `${body},\n  "validateParams": validators.${validatorName(e.name, "params")},\n  "validateResult": validators.${validatorName(e.name, "result")}\n},`;
    }),
    `];`,
    ``,
    `export const toolsByName: ReadonlyMap<string, ToolDefinition> = new Map(tools.map((t) => [t.name, t]));`,
    ``,
    `/** The MCP server instructions (initialize, server/discover), from info["x-instructions"]. */`,
    `export const instructions = ${json(spec.instructions)};`,
    ``,
    `/** Every scope a token may hold, in a stable order. */`,
    `export const scopes = ${json([...new Set(spec.methods.map((m) => m.scope))].sort())} as const;`,
    ``,
  ];
  return lines.join("\n");
}

export function emitHandlers(spec: Spec, banner: string): string {
  const lines = [
    banner,
    `import type * as T from "./types.js";`,
    `import type { ToolContext } from "../src/context.js";`,
    `import type { WriteContext, WriteOutcome } from "../src/writes/types.js";`,
    ``,
    `/**`,
    ` * One function per spec method. Reads return their result; writes return the resource and the change`,
    ` * to audit, and the write pipeline adds status, audit_id and the stored response around them.`,
    ` */`,
    `export interface Handlers {`,
    ...spec.methods.map((m) =>
      m.kind === "read"
        ? `  ${m.name}(params: T.${paramsDefName(m)}, ctx: ToolContext): Promise<T.${resultDefName(m)}>;`
        : `  ${m.name}(params: T.${paramsDefName(m)}, ctx: WriteContext): Promise<WriteOutcome<T.${resultDefName(m)}>>;`,
    ),
    `}`,
    ``,
    ...spec.methods.map((m) => `export type ${paramsDefName(m)} = T.${paramsDefName(m)};\nexport type ${resultDefName(m)} = T.${resultDefName(m)};`),
    ``,
  ];
  return lines.join("\n");
}

export function emitToolModules(spec: Spec, banner: string): string {
  return [
    banner,
    `import type { Handlers } from "./handlers.js";`,
    ...spec.methods.map((m) => `import { ${m.name} } from "../${toolFile(m).replace(/\.ts$/, ".js")}";`),
    ``,
    `/** The hand-written handler of every spec method; \`satisfies\` makes a missing or extra one a compile error. */`,
    `export const handlers = {`,
    ...spec.methods.map((m) => `  ${m.name},`),
    `} satisfies Handlers;`,
    ``,
  ].join("\n");
}

/** Each error as the code reads it: the spec's own members, with `x-http-status` as `httpStatus` (default 200). */
function errorTableOf(spec: Spec): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(spec.errors as Record<string, Record<string, unknown>>).map(([name, e]) => {
      const { "x-http-status": status, ...rest } = e;
      return [name, { ...rest, httpStatus: typeof status === "number" ? status : 200 }];
    }),
  );
}

export function emitErrors(spec: Spec, banner: string): string {
  return [
    banner,
    `/**`,
    ` * The server's error table, from components/errors: data.code → JSON-RPC code, message, retryability`,
    ` * and the HTTP status of a direct call (x-http-status; 200 where the spec gives none).`,
    ` */`,
    `export const errorTable = ${json(errorTableOf(spec))} as const;`,
    ``,
    `export type ErrorName = keyof typeof errorTable;`,
    ``,
  ].join("\n");
}

export function stubSource(m: MethodSpec): string {
  const depth = toolFile(m).split("/").length - 1;
  const up = "../".repeat(depth);
  return [
    `import type { Handlers } from "${up}generated/handlers.js";`,
    `import { notImplemented } from "${up.slice(3)}errors.js";`,
    ``,
    `// Created by codegen because openrpc.json declares ${m.name} and no handler existed. Replace the body.`,
    `export const ${m.name}: Handlers["${m.name}"] = async () => {`,
    `  throw notImplemented("${m.name}");`,
    `};`,
    ``,
  ].join("\n");
}
