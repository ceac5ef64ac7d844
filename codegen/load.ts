/**
 * Reads the contract (assembled from contract/ by codegen/contract.ts, or one document file), validates it with @open-rpc/schema-utils-js and applies the project's own rules,
 * which the OpenRPC meta-schema cannot express (object results, closed objects, scope/kind present,
 * an example per method). Every later stage works from the `Spec` this returns.
 */
import { readFile } from "node:fs/promises";
import { validateOpenRPCDocument } from "@open-rpc/schema-utils-js";
import { assembleContract, parseStrict } from "./contract.js";

import type { Json, JsonObject } from "./contract.js";
export type { Json, JsonObject };

export interface ContentDescriptor {
  name: string;
  description?: string;
  required?: boolean;
  schema: JsonObject;
}

export interface MethodSpec {
  name: string;
  summary?: string;
  description: string;
  params: ContentDescriptor[];
  result: ContentDescriptor;
  scope: string;
  kind: "read" | "write";
  errors: string[];
  examples: JsonObject[];
  /** x-justification: one sentence on what the tool reads or changes (directory reviews ask why each hint holds). */
  justification: string;
  /** x-destructive: a write that is not a delete_ or update_ but can delete or overwrite what the person had. */
  destructive: boolean;
}

export interface Spec {
  raw: JsonObject;
  methods: MethodSpec[];
  schemas: Record<string, JsonObject>;
  errors: Record<string, { code: number; message: string }>;
  /** info["x-instructions"]: the conventions shared by every tool, sent as the MCP server instructions. */
  instructions: string;
  /** x-apps: tool name → the ui:// MCP App that draws its result (tools/list's _meta.ui.resourceUri). */
  apps: Record<string, string>;
}

const COMPONENT_PREFIX = "#/components/";

function resolveComponentRef(raw: JsonObject, ref: string): Json {
  if (!ref.startsWith(COMPONENT_PREFIX)) throw new Error(`unsupported $ref ${ref}: only #/components/... refs are allowed`);
  let node: Json = raw;
  for (const part of ref.slice(2).split("/")) {
    if (node === null || typeof node !== "object" || Array.isArray(node) || !(part in node)) {
      throw new Error(`$ref ${ref} does not resolve`);
    }
    node = (node as JsonObject)[part] as Json;
  }
  return node;
}

function deref<T extends Json>(raw: JsonObject, value: Json): T {
  if (value && typeof value === "object" && !Array.isArray(value) && typeof value.$ref === "string") {
    return resolveComponentRef(raw, value.$ref) as T;
  }
  return value as T;
}

/** Walks every schema node, so that rules hold at every depth, not only at the root. */
export function walkSchema(schema: Json, visit: (node: JsonObject, path: string) => void, path = ""): void {
  if (schema === null || typeof schema !== "object") return;
  if (Array.isArray(schema)) {
    schema.forEach((item, i) => walkSchema(item, visit, `${path}/${i}`));
    return;
  }
  visit(schema, path);
  for (const [key, value] of Object.entries(schema)) {
    if (key === "examples" || key === "default" || key === "enum" || key === "const") continue;
    walkSchema(value, visit, `${path}/${key}`);
  }
}

function checkClosedObjects(schema: Json, where: string, problems: string[]): void {
  walkSchema(schema, (node, path) => {
    const isObject = node.type === "object" || (Array.isArray(node.type) && node.type.includes("object"));
    if (!isObject) return;
    if (node.additionalProperties !== false) problems.push(`${where}${path}: object without additionalProperties: false`);
    if (!Array.isArray(node.required)) problems.push(`${where}${path}: object without an explicit required list`);
  });
}

/**
 * One sentence: a capital first, a full stop last and no sentence end inside (". " followed by a capital).
 * Directories show each justification as one line.
 */
export function isOneSentence(text: string): boolean {
  if (text.length < 10 || text.length > 300 || !/^[A-Z]/.test(text) || !text.endsWith(".")) return false;
  for (let i = text.indexOf(". "); i >= 0; i = text.indexOf(". ", i + 1)) if (/[A-Z]/.test(text[i + 2] ?? "")) return false;
  return true;
}

/** A whole document from one file (tests check an edited copy this way), duplicate keys refused. */
export async function loadSpec(path: string): Promise<Spec> {
  return checkSpec(parseStrict(await readFile(path, "utf8"), path) as JsonObject);
}

/** The contract as its parts assemble it (codegen/contract.ts). */
export async function loadContract(root: string): Promise<Spec> {
  return checkSpec(await assembleContract(root));
}

function checkSpec(raw: JsonObject): Spec {
  const valid = validateOpenRPCDocument(structuredClone(raw) as never);
  if (valid !== true) throw new Error(`openrpc.json is not a valid OpenRPC document: ${(valid as Error).message}`);

  const problems: string[] = [];
  const components = (raw.components ?? {}) as JsonObject;
  const schemas = (components.schemas ?? {}) as Record<string, JsonObject>;
  const errorTable = (components.errors ?? {}) as Record<string, { code: number; message: string }>;

  for (const [name, schema] of Object.entries(schemas)) {
    if (schema.title !== name) problems.push(`components/schemas/${name}: title must equal the key`);
    checkClosedObjects(schema, `components/schemas/${name}`, problems);
  }
  walkSchema(raw.methods as Json, (node, path) => {
    if (typeof node.$ref === "string" && "title" in node) problems.push(`methods${path}: title next to $ref`);
  });

  const methods: MethodSpec[] = [];
  const seen = new Set<string>();
  for (const rawMethod of raw.methods as JsonObject[]) {
    const m = deref<JsonObject>(raw, rawMethod);
    const name = String(m.name);
    const where = `method ${name}`;
    if (seen.has(name)) problems.push(`${where}: declared twice`);
    seen.add(name);
    if (typeof m.description !== "string" || m.description.length < 40) problems.push(`${where}: needs a description written for a language model`);
    if (m.paramStructure !== "by-name") problems.push(`${where}: paramStructure must be "by-name"`);
    const scope = m["x-scope"];
    const kind = m["x-kind"];
    if (typeof scope !== "string") problems.push(`${where}: x-scope is required`);
    if (kind !== "read" && kind !== "write") problems.push(`${where}: x-kind must be read or write`);

    const params = ((m.params ?? []) as Json[]).map((p) => deref<JsonObject>(raw, p) as unknown as ContentDescriptor);
    for (const p of params) {
      if (typeof p.required !== "boolean") problems.push(`${where}: param ${p.name} needs an explicit required`);
      checkClosedObjects(p.schema, `${where} param ${p.name}`, problems);
    }
    const result = deref<JsonObject>(raw, m.result as Json) as unknown as ContentDescriptor;
    const resultRoot = deref<JsonObject>(raw, result.schema);
    if (resultRoot.type !== "object") problems.push(`${where}: the result schema must be an object at its root`);
    checkClosedObjects(result.schema, `${where} result`, problems);

    const errors: string[] = [];
    for (const e of (m.errors ?? []) as JsonObject[]) {
      const ref = typeof e.$ref === "string" ? e.$ref : undefined;
      if (!ref || !ref.startsWith("#/components/errors/")) {
        problems.push(`${where}: errors must be $refs into components/errors`);
        continue;
      }
      const key = ref.slice("#/components/errors/".length);
      if (!(key in errorTable)) problems.push(`${where}: unknown error ${key}`);
      errors.push(key);
    }
    const examples = ((m.examples ?? []) as Json[]).map((e) => deref<JsonObject>(raw, e));
    if (examples.length === 0) problems.push(`${where}: needs at least one example`);

    if (name.startsWith("update_")) {
      // Defaults are filled in before the handler runs: on an update they would overwrite stored values.
      for (const p of params)
        if (!p.required && p.name !== "dry_run" && "default" in p.schema)
          problems.push(`${where}: optional param ${p.name} of an update tool must not declare a default`);
    }
    if (kind === "write") {
      for (const required of ["idempotency_key", "dry_run"]) {
        if (!params.some((p) => p.name === required)) problems.push(`${where}: write tools take ${required}`);
      }
    }
    const justification = m["x-justification"];
    if (typeof justification !== "string" || !isOneSentence(justification))
      problems.push(`${where}: x-justification must be one sentence ending in a full stop, saying what the tool reads or changes (docs/adding-a-tool.md)`);
    const destructive = m["x-destructive"];
    if (destructive !== undefined && (destructive !== true || kind !== "write")) problems.push(`${where}: x-destructive is true on a write tool, or absent`);
    methods.push({
      name,
      justification: typeof justification === "string" ? justification : "",
      destructive: destructive === true,
      summary: typeof m.summary === "string" ? m.summary : undefined,
      description: String(m.description ?? ""),
      params,
      result,
      scope: String(scope),
      kind: kind as "read" | "write",
      errors,
      examples,
    });
  }

  const codes = new Map<number, string>();
  for (const [key, e] of Object.entries(errorTable)) {
    const other = codes.get(e.code);
    if (other) problems.push(`components/errors: ${key} and ${other} share code ${e.code}`);
    codes.set(e.code, key);
  }

  const info = (raw.info ?? {}) as JsonObject;
  const instructions = info["x-instructions"];
  if (typeof instructions !== "string" || instructions.length < 100) problems.push("info: x-instructions (the server instructions) is required");

  const apps = (raw["x-apps"] ?? {}) as Record<string, Json>;
  for (const [tool, uri] of Object.entries(apps)) {
    if (!seen.has(tool)) problems.push(`x-apps: ${tool} is not a method`);
    if (typeof uri !== "string" || !/^ui:\/\/finance-mcp\/[a-z-]+$/.test(uri)) problems.push(`x-apps: ${tool}: expected a ui://finance-mcp/<app> URI`);
  }

  if (problems.length > 0) throw new Error(`openrpc.json breaks the project's rules:\n  - ${problems.join("\n  - ")}`);
  return { raw, methods, schemas, errors: errorTable, instructions: String(instructions), apps: apps as Record<string, string> };
}
