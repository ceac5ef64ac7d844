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

/** Inlines every #/components/schemas ref. The spec has no recursive schemas (loadSpec's walk would not end otherwise). */
export function inline(spec: Spec, value: Json, depth = 0): Json {
  if (depth > 64) throw new Error("schema nesting too deep: is a schema recursive?");
  if (Array.isArray(value)) return value.map((v) => inline(spec, v, depth + 1));
  if (value === null || typeof value !== "object") return value;
  if (typeof value.$ref === "string") {
    const name = value.$ref.slice("#/components/schemas/".length);
    const target = spec.schemas[name];
    if (!target) throw new Error(`unresolved $ref ${value.$ref}`);
    const { $ref: _ignored, ...rest } = value;
    const resolved = inline(spec, target, depth + 1) as JsonObject;
    return Object.keys(rest).length ? { ...resolved, ...(inline(spec, rest, depth + 1) as JsonObject) } : resolved;
  }
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) out[k] = inline(spec, v, depth + 1);
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

const DRAFT_07 = "http://json-schema.org/draft-07/schema#";

export function mcpInputSchema(spec: Spec, m: MethodSpec): JsonObject {
  const { title: _t, ...schema } = inline(spec, paramsSchema(m)) as JsonObject;
  return { $schema: DRAFT_07, ...(withoutTitles(schema) as JsonObject) };
}

export function mcpOutputSchema(spec: Spec, m: MethodSpec): JsonObject {
  const schema = inline(spec, m.result.schema) as JsonObject;
  return { $schema: DRAFT_07, ...(withoutTitles(schema) as JsonObject) };
}
