/**
 * clients/typescript: the typed client SDK for other teams, generated from openrpc.json with our own small
 * template over the same types as generated/types.ts (docs/decisions.md says why not @open-rpc/generator).
 * One method per tool (camelCase of the tool name), params and result typed, errors as FinanceMcpError with
 * the server's data.code. Kept in its own module; codegen/index.ts only adds its files.
 */
import type { MethodSpec, Spec } from "./load.js";
import { paramsDefName, resultDefName } from "./schemas.js";

const camel = (name: string) => name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
const doc = (text: string) => text.split("\n")[0]!.replace(/\*\//g, "*\\/");

function method(m: MethodSpec): string {
  const optional = !m.params.some((p) => p.required);
  const idem = m.params.some((p) => p.name === "idempotency_key") ? " Pass an idempotency key (newIdempotencyKey()) and reuse it when retrying." : "";
  return [
    `  /** ${doc(m.summary ?? m.description)}${idem} */`,
    `  ${camel(m.name)}(params: T.${paramsDefName(m)}${optional ? " = {}" : ""}): Promise<T.${resultDefName(m)}> {`,
    `    return this.call(${JSON.stringify(m.name)}, params);`,
    "  }",
  ].join("\n");
}

export function emitClient(spec: Spec, banner: string, typesSource: string): Map<string, string> {
  const client = `${banner}
import type * as T from "./types.js";

export type * from "./types.js";

/** A JSON-RPC error of the server; \`data.code\` is the stable name (docs/errors.md), \`data.retryable\` says whether to retry. */
export class FinanceMcpError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: { code: string; retryable?: boolean; field?: string; retry_after_seconds?: number; [k: string]: unknown } | undefined,
    readonly httpStatus: number,
  ) {
    super(message);
    this.name = "FinanceMcpError";
  }
}

export interface FinanceMcpClientOptions {
  /** Another fetch (tests, proxies); the global fetch of Node 18+ and browsers by default. */
  fetch?: typeof fetch;
}

/** A fresh idempotency key for a write; send the same key again when retrying that write. */
export function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}

/** The finance-mcp tools as typed methods. \`url\`: the server (https://host) or its endpoint (…/api/v1/mcp). */
export class FinanceMcpClient {
  readonly endpoint: string;
  private nextId = 1;

  constructor(url: string, private readonly token: string, private readonly options: FinanceMcpClientOptions = {}) {
    this.endpoint = /\\/api\\/v1\\/mcp\\/?$/.test(url) ? url : new URL("/api/v1/mcp", url).toString();
  }

  /** Calls a tool by name (a direct JSON-RPC call); resolves with its result or rejects with FinanceMcpError. */
  async call<R>(tool: string, params: object): Promise<R> {
    const doFetch = this.options.fetch ?? fetch;
    const res = await doFetch(this.endpoint, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", authorization: \`Bearer \${this.token}\` },
      body: JSON.stringify({ jsonrpc: "2.0", id: this.nextId++, method: tool, params }),
    });
    const text = await res.text();
    let body: { result?: unknown; error?: { code: number; message: string; data?: FinanceMcpError["data"] } };
    try {
      body = JSON.parse(text);
    } catch {
      throw new FinanceMcpError(-32700, \`HTTP \${res.status}: the answer is not JSON\`, undefined, res.status);
    }
    if (body.error) throw new FinanceMcpError(body.error.code, body.error.message, body.error.data, res.status);
    return body.result as R;
  }

${spec.methods.map(method).join("\n\n")}
}
`;
  return new Map([
    ["clients/typescript/src/types.ts", typesSource],
    ["clients/typescript/src/index.ts", client],
  ]);
}
