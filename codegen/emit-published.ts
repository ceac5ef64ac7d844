/**
 * The published contract (rpc.discover, GET /api/v1/openrpc.json, clients/openrpc/openrpc.json): openrpc.json
 * transformed so that other teams' standard generator, @open-rpc/generator, makes a TypeScript client that
 * compiles strictly with a current TypeScript (docs/decisions.md, "Room for the next tools"). openrpc.json
 * stays the source: the project's own codegen reads `x-http-status` on its error objects there.
 *
 * What changes, and why (each was a class of compile errors of the generated client):
 * - `openrpc` is 1.2.6: the generator's pinned @open-rpc/meta-schema types know no later version.
 * - `x-http-status` leaves the error objects, which the meta-schema types as {code, message, data?}; the
 *   statuses are kept as one map, info["x-http-status"] (error name → status), where extensions are allowed.
 * - Every method's result schema has a title (`<Method>Result`): an untitled one is named by a hash that
 *   the generator computes differently for the type and for the method signature.
 * - Required params come first (TypeScript refuses a required parameter after an optional one), each group
 *   in spec order. The server maps positional params in this same order (ToolDefinition.positionalNames).
 * - `paramStructure` is `by-position`: the generated client validates its params array by name for a
 *   by-name method, and so refuses every call with a required param (upstream open-rpc/generator#729);
 *   `either` reads a missing optional param by name off the array (`sort` is Array.prototype.sort). By
 *   position it validates each value by its index and sends an array, which the server maps in this
 *   order. The server still takes named params as well.
 * - Examples of a refusal (no `result`, an `x-error`) are left out: OpenRPC 1.3 makes an example's result
 *   optional, but the generator's 1.2.6 meta-schema requires it. The spec keeps them (docs/protocol.md, "Examples").
 * - A day an example's params give relative to the example world's today (EXAMPLE_TODAY), where the schema
 *   offers `in_days` beside `date` (a what-if event, which must lie after today), is published as `in_days`:
 *   a client that copies the call gets an answer on any day, not a refusal once the date has passed (issue 52).
 *   The spec keeps the date, which test/contract/replay.test.ts replays by value on the examples' day.
 */
import type { Json, JsonObject } from "./load.js";
import { pascal } from "./schemas.js";

/** The example world's today: every example of openrpc.json shows the answer on this day (test/contract/replay.test.ts). */
export const EXAMPLE_TODAY = "2026-03-15";

/** The version of the OpenRPC document the generator's own meta-schema types accept. */
export const PUBLISHED_OPENRPC_VERSION = "1.2.6";

interface Param {
  name?: string;
  required?: boolean;
  $ref?: string;
}

/** The params of a method in the published (and positional) order: the required ones first, each group in spec order. */
export function positionalOrder<T>(params: readonly T[], required: (p: T) => boolean): T[] {
  return [...params.filter(required), ...params.filter((p) => !required(p))];
}

function resolve(raw: JsonObject, ref: string): JsonObject {
  let node: Json = raw;
  for (const part of ref.slice(2).split("/")) node = (node as JsonObject)[part] as Json;
  return node as JsonObject;
}

export function publishedDocument(raw: JsonObject): JsonObject {
  const doc = structuredClone(raw);
  doc.openrpc = PUBLISHED_OPENRPC_VERSION;

  const statuses: JsonObject = {};
  const components = doc.components as JsonObject;
  for (const [name, error] of Object.entries((components.errors ?? {}) as Record<string, JsonObject>)) {
    if (error["x-http-status"] !== undefined) statuses[name] = error["x-http-status"];
    delete error["x-http-status"];
  }
  const info = doc.info as JsonObject;
  info["x-http-status"] = statuses;
  for (const ext of (doc["x-extensions"] ?? []) as JsonObject[]) {
    if (ext.name !== "x-http-status") continue;
    ext.restricted = ["infoObject"];
    ext.summary = "The HTTP status of a direct JSON-RPC call that fails with an error, by the error's name";
    ext.schema = { type: "object", additionalProperties: { type: "integer", minimum: 400, maximum: 599 } };
  }

  for (const method of doc.methods as JsonObject[]) {
    for (const error of (method.errors ?? []) as JsonObject[]) delete error["x-http-status"];
    const result = method.result as JsonObject;
    const schema = result.schema as JsonObject;
    if (typeof schema.title !== "string" && typeof schema.$ref !== "string") result.schema = { title: `${pascal(String(method.name))}Result`, ...schema };
    const required = (p: Param) => (p.$ref ? resolve(raw, p.$ref).required === true : p.required === true);
    method.params = positionalOrder(method.params as Param[] as Json[], (p) => required(p as Param)) as Json;
    method.paramStructure = "by-position";
    if (Array.isArray(method.examples)) method.examples = (method.examples as JsonObject[]).filter((e) => e.result !== undefined) as Json;
    for (const example of (method.examples ?? []) as JsonObject[]) relativeDays(raw, method, example);
  }
  return doc;
}

const DAY_MS = 86_400_000;

/** An example's event days after EXAMPLE_TODAY as `in_days`, where the param's items take it (see above). */
function relativeDays(raw: JsonObject, method: JsonObject, example: JsonObject): void {
  for (const param of example.params as JsonObject[]) {
    const spec = (method.params as JsonObject[]).find((p) => p.name === param.name);
    const schema = spec?.schema as JsonObject | undefined;
    const items = schema?.type === "array" ? (schema.items as JsonObject | undefined) : undefined;
    const props = (items?.$ref ? resolve(raw, String(items.$ref)) : items)?.properties as JsonObject | undefined;
    if (!props?.date || !props.in_days || !Array.isArray(param.value)) continue;
    param.value = (param.value as JsonObject[]).map((event) => {
      if (typeof event.date !== "string" || event.date <= EXAMPLE_TODAY) return event;
      const { date, ...rest } = event;
      const days = Math.round((Date.parse(`${date}T00:00:00Z`) - Date.parse(`${EXAMPLE_TODAY}T00:00:00Z`)) / DAY_MS);
      return { in_days: days, ...rest };
    }) as Json;
  }
}
