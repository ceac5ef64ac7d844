/**
 * A JSON-RPC result that is already JSON text. tools/list answers ~290 KB, and JSON.stringify of it was a
 * third of that method's CPU, so its text is made once and spliced into each response instead.
 */
export class SerializedJson {
  constructor(readonly json: string) {}

  /** Any path that does not know about pre-serialised results (a test, a log) still sees the value. */
  toJSON(): unknown {
    return JSON.parse(this.json);
  }
}

/**
 * JSON.stringify of a JSON-RPC response, splicing in a pre-serialised result. The bytes are exactly those
 * JSON.stringify would give for the same response with the parsed result, because `result` is the last
 * key of every response this server builds ({jsonrpc, id, result}).
 */
export function stringifyResponse(body: unknown): string {
  if (body !== null && typeof body === "object" && "result" in body) {
    const { result, ...rest } = body as { result: unknown };
    if (result instanceof SerializedJson) {
      const head = JSON.stringify(rest);
      return `${head.slice(0, -1)}${head.length > 2 ? "," : ""}"result":${result.json}}`;
    }
  }
  return JSON.stringify(body);
}
