/**
 * The contract in parts (docs/decisions.md#contract-in-parts): `contract/document.json` (info, servers,
 * extensions, apps, prompts), `contract/components/<kind>.json` (schemas, errors, contentDescriptors) and
 * `contract/methods/<area>.json` (the tools of one area, the area being their scope's second word, as
 * src/tools/<area>/ is). Codegen assembles them into openrpc.json, which is an output like generated/.
 *
 * Every part is read by a parser that refuses a key given twice in one object (JSON.parse keeps the last
 * one silently, and a later JSON.stringify drops the first): jsonc-parser's visitor, the parser VS Code
 * uses, which reports each property with its offset, so the refusal names file and line.
 */
import { existsSync } from "node:fs";
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { visit } from "jsonc-parser";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

const CONTRACT_DIR = "contract";
const COMPONENT_KINDS = ["contentDescriptors", "schemas", "errors"] as const;

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** JSON.parse, refusing a duplicate key, a comment or a trailing comma, each named by file and line. */
export function parseStrict(text: string, file: string): Json {
  const problems: string[] = [];
  const keys: Set<string>[] = [];
  visit(
    text,
    {
      onObjectBegin: () => void keys.push(new Set()),
      onObjectEnd: () => void keys.pop(),
      onObjectProperty: (name, offset) => {
        const seen = keys[keys.length - 1]!;
        if (seen.has(name)) problems.push(`${file}:${lineOf(text, offset)}: key "${name}" given twice in one object`);
        seen.add(name);
      },
      onComment: (offset) => void problems.push(`${file}:${lineOf(text, offset)}: a comment (JSON has none)`),
    },
    // Comments are reported above rather than skipped; syntax errors are left to JSON.parse below.
    { allowTrailingComma: false, disallowComments: false },
  );
  if (problems.length) throw new Error(problems.join("\n"));
  try {
    return JSON.parse(text) as Json;
  } catch (err) {
    throw new Error(`${file}: ${(err as Error).message}`, { cause: err });
  }
}

async function readPart(root: string, path: string): Promise<Json> {
  return parseStrict(await readFile(join(root, path), "utf8"), path);
}

const isObject = (v: Json): v is JsonObject => v !== null && typeof v === "object" && !Array.isArray(v);

/** A method's area: the second word of its scope (whoami's is meta), as codegen/emit-registry.ts#toolArea. */
function areaOf(method: JsonObject): string | undefined {
  const area = typeof method["x-scope"] === "string" ? method["x-scope"].split(":")[1] : undefined;
  return area === "whoami" ? "meta" : area;
}

/**
 * The whole document, assembled: the document part's keys, then `methods` (areas in file-name order, each
 * file's tools in its own order), then `components`. Refuses a duplicate key, a tool named twice (in one
 * part or two), a tool in another area's file, and a part that is not the shape its place says.
 */
export async function assembleContract(root: string): Promise<JsonObject> {
  const dir = join(root, CONTRACT_DIR);
  if (!existsSync(dir)) throw new Error(`${CONTRACT_DIR}/ is missing: the contract's parts are the source of openrpc.json`);
  const problems: string[] = [];
  const document = await readPart(root, `${CONTRACT_DIR}/document.json`);
  if (!isObject(document)) throw new Error(`${CONTRACT_DIR}/document.json: must be an object`);
  for (const key of ["methods", "components"]) if (key in document) problems.push(`${CONTRACT_DIR}/document.json: "${key}" belongs in its own parts`);

  const methods: JsonObject[] = [];
  const where = new Map<string, string>();
  const files = (await readdir(join(dir, "methods"))).sort();
  for (const name of files) {
    const path = `${CONTRACT_DIR}/methods/${name}`;
    if (!name.endsWith(".json")) {
      problems.push(`${path}: not a .json part`);
      continue;
    }
    const part = await readPart(root, path);
    if (!Array.isArray(part)) {
      problems.push(`${path}: must be an array of methods`);
      continue;
    }
    for (const method of part) {
      if (!isObject(method) || typeof method.name !== "string") {
        problems.push(`${path}: every entry must be a method object with a name`);
        continue;
      }
      const earlier = where.get(method.name);
      if (earlier) problems.push(`${path}: method ${method.name} is already declared in ${earlier}`);
      where.set(method.name, path);
      const area = areaOf(method);
      if (area !== name.slice(0, -".json".length))
        problems.push(`${path}: method ${method.name} has scope area "${area}"; it belongs in ${CONTRACT_DIR}/methods/${area}.json`);
      methods.push(method);
    }
  }

  const components: JsonObject = {};
  for (const kind of COMPONENT_KINDS) {
    const path = `${CONTRACT_DIR}/components/${kind}.json`;
    if (!existsSync(join(root, path))) continue;
    const part = await readPart(root, path);
    if (!isObject(part)) problems.push(`${path}: must be an object`);
    else components[kind] = part;
  }
  const extra = (await readdir(join(dir, "components"))).filter((f) => !COMPONENT_KINDS.some((k) => f === `${k}.json`));
  for (const f of extra) problems.push(`${CONTRACT_DIR}/components/${f}: not a component kind (${COMPONENT_KINDS.join(", ")})`);

  if (problems.length) throw new Error(`the contract's parts are not well formed:\n  - ${problems.join("\n  - ")}`);
  return { ...document, methods, components };
}

/** openrpc.json as codegen writes it. */
export function contractText(raw: JsonObject): string {
  return `${JSON.stringify(raw, null, 2)}\n`;
}
