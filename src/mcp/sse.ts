/**
 * Server-Sent Events for the HTTP+SSE transport (2024-11-05) and the change events it carries.
 *
 * A stream belongs to the user whose token opened it. It carries, as `message` events:
 *   - the JSON-RPC responses to the messages posted to its endpoint URL;
 *   - one `notifications/finance/changed` notification per committed write of its user, whose SSE id is
 *     the audit id, so that a client reconnecting with Last-Event-ID gets what it missed from the audit
 *     log (src/writes/audit.ts), whichever server process committed the write.
 */
import type { ServerResponse } from "node:http";
import type { AuditEntry } from "../audit/log.js";
import { stringifyResponse } from "./serialized.js";

export const CHANGE_NOTIFICATION = "notifications/finance/changed";

/** A stream whose client reads slower than this much unsent output is closed; it reconnects and replays. */
export const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

export interface ChangeParams {
  audit_id: string;
  tool: string;
  action: string;
  resource_type: string;
  resource_id: string;
  created_at: string;
}

export function changeNotification(entry: AuditEntry): { jsonrpc: "2.0"; method: string; params: ChangeParams } {
  return {
    jsonrpc: "2.0",
    method: CHANGE_NOTIFICATION,
    params: {
      audit_id: entry.id,
      tool: entry.tool,
      action: entry.action,
      resource_type: entry.resource_type,
      resource_id: entry.resource_id,
      created_at: entry.created_at,
    },
  };
}

/** One SSE event in wire format. Data never contains a newline here (compact JSON or a path). */
export function formatEvent(event: string, data: string, id?: string): string {
  return `${id !== undefined ? `id: ${id}\n` : ""}event: ${event}\ndata: ${data}\n\n`;
}

export class SseStream {
  closed = false;
  private readonly cleanups: (() => void)[] = [];

  constructor(
    readonly id: string,
    readonly userId: string,
    readonly tokenId: string,
    private readonly res: ServerResponse,
  ) {
    res.on("close", () => this.close());
  }

  private write(chunk: string): void {
    if (this.closed) return;
    this.res.write(chunk);
    if (this.res.writableLength > MAX_BUFFERED_BYTES) this.close();
  }

  event(event: string, data: string, id?: string): void {
    this.write(formatEvent(event, data, id));
  }

  message(payload: unknown, id?: string): void {
    this.event("message", stringifyResponse(payload), id);
  }

  comment(text: string): void {
    this.write(`: ${text}\n\n`);
  }

  onClose(fn: () => void): void {
    if (this.closed) fn();
    else this.cleanups.push(fn);
  }

  /** Tells the client to reconnect after retryMs (the SSE `retry` field), then ends the stream. */
  reconnect(retryMs: number): void {
    this.write(`retry: ${retryMs}\n\n`);
    this.close();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const fn of this.cleanups.splice(0)) {
      try {
        fn();
      } catch {
        // a cleanup failing must not keep the others from running
      }
    }
    if (!this.res.writableEnded) this.res.end();
  }
}

/** The open streams of this process, by id (the id is in the endpoint URL; it is not a credential). */
export class SseStreams {
  private readonly byId = new Map<string, SseStream>();

  add(stream: SseStream): void {
    this.byId.set(stream.id, stream);
    stream.onClose(() => this.byId.delete(stream.id));
  }

  get(id: string): SseStream | undefined {
    return this.byId.get(id);
  }

  get size(): number {
    return this.byId.size;
  }

  /** Open streams of a token and of a user on this process (the caps of SSE_MAX_STREAMS_PER_*). */
  openCount(tokenId: string, userId: string): { token: number; user: number } {
    let token = 0;
    let user = 0;
    for (const s of this.byId.values()) {
      if (s.userId !== userId) continue;
      user++;
      if (s.tokenId === tokenId) token++;
    }
    return { token, user };
  }

  closeAll(): void {
    for (const s of [...this.byId.values()]) s.close();
  }

  /** Shutdown: every stream is told to reconnect (to another process) and ended. */
  reconnectAll(retryMs: number): void {
    for (const s of [...this.byId.values()]) s.reconnect(retryMs);
  }
}
