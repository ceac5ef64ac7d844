/**
 * Turns the spec's schemas into the two forms the generators need: one draft-07 root document with
 * every component and every method's params/result under `definitions` (so shared types stay shared in
 * the TypeScript and ajv output), and fully inlined schemas for MCP's inputSchema/outputSchema, which
 * clients read without resolving references.
 */
import type { Json, JsonObject, MethodSpec, Spec } from "./load.js";
import { tokens } from "./budgets.js";

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

/**
 * Which objects a tool's output schema names by their type only ({type: "object"}), not by their shape:
 * - "entities" in a delete answer: an entity (any object but Money) is a snapshot of what went, not a
 *   contract to repeat in full;
 * - "objects" inside a SHALLOW_INSIDE component, Money too.
 */
type Shallow = "none" | "entities" | "objects";

const byTypeOnly = (shallow: Shallow, schema: JsonObject | undefined) =>
  schema?.type === "object" && (shallow === "objects" || (shallow === "entities" && schema.title !== "Money"));

/**
 * Components whose objects tools/list names by their type only: a change's value before or after
 * (ChangeValue) may be any field of the record, so its object branches (an amount, a split's parts, a bill's
 * schedule) would repeat whole components in every update and delete tool. Their shape is the record's own,
 * stated where the tool answers the record; the server validates every answer against the full component.
 */
const SHALLOW_INSIDE = new Set(["ChangeValue"]);

const inside = (name: string, shallow: Shallow): Shallow => (SHALLOW_INSIDE.has(name) ? "objects" : shallow);

/** How often each component is referenced, leaving out those named by their type only (and what they reference). */
function countRefs(spec: Spec, value: Json, counts: Map<string, number>, shallow: Shallow): void {
  if (Array.isArray(value)) return value.forEach((v) => countRefs(spec, v, counts, shallow));
  if (value === null || typeof value !== "object") return;
  for (const [k, v] of Object.entries(value)) {
    if (k === "$ref" && typeof v === "string" && v.startsWith(REF_PREFIX)) {
      const name = v.slice(REF_PREFIX.length);
      if (byTypeOnly(shallow, spec.schemas[name])) continue;
      counts.set(name, (counts.get(name) ?? 0) + 1);
      countRefs(spec, spec.schemas[name] ?? null, counts, inside(name, shallow));
    } else countRefs(spec, v, counts, shallow);
  }
}

interface Compaction {
  /** Components used more than once in this schema: stated once under $defs and referenced. */
  defs: Set<string>;
  shallow: Shallow;
}

/** anyOf branches that read the same once compacted (two objects named by their type only) are stated once. */
function distinctBranches(schema: JsonObject): JsonObject {
  if (!Array.isArray(schema.anyOf)) return schema;
  const seen = new Set<string>();
  const anyOf = schema.anyOf.filter((b) => !seen.has(JSON.stringify(b)) && seen.add(JSON.stringify(b)));
  return { ...schema, anyOf };
}

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
    if (depth > 0 && byTypeOnly(how.shallow, target)) return { type: "object", ...extra };
    if (how.defs.has(name)) return { $ref: `#/$defs/${name}`, ...extra };
    const resolved = compact(spec, target, { ...how, shallow: inside(name, how.shallow) }, depth + 1) as JsonObject;
    return { ...resolved, ...extra };
  }
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) out[k] = compact(spec, v, how, depth + 1);
  return distinctBranches(withoutTypeArray(terse(out)));
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
  const shallow: Shallow = shallowEntities ? "entities" : "none";
  const counts = new Map<string, number>();
  countRefs(spec, root, counts, shallow);
  const defs = new Set([...counts].filter(([name, n]) => n > 1 && JSON.stringify(spec.schemas[name]).length > 60).map(([name]) => name));
  const how: Compaction = { defs, shallow };
  const schema = compact(spec, root, how) as JsonObject;
  if (defs.size) {
    const $defs: JsonObject = {};
    for (const name of [...defs].sort()) $defs[name] = compact(spec, spec.schemas[name]!, { ...how, shallow: inside(name, shallow) }, 1);
    schema.$defs = $defs;
  }
  return schema;
}

/**
 * Shapes the server instructions (info.x-instructions) describe once for every tool ("amounts in are
 * decimal strings such as \"12.50\""): in tools/list they are plain strings, the pattern left to the server.
 */
const SHAPES_IN_INSTRUCTIONS = ["Amount", "SignedAmount"];

// tools/list schemas carry no $schema: MCP 2025-11-25 makes JSON Schema 2020-12 the default dialect, and
// every keyword the spec uses means the same in draft-07 and 2020-12 (ajv/dist/2020 compiles them all).
export function mcpInputSchema(spec: Spec, m: MethodSpec): JsonObject {
  const plain = Object.fromEntries(SHAPES_IN_INSTRUCTIONS.map((name) => [name, { type: "string" }]));
  const modelSpec: Spec = { ...spec, schemas: { ...spec.schemas, ...plain } };
  const { title: _t, ...schema } = toolSchema(modelSpec, withReadFiltersNamed(spec, m, withSharedObjectsNamed(spec, m, paramsSchema(m))), false);
  return withoutFormatsTheNameStates(withDefsWhereCheaper(forModel(withoutTitles(schema)) as JsonObject));
}

/** A date param's name (date, start_date, date_from): the instructions say dates are YYYY-MM-DD days. */
const DATE_NAME = /(^|_)date(_|$)/;

/**
 * Formats the instructions state for a name, once for every tool: idempotency_key is "a new UUIDv4 for each
 * distinct change", and a param named as a date is a YYYY-MM-DD day. Like amounts (SHAPES_IN_INSTRUCTIONS),
 * such a param is a plain string in tools/list; the server checks the format and names the field.
 */
function withoutFormatsTheNameStates(schema: JsonObject): JsonObject {
  const plain = (name: string, value: Json): Json => {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
    const format = name === "idempotency_key" ? "uuid" : DATE_NAME.test(name) ? "date" : undefined;
    if (!format) return value;
    const drop = (v: Json): Json => {
      if (v === null || typeof v !== "object" || Array.isArray(v) || v.format !== format) return v;
      const { format: _f, ...rest } = v;
      return rest;
    };
    const out = drop(value) as JsonObject;
    for (const k of ["oneOf", "anyOf"]) if (Array.isArray(out[k])) out[k] = (out[k] as Json[]).map(drop);
    return out;
  };
  const walk = (value: Json): Json => {
    if (Array.isArray(value)) return value.map(walk);
    if (value === null || typeof value !== "object") return value;
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value))
      out[k] = k === "properties" ? Object.fromEntries(Object.entries(v as JsonObject).map(([pk, pv]) => [pk, walk(plain(pk, pv))])) : walk(v);
    return out;
  };
  return walk(schema) as JsonObject;
}

/**
 * An update tool's nested object, or list of objects, that is the same component as its create tool's param
 * of the same name (a bill's schedule, a transaction's parts) is named, not repeated: both tools have one scope, so a model that sees one sees the
 * other. The server validates it against the full component.
 */
function withSharedObjectsNamed(spec: Spec, m: MethodSpec, params: JsonObject): JsonObject {
  const create = m.name.startsWith("update_") ? spec.methods.find((c) => c.name === `create_${m.name.slice("update_".length)}`) : undefined;
  if (!create || create.scope !== m.scope) return params;
  const properties = { ...(params.properties as JsonObject) };
  for (const [name, schema] of Object.entries(properties)) {
    const ref = (schema as JsonObject).$ref;
    const target = typeof ref === "string" ? spec.schemas[ref.slice(REF_PREFIX.length)] : undefined;
    const same = create.params.some((p) => p.name === name && p.schema.$ref === ref);
    // A list of such objects (a transaction's split parts) likewise.
    const listOfObjects = target?.type === "array" && typeof (target.items as JsonObject | undefined)?.$ref === "string";
    if ((target?.type === "object" || listOfObjects) && same) properties[name] = { type: target!.type as string, description: `As in ${create.name}.` };
    // A param described as in the create tool: the model reads it there ("Fields as in create_budget").
    const described = (schema as JsonObject).description;
    const twin = create.params.find((p) => p.name === name);
    if (described !== undefined && twin && (twin.schema.description ?? twin.description) === described && !("$ref" in twin.schema)) {
      const { description: _d, ...rest } = properties[name] as JsonObject;
      properties[name] = rest;
    }
  }
  return { ...params, properties };
}

/**
 * A write tool's object param whose every property is a param of a read tool of the same area, with the
 * same schema (update_transactions' filter: list_transactions' filters), is named ("Filters of
 * list_transactions.") instead of repeated: the model reads the read tool's params, which it used to count
 * the rows. Checked property by property here, so the name is never a claim the spec does not back.
 */
function withReadFiltersNamed(spec: Spec, m: MethodSpec, params: JsonObject): JsonObject {
  if (m.kind !== "write") return params;
  const area = m.scope.split(":")[1];
  const properties = { ...(params.properties as JsonObject) };
  for (const [name, schema] of Object.entries(properties)) {
    const ref = (schema as JsonObject).$ref;
    const target = typeof ref === "string" ? spec.schemas[ref.slice(REF_PREFIX.length)] : undefined;
    const members = Object.entries((target?.properties ?? {}) as JsonObject);
    if (target?.type !== "object" || members.length === 0) continue;
    const read = spec.methods.find(
      (r) =>
        r.kind === "read" &&
        r.scope === `read:${area}` &&
        members.every(([k, v]) => r.params.some((p) => p.name === k && JSON.stringify(p.schema) === JSON.stringify(v))),
    );
    if (read) properties[name] = { type: "object", description: `Filters of ${read.name}.` };
  }
  return { ...params, properties };
}

/** An id pattern such as ^wal_[A-Za-z\d]{16,40}$: a model copies ids from answers, so only the prefix helps it. */
const ID_PATTERN = /^\^([a-z]+_)\[/;
/** Length and count bounds that the server checks and names in its invalid_params error (data.field, data.expected). */
const SERVER_CHECKED_BOUNDS = new Set(["minLength", "maxLength", "minItems", "maxItems", "uniqueItems"]);

/**
 * What a model needs to form a call, not everything the server checks (docs/decisions.md, "Room to grow"):
 * types, enums, numeric ranges, required members, the closed top-level object, defaults, formats, id
 * prefixes and value patterns stay; string and array length bounds, the non-blank pattern \S, an id's body,
 * the year part of a date pattern, how many digits a number may have, an excluded value inside a range
 * (`not`), a nested object's closedness and `default: false` go. The server still validates every call with the
 * full spec (generated/validators.js) and names the field and what it expects when a bound is broken.
 */
function forModel(value: Json, depth = 0): Json {
  if (Array.isArray(value)) return value.map((v) => forModel(v, depth));
  if (value === null || typeof value !== "object") return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === "properties" || k === "$defs") {
      out[k] = Object.fromEntries(Object.entries(v as JsonObject).map(([pk, pv]) => [pk, forModel(pv, depth + 1)]));
      continue;
    }
    if (SERVER_CHECKED_BOUNDS.has(k) && typeof v !== "object") continue;
    if (k === "not") continue; // an excluded value inside a range (day_of_month 0): server checked
    if (k === "additionalProperties" && v === false && depth > 0) continue; // a nested object's closedness
    if (k === "default" && v === false) continue;
    if (k === "pattern" && typeof v === "string") {
      if (v === "\\S" || value.format === "date") continue;
      const id = ID_PATTERN.exec(v);
      // \d{0,11} → \d*: how many digits an amount may have is a bound like a length (server checked).
      out[k] = id ? `^${id[1]}` : v.replace(/\\d\{0,\d+\}/g, "\\d*").replace(/\\d\{1,\d+\}/g, "\\d+");
      continue;
    }
    out[k] = forModel(v, depth);
  }
  return out;
}

/**
 * After forModel a shared component may be cheaper written out at each use than defined once and
 * referenced (a date is now {type, format}): each $defs entry stays only where it costs fewer tokens.
 */
function withDefsWhereCheaper(schema: JsonObject): JsonObject {
  const defs = schema.$defs as JsonObject | undefined;
  if (!defs) return schema;
  const uses = new Map<string, number>();
  const count = (value: Json): void => {
    if (Array.isArray(value)) return value.forEach(count);
    if (value === null || typeof value !== "object") return;
    if (typeof value.$ref === "string") uses.set(value.$ref, (uses.get(value.$ref) ?? 0) + 1);
    Object.values(value).forEach(count);
  };
  count(schema);
  const inlined = new Set(
    Object.keys(defs).filter((name) => {
      const n = uses.get(`#/$defs/${name}`) ?? 0;
      return n * tokens(defs[name]) <= tokens({ [name]: defs[name] }) + n * tokens({ $ref: `#/$defs/${name}` });
    }),
  );
  const replace = (value: Json): Json => {
    if (Array.isArray(value)) return value.map(replace);
    if (value === null || typeof value !== "object") return value;
    if (typeof value.$ref === "string" && inlined.has(value.$ref.slice("#/$defs/".length))) {
      const { $ref, ...rest } = value;
      // Its own refs too: an inlined list of an inlined item (TagList of Tag) leaves no ref behind.
      return { ...(replace(defs[($ref as string).slice("#/$defs/".length)]!) as JsonObject), ...(replace(rest) as JsonObject) };
    }
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) if (!(k === "$defs" && value === schema)) out[k] = replace(v);
    return out;
  };
  const out = replace(schema) as JsonObject;
  const kept = Object.fromEntries(Object.entries(defs).flatMap(([name, d]) => (inlined.has(name) ? [] : [[name, replace(d)]])));
  if (Object.keys(kept).length) out.$defs = kept;
  return out;
}

export function mcpOutputSchema(spec: Spec, m: MethodSpec): JsonObject {
  const root = spec.schemas[String(m.result.schema.$ref ?? "").slice(REF_PREFIX.length)] ?? m.result.schema;
  return withoutDescriptions(withoutTitles(toolSchema(spec, root, m.name.startsWith("delete_")))) as JsonObject;
}
