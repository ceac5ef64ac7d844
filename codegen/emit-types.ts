/** generated/types.ts: one compile of one synthetic root, so every shared schema is declared once. */
import { compile } from "json-schema-to-typescript";
import type { JsonObject, Spec } from "./load.js";
import { definitionsDocument } from "./schemas.js";

export async function emitTypes(spec: Spec, banner: string): Promise<string> {
  const doc = definitionsDocument(spec) as JsonObject;
  const root = { ...doc, title: "FinanceMcpSchemas", type: "object", properties: {}, additionalProperties: false };
  delete (root as JsonObject).$id;
  return compile(root as never, "FinanceMcpSchemas", {
    bannerComment: banner,
    unreachableDefinitions: true,
    additionalProperties: false,
    strictIndexSignatures: true,
    declareExternallyReferenced: true,
    format: true,
    style: { singleQuote: false, printWidth: 120 },
  });
}
