/**
 * chatgpt-app-submission.json, the file ChatGPT's app review imports (schema chatgpt-app-submission.v1,
 * kept as codegen/listing/chatgpt-app-submission.v1.schema.json and checked by
 * test/contract/listing.test.ts), generated from openrpc.json so that it cannot drift from the tools:
 * - each tool's three hints are the ones tools/list states (codegen/emit-registry.ts#annotations), never
 *   null; its read-only and destructive justifications are its x-justification, the open-world one is
 *   shared (no tool reaches outside the person's own server);
 * - app info and the test cases come from info.x-listing; each positive case names one of the spec's
 *   examples, whose tool it triggers, so a renamed tool or example stops codegen.
 * The importer's own rules, beyond the schema, are held here: a subtitle of at most 30 characters, a
 * display name not ending in "MCP", "MCP Server" or "Plugin", at most five positive and three negative
 * cases (the review skill's limits) and at least five and three (the schema's).
 */
import type { JsonObject, Spec } from "./load.js";
import { annotations } from "./emit-registry.js";

export const SUBMISSION_SCHEMA_URL = "https://developers.openai.com/apps-sdk/schemas/chatgpt-app-submission.v1.json";
const CATEGORIES = [
  "BUSINESS",
  "COLLABORATION",
  "DESIGN",
  "DEVELOPER_TOOLS",
  "EDUCATION",
  "ENTERTAINMENT",
  "FINANCE",
  "FOOD",
  "LIFESTYLE",
  "NEWS",
  "PRODUCTIVITY",
  "SHOPPING",
  "TRAVEL",
];

interface ListingCase {
  example?: string;
  description: string;
  user_prompt: string;
  expected_output: string;
}

export function emitChatgptSubmission(spec: Spec): string {
  const listing = ((spec.raw.info as JsonObject)["x-listing"] ?? {}) as JsonObject;
  const problems: string[] = [];
  const text = (key: string, max = 4000) => {
    const v = listing[key];
    if (typeof v !== "string" || v.trim() === "" || v.length > max) problems.push(`info.x-listing.${key} must be text of 1 to ${max} characters`);
    return String(v ?? "");
  };
  const displayName = text("display_name", 100);
  if (/(mcp|mcp server|plugin)$/i.test(displayName.trim())) problems.push('info.x-listing.display_name must not end in "MCP", "MCP Server" or "Plugin"');
  const category = text("category", 40);
  if (!CATEGORIES.includes(category)) problems.push(`info.x-listing.category must be one of ${CATEGORIES.join(", ")}`);
  const openWorld = text("open_world_justification", 300);

  const cases = (key: string, count: number) => {
    const list = (listing[key] ?? []) as unknown as ListingCase[];
    if (!Array.isArray(list) || list.length !== count) problems.push(`info.x-listing.${key} must hold exactly ${count} cases`);
    return Array.isArray(list) ? list : [];
  };
  const positive = cases("test_cases", 5).map((c) => {
    const [tool, example] = String(c.example ?? "").split("/");
    const method = spec.methods.find((m) => m.name === tool);
    if (!method || !method.examples.some((e) => e.name === example))
      problems.push(`info.x-listing.test_cases: ${String(c.example)} is not an example of the spec (tool/example)`);
    return {
      description: c.description,
      user_prompt: c.user_prompt,
      file_attachment_urls: null,
      tools_triggered: tool ?? "",
      expected_output: c.expected_output,
      expected_output_url: null,
    };
  });
  const negative = cases("negative_test_cases", 3).map((c) => ({
    description: c.description,
    user_prompt: c.user_prompt,
    file_attachment_urls: null,
    tools_triggered: null,
    expected_output: c.expected_output,
    expected_output_url: null,
  }));
  if (problems.length) throw new Error(`the ChatGPT submission (codegen/emit-chatgpt-submission.ts):\n  - ${problems.join("\n  - ")}`);

  const tools = Object.fromEntries(
    spec.methods.map((m) => {
      const { readOnlyHint, openWorldHint, destructiveHint } = annotations(m);
      return [
        m.name,
        {
          annotations: { readOnlyHint, openWorldHint, destructiveHint },
          justifications: { read_only_justification: m.justification, open_world_justification: openWorld, destructive_justification: m.justification },
        },
      ];
    }),
  );
  const submission = {
    $schema: SUBMISSION_SCHEMA_URL,
    schema_version: 1,
    app_info: { display_name: displayName, subtitle: text("subtitle", 30), description: text("description"), category },
    tools,
    test_cases: positive,
    negative_test_cases: negative,
  };
  return `${JSON.stringify(submission, null, 2)}\n`;
}
