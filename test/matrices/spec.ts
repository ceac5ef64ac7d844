/**
 * What the matrices read from the contract: each tool's first example params (openrpc.json) and, when
 * the protocol layer answers it, MCP tools/list.
 */
import { readFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import type { TestServer } from "../helpers/server.js";

interface SpecMethod {
  name: string;
  examples: Array<{ params: Array<{ name: string; value: unknown }> }>;
}

const spec = JSON.parse(readFileSync(new URL("../../openrpc.json", import.meta.url), "utf8")) as { methods: SpecMethod[] };
export const specMethods: readonly SpecMethod[] = spec.methods;

/** The first example's params of a method, as an object; a fresh idempotency_key when it has one. */
export function exampleParams(tool: string): Record<string, unknown> {
  const m = spec.methods.find((x) => x.name === tool);
  if (!m) throw new Error(`no method ${tool} in openrpc.json`);
  const params = Object.fromEntries((m.examples[0]?.params ?? []).map((p) => [p.name, structuredClone(p.value)]));
  if ("idempotency_key" in params) params.idempotency_key = randomUUID();
  return params;
}

export const LEGACY_MCP_VERSION = "2025-11-25";

/**
 * MCP tools/list for a token: the names, all pages.
 */
export async function mcpToolNames(server: TestServer, token: string): Promise<string[]> {
  const names: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 50; page++) {
    const answer = await server.rpc({ jsonrpc: "2.0", id: page + 1, method: "tools/list", params: cursor ? { cursor } : {} }, token, {
      "mcp-protocol-version": LEGACY_MCP_VERSION,
    });
    if (answer.status !== 200 || !answer.body?.result) throw new Error(`tools/list answered ${answer.status} ${JSON.stringify(answer.body)}`);
    names.push(...(answer.body.result.tools as Array<{ name: string }>).map((t) => t.name));
    cursor = answer.body.result.nextCursor;
    if (!cursor) return names;
  }
  throw new Error("tools/list did not end within 50 pages");
}
