/**
 * Turns the spec's schemas into the two forms the generators need: one draft-07 root document with
 * every component and every method's params/result under `definitions` (so shared types stay shared in
 * the TypeScript and ajv output), and fully inlined schemas for MCP's inputSchema/outputSchema, which
 * clients read without resolving references.
 */
import type { Json, JsonObject, MethodSpec, Spec } from "./load.js";

export function pascal(name: string): string {
  return name
    .split(/[_\-\s]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join("");
}

export const paramsDefName = (m: MethodSpec) => `${pascal(m.name)}Params`;
export const resultDefName = (m: MethodSpec) => `${pascal(m.name)}Result`;

function rewriteRefs(value: Json): Json {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value === null || typeof value !== "object") return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === "$ref" && typeof v === "string" && v.startsWith("#/components/schemas/")) {
      out[k] = `#/definitions/${v.slice("#/components/schemas/".length)}`;
    } else {
      out[k] = rewriteRefs(v);
    }
  }
  return out;
}

/** The params of a by-name method as one closed object schema. */
export function paramsSchema(m: MethodSpec): JsonObject {
  const properties: JsonObject = {};
  for (const p of m.params) {
    const schema = { ...p.schema };
    if (p.description && !("$ref" in schema) && !schema.description) schema.description = p.description;
    properties[p.name] = schema;
  }
  return {
    title: paramsDefName(m),
    type: "object",
    properties,
    required: m.params.filter((p) => p.required).map((p) => p.name),
    additionalProperties: false,
  };
}

export function resultSchema(m: MethodSpec): JsonObject {
  const schema = m.result.schema;
  if (typeof schema.$ref === "string") {
    return { title: resultDefName(m), allOf: [schema] };
  }
  return { ...schema, title: resultDefName(m) };
}

export function definitionsDocument(spec: Spec): JsonObject {
  const definitions: JsonObject = {};
  for (const [name, schema] of Object.entries(spec.schemas)) definitions[name] = rewriteRefs(schema);
  for (const m of spec.methods) {
    definitions[paramsDefName(m)] = rewriteRefs(paramsSchema(m));
    definitions[resultDefName(m)] = rewriteRefs(resultSchema(m));
  }
  return { $schema: "http://json-schema.org/draft-07/schema#", $id: "finance-mcp", definitions };
}

/**
 * Inlines every #/components/schemas ref. The spec has no recursive schemas (loadSpec's walk would not end
 * otherwise). With componentProse false a component's own description is left out (a description next to
 * the $ref, i.e. the param's or property's own, is kept): the conventions it states (id, date and amount
 * formats) are said once in the server instructions (info.x-instructions), not in every tool.
 */
export function inline(spec: Spec, value: Json, depth = 0, componentProse = true): Json {
  if (depth > 64) throw new Error("schema nesting too deep: is a schema recursive?");
  if (Array.isArray(value)) return value.map((v) => inline(spec, v, depth + 1, componentProse));
  if (value === null || typeof value !== "object") return value;
  if (typeof value.$ref === "string") {
    const name = value.$ref.slice("#/components/schemas/".length);
    const target = spec.schemas[name];
    if (!target) throw new Error(`unresolved $ref ${value.$ref}`);
    const { $ref: _ignored, ...rest } = value;
    const { description: _prose, ...body } = target;
    const resolved = inline(spec, componentProse ? target : body, depth + 1, componentProse) as JsonObject;
    return Object.keys(rest).length ? { ...resolved, ...(inline(spec, rest, depth + 1, componentProse) as JsonObject) } : resolved;
  }
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) out[k] = inline(spec, v, depth + 1, componentProse);
  return out;
}

/** A schema without prose: what validating structuredContent needs, and nothing a model must read. */
function withoutProse(value: Json): Json {
  if (Array.isArray(value)) return value.map(withoutProse);
  if (value === null || typeof value !== "object") return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === "description" && typeof v === "string") continue;
    if (k === "examples" && Array.isArray(v)) continue;
    out[k] = k === "properties" ? Object.fromEntries(Object.entries(v as JsonObject).map(([pk, pv]) => [pk, withoutProse(pv)])) : withoutProse(v);
  }
  return out;
}

function withoutTitles(value: Json): Json {
  if (Array.isArray(value)) return value.map(withoutTitles);
  if (value === null || typeof value !== "object") return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === "title" && typeof v === "string") continue;
    out[k] = k === "properties" ? Object.fromEntries(Object.entries(v as JsonObject).map(([pk, pv]) => [pk, withoutTitles(pv)])) : withoutTitles(v);
  }
  return out;
}

// tools/list carries no $schema: MCP 2025-11-25 makes JSON Schema 2020-12 the default dialect, and every
// keyword these schemas use means the same in draft-07 (the OpenRPC document and the ajv validators) and
// 2020-12 (test/protocol/tools.test.ts compiles them with ajv's 2020-12 build).

/** The inputSchema of tools/list: every constraint, and the tool's own words for each argument. */
export function mcpInputSchema(spec: Spec, m: MethodSpec): JsonObject {
  const { title: _t, ...schema } = inline(spec, paramsSchema(m), 0, false) as JsonObject;
  return withoutTitles(schema) as JsonObject;
}

/** The outputSchema of tools/list: complete for validation, without prose (openrpc.json keeps it). */
export function mcpOutputSchema(spec: Spec, m: MethodSpec): JsonObject {
  const schema = inline(spec, m.result.schema) as JsonObject;
  return withoutProse(withoutTitles(schema)) as JsonObject;
}
