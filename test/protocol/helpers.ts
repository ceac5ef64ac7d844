/**
 * Helpers of the protocol tests: raw HTTP (any Host/Origin header), an SSE reader, and publishing a
 * change the way the write pipeline does (audit row in a transaction, pg_notify on Postgres, then
 * bus.published after commit).
 */
import http from "node:http";
import { randomUUID } from "node:crypto";
import { dialect } from "../../src/db/knex.js";
import { NOTIFY_CHANNEL } from "../../src/events/bus.js";
import { insertAuditRow, readAuditEntry, type AuditEntry } from "../../src/audit/log.js";
import type { TestServer } from "../helpers/server.js";

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: any;
}

/** One HTTP request with exactly the given headers (fetch would not send a foreign Host). */
export function raw(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawAnswer> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: u.hostname, port: u.port, path: u.pathname + u.search, method: options.method ?? "POST", headers: options.headers ?? {} },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => {
          let json: any;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    req.on("error", reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

export const JSON_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

export const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "protocol-test", version: "0.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** A 2026-07-28 request: _meta in the body, the mirrored headers. */
export function modernRequest(id: number, method: string, params: Record<string, unknown> = {}): { body: unknown; headers: Record<string, string> } {
  const headers: Record<string, string> = { "mcp-protocol-version": "2026-07-28", "mcp-method": method };
  if (method === "tools/call" || method === "prompts/get") headers["mcp-name"] = String(params.name);
  if (method === "resources/read") headers["mcp-name"] = String(params.uri);
  return { body: { jsonrpc: "2.0", id, method, params: { ...params, _meta: MODERN_META } }, headers };
}

export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

/** An open SSE connection read event by event; comments are kept apart (keep-alives). */
export class SseReader {
  readonly events: SseEvent[] = [];
  readonly comments: string[] = [];
  ended = false;
  private buffer = "";
  private waiters: (() => void)[] = [];
  private constructor(
    readonly response: Response,
    private readonly abort: AbortController,
  ) {}

  static async open(url: string, headers: Record<string, string>): Promise<SseReader> {
    const abort = new AbortController();
    const response = await fetch(url, { headers: { accept: "text/event-stream", ...headers }, signal: abort.signal });
    const reader = new SseReader(response, abort);
    if (response.ok && response.body) void reader.pump(response.body);
    return reader;
  }

  private async pump(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
        this.buffer += decoder.decode(chunk, { stream: true });
        let i: number;
        while ((i = this.buffer.indexOf("\n\n")) >= 0) {
          const block = this.buffer.slice(0, i);
          this.buffer = this.buffer.slice(i + 2);
          this.parse(block);
        }
        this.wake();
      }
    } catch {
      // aborted
    }
    this.ended = true;
    this.wake();
  }

  private parse(block: string): void {
    const ev: SseEvent = { event: "message", data: "" };
    const data: string[] = [];
    let isComment = true;
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) {
        this.comments.push(line.slice(1).trim());
        continue;
      }
      isComment = false;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") ev.event = value;
      else if (field === "data") data.push(value);
      else if (field === "id") ev.id = value;
    }
    if (isComment) return;
    ev.data = data.join("\n");
    this.events.push(ev);
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Waits until pred holds (checked on every chunk), or fails after timeoutMs. */
  async until<T>(pred: () => T | undefined | false, timeoutMs = 5000, what = "an SSE event"): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = pred();
      if (v) return v;
      if (this.ended) throw new Error(`stream ended while waiting for ${what}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** The JSON-RPC messages of `message` events. */
  messages(): any[] {
    return this.events.filter((e) => e.event === "message").map((e) => ({ ...JSON.parse(e.data), __id: e.id }));
  }

  async reply(id: number | string, timeoutMs = 5000): Promise<any> {
    return this.until(() => this.messages().find((m) => m.id === id), timeoutMs, `the response to ${id}`);
  }

  async endpoint(): Promise<string> {
    const ev = await this.until(() => this.events.find((e) => e.event === "endpoint"), 5000, "the endpoint event");
    return ev.data;
  }

  close(): void {
    this.abort.abort();
  }
}

/** Commits an audit entry for the user exactly as the write pipeline does, and publishes it. */
export async function publishChange(server: TestServer, userId: string, overrides: { tool?: string; resourceId?: string } = {}): Promise<AuditEntry> {
  const db = server.db;
  const id = await db.transaction(async (trx) => {
    const auditId = await insertAuditRow(trx, {
      userId,
      tokenId: null,
      tool: overrides.tool ?? "create_wallet",
      idempotencyKey: randomUUID(),
      requestId: randomUUID(),
      at: new Date().toISOString(),
      change: {
        action: "create",
        resourceType: "wallet",
        resourceId: overrides.resourceId ?? `wal_${randomUUID().replace(/-/g, "").slice(0, 20)}`,
        before: null,
        after: { name: "Test" },
      },
    });
    if (dialect(trx) === "postgres") await trx.raw("SELECT pg_notify(?, ?)", [NOTIFY_CHANNEL, auditId]);
    return auditId;
  });
  const entry = await readAuditEntry(db, id);
  if (!entry) throw new Error(`audit entry ${id} not found after commit`);
  server.services.bus.published(entry);
  return entry;
}
