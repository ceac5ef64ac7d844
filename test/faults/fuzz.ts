/**
 * The property-based fuzz (docs/reliability.md): inputs generated with fast-check from each tool's inputSchema
 * (generated/registry.ts, so every tool the spec declares is covered), mostly valid and often with the
 * ids of the user's real records, plus hostile mutations (NUL, lone surrogates, bidi controls, huge and
 * deep values, wrong types, out-of-range dates and amounts, unknown keys) and hostile envelopes.
 * Each input is sent over loopback HTTP to a real server, as a direct JSON-RPC call or as MCP
 * tools/call. The property: no HTTP 5xx, no internal_error, no crash (the server answers every request).
 *
 * Used by test/faults/fuzz.test.ts (a few thousand inputs in npm test) and scripts/fuzz.ts
 * (`npm run fuzz`, 100,000 by default).
 */
import fc from "fast-check";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { tools } from "../../generated/registry.js";
import type { TestServer, TestUser } from "../helpers/server.js";

type Schema = Record<string, any>;

/** Ids of the user's real records by prefix (wal_, txn_, …), so that many calls reach the handlers. */
export type IdPool = Map<string, string[]>;

const HOSTILE_STRINGS = [
  "\u0000",
  "a\u0000b",
  "\ud800",
  "x\udfff",
  "\u202Eevil",
  "\u2066iso\u2069",
  "",
  " ",
  "x".repeat(10_000),
  "0000-01-01",
  "9999-12-31",
  "2026-02-30",
  "92233720368547758.08",
  "10000000000000000.00",
  "-1",
  "1e400",
  "NaN",
  "__proto__",
  "'; DROP TABLE transactions; --",
  "😀",
  "\u200F",
];
const HOSTILE_VALUES: unknown[] = [
  null,
  true,
  0,
  -1,
  1e308,
  -1e308,
  2 ** 63,
  0.1,
  [],
  {},
  [[[[]]]],
  { __proto__: { polluted: true } },
  { constructor: { prototype: {} } },
];

function deep(depth: number): unknown {
  let v: unknown = "x";
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

function stringArb(schema: Schema, pool: IdPool): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  if (schema.const !== undefined) return fc.constant(schema.const);
  let base: fc.Arbitrary<string>;
  if (schema.format === "date")
    base = fc
      .date({ min: new Date("1900-01-01T00:00:00Z"), max: new Date("2999-12-31T00:00:00Z"), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10));
  else if (schema.format === "date-time")
    base = fc.date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z"), noInvalidDate: true }).map((d) => d.toISOString());
  else if (schema.format === "uuid") base = fc.uuid({ version: 4 });
  else if (typeof schema.pattern === "string") base = fc.stringMatching(new RegExp(schema.pattern), { size: "small" });
  else base = fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 60), unit: "binary" });
  const prefix = typeof schema.pattern === "string" ? /^\^([a-z]+_)/.exec(schema.pattern)?.[1] : undefined;
  const ids = prefix ? pool.get(prefix) : undefined;
  return ids && ids.length > 0 ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...ids) }, { weight: 1, arbitrary: base }) : base;
}

/**
 * tools/list leaves out the formats the server instructions state by name (codegen/schemas.ts
 * withoutFormatsTheNameStates): idempotency_key is a UUID, a param named as a date a YYYY-MM-DD day.
 */
function withNamedFormat(name: string, schema: Schema): Schema {
  const format = name === "idempotency_key" ? "uuid" : /(^|_)date(_|$)/.test(name) ? "date" : undefined;
  if (!format) return schema;
  const add = (s: Schema): Schema => (s.type === "string" && s.format === undefined ? { ...s, format } : s);
  const alternatives = schema.oneOf ?? schema.anyOf;
  return Array.isArray(alternatives) ? { ...schema, [schema.oneOf ? "oneOf" : "anyOf"]: alternatives.map(add) } : add(schema);
}

/** A value valid for `schema` most of the time (patterns, formats, enums, bounds, required keys). */
export function schemaArb(schema: Schema, pool: IdPool, depth = 0): fc.Arbitrary<unknown> {
  if (depth > 8) return fc.constant(null);
  if (Array.isArray(schema.anyOf ?? schema.oneOf))
    return fc.oneof(...(schema.anyOf ?? schema.oneOf).map((s: Schema) => schemaArb({ ...schema, anyOf: undefined, oneOf: undefined, ...s }, pool, depth + 1)));
  if (Array.isArray(schema.allOf)) return schemaArb(Object.assign({}, ...schema.allOf, { allOf: undefined }), pool, depth + 1);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const type = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (type.length > 1) return fc.oneof(...type.map((t: string) => schemaArb({ ...schema, type: t }, pool, depth + 1)));
  switch (type[0]) {
    case "string":
      return stringArb(schema, pool);
    case "integer":
      return fc.integer({ min: schema.minimum ?? -1000, max: Math.min(schema.maximum ?? 1000, 2 ** 31) });
    case "number":
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      return fc.array(schemaArb(schema.items ?? {}, pool, depth + 1), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 5, 8) });
    case "object": {
      const props: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) props[k] = schemaArb(withNamedFormat(k, v), pool, depth + 1);
      return fc.record(props, { requiredKeys: (schema.required ?? []).filter((k: string) => k in props) });
    }
    default:
      return fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null));
  }
}

const hostileValue = fc.oneof(
  fc.constantFrom(...HOSTILE_STRINGS),
  fc.constantFrom(...HOSTILE_VALUES),
  fc.integer({ min: 10, max: 40 }).map(deep),
  fc.constant(deep(200)),
  fc.constant(Array.from({ length: 6000 }, (_, i) => i)),
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.string({ unit: fc.constantFrom("\u0000", "\ud800", "\u202e", "a", "\u200f"), maxLength: 10 }),
);

/** Replaces, adds or removes one argument (or the whole params) with something hostile. */
/** Arguments of free text (no pattern, format or enum), alone or in an array: names, payees, notes, tags. */
function freeTextKeys(schema: Schema): Set<string> {
  const free = (s: Schema | undefined) => !!s && s.type === "string" && !s.pattern && !s.format && !s.enum && s.const === undefined;
  const out = new Set<string>();
  for (const [k, v] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    const options: Schema[] = [v, ...((v.anyOf ?? v.oneOf ?? []) as Schema[])].map((o) => ({ ...v, anyOf: undefined, oneOf: undefined, ...o }));
    if (options.some((o) => free(o) || (o.type === "array" && free(o.items)))) out.add(k);
  }
  return out;
}

function mutate(params: Record<string, unknown>, textKeys: Set<string>): fc.Arbitrary<unknown> {
  const keys = Object.keys(params);
  // Free text that is otherwise valid with one bad character in it: the rest of the call still reaches
  // the handler and the database, which is where NUL (Postgres) and lone surrogates used to get through.
  const texts = keys.filter(
    (k) => textKeys.has(k) && (typeof params[k] === "string" || (Array.isArray(params[k]) && typeof (params[k] as unknown[])[0] === "string")),
  );
  const poison = fc
    .tuple(fc.constantFrom(...(texts.length ? texts : ["x"])), fc.constantFrom("\u0000", "\ud800", "\udc00", "\u202e", "\u2066", "\u200f"), fc.nat(40))
    .map(([k, bad, at]) => {
      const put = (t: string) => t.slice(0, at % (t.length + 1)) + bad + t.slice(at % (t.length + 1));
      const v = params[k];
      return { ...params, [k]: typeof v === "string" ? put(v) : Array.isArray(v) ? [put(String(v[0])), ...v.slice(1)] : bad };
    });
  // Dates and amounts just outside the bounds, in place of valid ones.
  const bounded = keys.filter((k) => /date|as_of|amount|balance/.test(k) && typeof params[k] === "string");
  const outOfRange = fc
    .tuple(
      fc.constantFrom(...(bounded.length ? bounded : ["date"])),
      fc.constantFrom(
        "0000-01-01",
        "1899-12-31",
        "3000-01-01",
        "9999-12-31",
        "92233720368547758.08",
        "1000000000000",
        "999999999999.99",
        "-92233720368547758.08",
      ),
    )
    .map(([k, v]) => ({ ...params, [k]: v }));
  return fc.oneof(
    { weight: 4, arbitrary: poison },
    { weight: 2, arbitrary: outOfRange },
    fc.tuple(keys.length ? fc.constantFrom(...keys) : fc.constant("x"), hostileValue).map(([k, v]) => ({ ...params, [k]: v })),
    fc.tuple(keys.length ? fc.constantFrom(...keys) : fc.constant("x"), hostileValue).map(([k, v]) => ({ ...params, [k]: v })),
    fc.tuple(fc.constantFrom("extra", "__proto__", "constructor", "\u0000", "a.b", ""), hostileValue).map(([k, v]) => {
      const out = { ...params };
      Object.defineProperty(out, k, { value: v, enumerable: true, configurable: true, writable: true });
      return out;
    }),
    keys.length ? fc.constantFrom(...keys).map((k) => Object.fromEntries(Object.entries(params).filter(([x]) => x !== k))) : fc.constant({}),
    hostileValue,
    fc.constant(Object.values(params)),
  );
}

export interface FuzzInput {
  tool: string;
  via: "direct" | "tools/call";
  params: unknown;
  /** A raw body sent as is instead (a hostile envelope), with its Content-Type. */
  raw?: { body: string; contentType?: string };
}

const rawEnvelopes = fc.constantFrom<FuzzInput["raw"]>(
  { body: '{"jsonrpc":"2.0","id":1e400,"method":"whoami"}' },
  { body: '{"jsonrpc":"2.0","id":-0,"method":"whoami"}' },
  { body: '{"jsonrpc":"2.0","id":{"a":1},"method":"whoami"}' },
  { body: '{"jsonrpc":"2.0","id":1,"method":"whoami"', contentType: "application/json" },
  { body: '{"jsonrpc":"2.0","id":1,"method":"whoami"}', contentType: "text/plain" },
  { body: "jsonrpc=2.0", contentType: "application/x-www-form-urlencoded" },
  { body: '[{"jsonrpc":"2.0","id":1,"method":"whoami"}]' },
  { body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":[1]}}' },
  { body: '{"jsonrpc":"1.0","id":1,"method":"whoami"}' },
  { body: '{"jsonrpc":"2.0","id":1,"method":"\\u0000"}' },
  { body: `{"jsonrpc":"2.0","id":1,"method":"list_wallets","params":${"[".repeat(60_000)}${"]".repeat(60_000)}}` },
  { body: "null" },
  { body: '"\\ud800"' },
);

/** The spec's examples of each method as named params: valid calls to start mutations from. */
function examplesByTool(): Map<string, Record<string, unknown>[]> {
  const spec = JSON.parse(readFileSync(new URL("../../openrpc.json", import.meta.url), "utf8")) as {
    methods: { name: string; examples?: { params: { name: string; value: unknown }[] }[] }[];
  };
  return new Map(spec.methods.map((m) => [m.name, (m.examples ?? []).map((e) => Object.fromEntries(e.params.map((p) => [p.name, p.value])))]));
}

/** An example's ids replaced by the user's real ids of the same kind (wal_, txn_…), so the call reaches the database. */
function withRealIds(value: unknown, pool: IdPool, pick: number): unknown {
  if (typeof value === "string") {
    const ids = pool.get(/^([a-z]+_)/.exec(value)?.[1] ?? "");
    return ids && ids.length ? ids[pick % ids.length] : value;
  }
  if (Array.isArray(value)) return value.map((v) => withRealIds(v, pool, pick));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withRealIds(v, pool, pick)]));
  return value;
}

/**
 * One fuzz input: a tool's params, from its input schema or (as often) from one of its spec examples
 * aimed at the user's records, mutated one time in three; now and then a raw hostile envelope.
 */
/** tools/list states a component used more than once under the schema's own $defs: inline it back. */
function withoutLocalRefs(value: unknown, defs: Record<string, Schema>): any {
  if (Array.isArray(value)) return value.map((v) => withoutLocalRefs(v, defs));
  if (value === null || typeof value !== "object") return value;
  const { $ref, $defs: _defs, ...rest } = value as Schema;
  const out: Schema = {};
  for (const [k, v] of Object.entries(rest)) out[k] = withoutLocalRefs(v, defs);
  return typeof $ref === "string" ? { ...withoutLocalRefs(defs[$ref.slice("#/$defs/".length)], defs), ...out } : out;
}

export function fuzzInputArb(pool: IdPool): fc.Arbitrary<FuzzInput> {
  const examples = examplesByTool();
  const perTool = tools.map((def) => {
    const t = { ...def, inputSchema: withoutLocalRefs(def.inputSchema, ((def.inputSchema as Schema).$defs ?? {}) as Record<string, Schema>) };
    const textKeys = freeTextKeys(t.inputSchema as Schema);
    return fc
      .tuple(
        fc.oneof(
          schemaArb(t.inputSchema as Schema, pool) as fc.Arbitrary<Record<string, unknown>>,
          (examples.get(t.name)?.length
            ? fc.tuple(fc.constantFrom(...examples.get(t.name)!), fc.nat()).map(([e, n]) => withRealIds(e, pool, n))
            : schemaArb(t.inputSchema as Schema, pool)) as fc.Arbitrary<Record<string, unknown>>,
        ),
        fc.constantFrom<FuzzInput["via"]>("direct", "tools/call"),
        fc.nat(2),
      )
      .chain(([params, via, roll]) => {
        const withKey = t.kind === "write" ? { ...params, idempotency_key: roll === 2 ? "11111111-1111-4111-8111-111111111111" : randomUUID() } : params;
        return (roll === 0 ? mutate(withKey, textKeys) : fc.constant(withKey)).map((p) => ({ tool: t.name, via, params: p }));
      });
  });
  return fc.oneof(
    { weight: 40, arbitrary: fc.oneof(...perTool) },
    { weight: 1, arbitrary: rawEnvelopes.map((raw) => ({ tool: "(envelope)", via: "direct" as const, params: null, raw })) },
  );
}

export interface FuzzFailure {
  input: string;
  status: number;
  answer: string;
}

/** An internal_error as a JSON-RPC error or as an MCP tool result with isError. */
function isInternalError(text: string): boolean {
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    return false;
  }
  if (body?.error?.data?.code === "internal_error") return true;
  const result = body?.result;
  return (
    result?.isError === true && Array.isArray(result.content) && result.content.some((c: { text?: string }) => /"code":"internal_error"/.test(c.text ?? ""))
  );
}

/** Sends one input; returns a failure when the answer is a 5xx, an internal_error, or no answer at all. */
export async function sendFuzzInput(server: TestServer, user: TestUser, input: FuzzInput, id: number): Promise<FuzzFailure | "accepted" | "refused"> {
  let body: string;
  let contentType = "application/json";
  if (input.raw) {
    body = input.raw.body;
    contentType = input.raw.contentType ?? contentType;
  } else {
    const msg =
      input.via === "direct"
        ? { jsonrpc: "2.0", id, method: input.tool, params: input.params }
        : { jsonrpc: "2.0", id, method: "tools/call", params: { name: input.tool, arguments: input.params } };
    try {
      body = JSON.stringify(msg);
    } catch {
      return "refused"; // not representable as JSON (the generator's fault, not the server's): not sent
    }
  }
  const describe = () => `${input.via} ${input.tool} ${body.length > 300 ? `${body.slice(0, 300)}… (${body.length} chars)` : body}`;
  let status = 0;
  let text = "";
  try {
    const res = await fetch(server.mcpUrl, {
      method: "POST",
      headers: { "content-type": contentType, accept: "application/json, text/event-stream", authorization: `Bearer ${user.token}` },
      body,
      signal: AbortSignal.timeout(30_000),
    });
    status = res.status;
    text = await res.text();
  } catch (err) {
    return { input: describe(), status: 0, answer: `no answer: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (status >= 500 || isInternalError(text)) return { input: describe(), status, answer: text.slice(0, 500) };
  return status === 200 &&
    /^\{"jsonrpc":"2.0","id":[^,]*,"result":/.test(text) &&
    !/^\{"jsonrpc":"2.0","id":[^,]*,"result":\{"content":\[[^\]]*\],"isError":true/.test(text)
    ? "accepted"
    : "refused";
}

/** The user's records for the generator to aim at: two wallets, transactions, a budget, a goal, a bill. */
export async function seedFuzzUser(server: TestServer, user: TestUser): Promise<IdPool> {
  const call = (tool: string, params: Record<string, unknown>) => server.call(tool, { ...params, idempotency_key: randomUUID() }, user.token);
  const a = (await call("create_wallet", { name: "Checking", type: "checking", currency: "USD", opening_balance: "100.00" })).wallet.id;
  const b = (await call("create_wallet", { name: "Savings", type: "savings", currency: "USD" })).wallet.id;
  const t1 = (await call("create_transaction", { wallet_id: a, direction: "expense", amount: "12.50", payee: "Shop", category: "Groceries", tags: ["food"] }))
    .transaction.id;
  const t2 = (await call("create_transaction", { wallet_id: a, to_wallet_id: b, direction: "transfer", amount: "5.00" })).transaction.id;
  const bud = (await call("create_budget", { name: "Food", amount: "300.00", currency: "USD", period: "month", categories: ["Groceries"] })).budget.id;
  const gol = (await call("create_goal", { name: "Trip", target_amount: "1000.00", currency: "USD" })).goal.id;
  const bil = (
    await call("create_bill_reminder", {
      name: "Rent",
      amount: "800.00",
      currency: "USD",
      schedule: { frequency: "monthly", start_date: "2026-01-01", day_of_month: 1 },
    })
  ).bill_reminder.id;
  return new Map([
    ["wal_", [a, b]],
    ["txn_", [t1, t2]],
    ["bud_", [bud]],
    ["gol_", [gol]],
    ["bil_", [bil]],
  ]);
}

export interface FuzzReport {
  tried: number;
  /** How many inputs failed (the first 20 are kept in `failures`). */
  failed: number;
  /** Answered with a result (the call did what it was asked). */
  accepted: number;
  /** Answered with an error the caller can act on (invalid_params, not_found, 4xx…). */
  refused: number;
  failures: FuzzFailure[];
  seconds: number;
}

/** Runs `count` inputs from `seed`, `concurrency` at a time; stops collecting after 20 failures. */
export async function runFuzz(
  server: TestServer,
  user: TestUser,
  pool: IdPool,
  opts: { count: number; seed: number; concurrency?: number; onProgress?: (done: number) => void },
): Promise<FuzzReport> {
  const started = Date.now();
  const arb = fuzzInputArb(pool);
  const failures: FuzzFailure[] = [];
  let tried = 0;
  let failed = 0;
  let accepted = 0;
  let refused = 0;
  const batch = 500;
  for (let offset = 0; offset < opts.count; offset += batch) {
    const inputs = fc.sample(arb, { numRuns: Math.min(batch, opts.count - offset), seed: opts.seed + offset });
    let next = 0;
    const worker = async () => {
      while (next < inputs.length) {
        const i = next++;
        const outcome = await sendFuzzInput(server, user, inputs[i]!, offset + i + 1);
        tried++;
        if (outcome === "accepted") accepted++;
        else if (outcome === "refused") refused++;
        else {
          failed++;
          if (failures.length < 20) failures.push(outcome);
        }
      }
    };
    await Promise.all(Array.from({ length: opts.concurrency ?? 4 }, worker));
    opts.onProgress?.(tried);
  }
  return { tried, failed, accepted, refused, failures, seconds: (Date.now() - started) / 1000 };
}
