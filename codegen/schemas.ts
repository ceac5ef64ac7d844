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

/**
 * Output schemas exist for clients to validate structuredContent and learn its shape: types, required
 * members, enums, nullability. Prose, patterns, formats and closedness add nothing a client checks of the
 * server's own answers (the server validates every result against the full spec before sending it).
 */
const OUTPUT_ONLY_NOISE = new Set(["description", "pattern", "format"]);

function withoutDescriptions(value: Json): Json {
  if (Array.isArray(value)) return value.map(withoutDescriptions);
  if (value === null || typeof value !== "object") return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    if (OUTPUT_ONLY_NOISE.has(k) && typeof v === "string") continue;
    if (k === "additionalProperties" && v === false) continue;
    out[k] = k === "properties" ? Object.fromEntries(Object.entries(v as JsonObject).map(([pk, pv]) => [pk, withoutDescriptions(pv)])) : withoutDescriptions(v);
  }
  return out;
}

const REF_PREFIX = "#/components/schemas/";

function countRefs(spec: Spec, value: Json, counts: Map<string, number>): void {
  if (Array.isArray(value)) return value.forEach((v) => countRefs(spec, v, counts));
  if (value === null || typeof value !== "object") return;
  for (const [k, v] of Object.entries(value)) {
    if (k === "$ref" && typeof v === "string" && v.startsWith(REF_PREFIX)) {
      const name = v.slice(REF_PREFIX.length);
      counts.set(name, (counts.get(name) ?? 0) + 1);
      countRefs(spec, spec.schemas[name] ?? null, counts);
    } else countRefs(spec, v, counts);
  }
}

interface Compaction {
  /** Components used more than once in this schema: stated once under $defs and referenced. */
  defs: Set<string>;
  /** Delete answers: an entity is a snapshot of what went, not a contract to repeat in full. */
  shallowEntities: boolean;
}

const isEntity = (schema: JsonObject | undefined) => schema?.type === "object" && schema.title !== "Money";

function compact(spec: Spec, value: Json, how: Compaction, depth = 0): Json {
  if (depth > 64) throw new Error("schema nesting too deep: is a schema recursive?");
  if (Array.isArray(value)) return value.map((v) => compact(spec, v, how, depth + 1));
  if (value === null || typeof value !== "object") return value;
  if (typeof value.$ref === "string") {
    const name = value.$ref.slice(REF_PREFIX.length);
    const target = spec.schemas[name];
    if (!target) throw new Error(`unresolved $ref ${value.$ref}`);
    const { $ref: _ignored, ...rest } = value;
    const extra = compact(spec, rest, how, depth + 1) as JsonObject;
    if (how.shallowEntities && isEntity(target) && depth > 0) return { type: "object", ...extra };
    if (how.defs.has(name)) return { $ref: `#/$defs/${name}`, ...extra };
    const resolved = compact(spec, target, how, depth + 1) as JsonObject;
    return { ...resolved, ...extra };
  }
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) out[k] = compact(spec, v, how, depth + 1);
  return withoutTypeArray(terse(out));
}

/** A pattern that spells out a full date, capturing its year part. */
const DATE_PATTERN = /^\^(.+?)\[0-9\]\{2\}-\[0-9\]\{2\}-\[0-9\]\{2\}\$$/;

/**
 * The same constraints in fewer tokens: \d for [0-9] (identical in ECMA-262 regexes, with or without the
 * u flag); no minLength 1 next to the pattern \S (which already needs a character); next to format date,
 * only the year part of a full-date pattern; no empty required list.
 */
function terse(schema: JsonObject): JsonObject {
  const out = { ...schema };
  if (typeof out.pattern === "string") {
    if (out.pattern === "\\S" && out.minLength === 1) delete out.minLength;
    // format date already requires YYYY-MM-DD (a real calendar day): of a full-date pattern only what it
    // adds, the allowed years, needs saying.
    const year = out.format === "date" ? DATE_PATTERN.exec(out.pattern) : null;
    if (year) out.pattern = `^${year[1]}`;
    out.pattern = out.pattern.replaceAll("[0-9]", "\\d").replaceAll("0-9", "\\d");
  }
  if (Array.isArray(out.required) && out.required.length === 0) delete out.required;
  return out;
}

/** ["string", "null"] → anyOf: portable to clients that warn on type arrays; same meaning. */
function withoutTypeArray(schema: JsonObject): JsonObject {
  if (!Array.isArray(schema.type)) return schema;
  const { type, description, ...rest } = schema;
  const anyOf: Json[] = type.map((t) => (t === "null" ? { type: "null" } : { type: t, ...rest }));
  return description === undefined ? { anyOf } : { description, anyOf };
}

/**
 * One tool's schema for tools/list: every constraint of the spec, with components used more than once
 * (Money, dates, ids, amounts) stated once under $defs (JSON Schema 2020-12) instead of inlined each time.
 */
function toolSchema(spec: Spec, root: JsonObject, shallowEntities: boolean): JsonObject {
  const counts = new Map<string, number>();
  countRefs(spec, shallowEntities ? {} : root, counts);
  const defs = new Set([...counts].filter(([name, n]) => n > 1 && JSON.stringify(spec.schemas[name]).length > 60).map(([name]) => name));
  const how: Compaction = { defs, shallowEntities };
  const schema = compact(spec, root, how) as JsonObject;
  if (defs.size) {
    const $defs: JsonObject = {};
    for (const name of [...defs].sort()) $defs[name] = compact(spec, spec.schemas[name]!, how, 1);
    schema.$defs = $defs;
  }
  return schema;
}

// tools/list schemas carry no $schema: MCP 2025-11-25 makes JSON Schema 2020-12 the default dialect, and
// every keyword the spec uses means the same in draft-07 and 2020-12 (ajv/dist/2020 compiles them all).
export function mcpInputSchema(spec: Spec, m: MethodSpec): JsonObject {
  const { title: _t, ...schema } = toolSchema(spec, paramsSchema(m), false);
  return withoutTitles(schema) as JsonObject;
}

export function mcpOutputSchema(spec: Spec, m: MethodSpec): JsonObject {
  const root = spec.schemas[String(m.result.schema.$ref ?? "").slice(REF_PREFIX.length)] ?? m.result.schema;
  return withoutDescriptions(withoutTitles(toolSchema(spec, root, m.name.startsWith("delete_")))) as JsonObject;
}
