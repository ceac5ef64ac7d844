/**
 * generated/validators.js: ajv standalone code (draft-07 + formats), one params and one result validator
 * per method. Compiled here, once, so the server never compiles schemas at start-up.
 */
import Ajv from "ajv";
import addFormats from "ajv-formats";
import standaloneCode from "ajv/dist/standalone/index.js";
import type { Spec } from "./load.js";
import { definitionsDocument, paramsDefName, resultDefName } from "./schemas.js";

export function validatorName(method: string, which: "params" | "result"): string {
  return `${method}__${which}`;
}

export function emitValidators(spec: Spec, banner: string): { js: string; dts: string } {
  // useDefaults fills declared defaults (dry_run, limit…) into params, so handlers see one shape.
  const ajv = new Ajv.default({
    code: { source: true, esm: true, lines: false, optimize: true },
    strict: true,
    strictTypes: false,
    allErrors: true,
    useDefaults: true,
    // verbose keeps parentSchema on each error, so messages can quote the schema's own description.
    verbose: true,
    keywords: ["example"],
  });
  addFormats.default(ajv);
  ajv.addSchema(definitionsDocument(spec) as never);
  const map: Record<string, string> = {};
  for (const m of spec.methods) {
    map[validatorName(m.name, "params")] = `finance-mcp#/definitions/${paramsDefName(m)}`;
    map[validatorName(m.name, "result")] = `finance-mcp#/definitions/${resultDefName(m)}`;
  }
  let js = standaloneCode.default(ajv, map);
  // ajv's ESM output still calls require() for formats and runtime helpers (ajv#1976); give it one.
  js = `${banner}\nimport { createRequire } from "node:module";\nconst require = createRequire(import.meta.url);\n${js}\n`;
  const names = Object.keys(map);
  const dts = [banner, `import type { ValidateFunction } from "ajv";`, ...names.map((n) => `export declare const ${n}: ValidateFunction;`), ""].join("\n");
  return { js, dts };
}
