/**
 * The answer of one POST as a stream (Streamable HTTP, 2025-06-18 and 2025-11-25): when a tools/call must
 * ask the person (src/mcp/confirm-channels.ts), the answer turns into text/event-stream, carries the
 * server's request (elicitation/create) as an event, waits for the client's response, which the client
 * POSTs to the same endpoint as a JSON-RPC response, and ends with the call's own response.
 *
 * Waiting requests live in the process that asked (Questions, one per app). A response POSTed to another
 * process over the same Postgres is relayed there through the change bus's NOTIFY channel (its action
 * only), so no load-balancer affinity is needed. 2026-07-28 needs none of this.
 */
import { randomUUID } from "node:crypto";
import type { Request, Response } from "express";
import type { Caller } from "../context.js";
import type { ClientRequests } from "../mcp/types.js";
import type { McpEndpoint } from "../oauth/urls.js";
import { REQUEST_STATE_TTL_MS } from "../writes/request-state.js";

/** A comment every 15 s while the person reads, so no proxy closes an idle stream. */
const KEEPALIVE_MS = 15_000;

interface Waiting {
  tokenId: string;
  /** The endpoint whose call asked: its answer is taken there only. */
  endpoint: McpEndpoint;
  settle: (result: unknown) => void;
}

/** Server→client requests of one app waiting for their response, by JSON-RPC id (random: not guessable). */
export class Questions {
  private readonly waiting = new Map<string, Waiting>();

  add(id: string, w: Waiting): void {
    this.waiting.set(id, w);
  }

  /** Ends a wait; false when it had ended already. */
  remove(id: string): boolean {
    return this.waiting.delete(id);
  }

  /**
   * Hands a client's response to the request waiting for it. False when none waits here under that id for
   * this token (answered already, timed out, another process's, or another token's).
   */
  deliver(id: unknown, tokenId: string, endpoint: McpEndpoint, result: unknown): boolean {
    if (typeof id !== "string") return false;
    const w = this.waiting.get(id);
    if (!w || w.tokenId !== tokenId || w.endpoint !== endpoint) return false;
    w.settle(result);
    return true;
  }

  /** A response relayed from another process: `{id, token_id, endpoint, action}`. */
  deliverRelayed(payload: string): void {
    try {
      const r = JSON.parse(payload) as { id?: unknown; token_id?: unknown; endpoint?: unknown; action?: unknown };
      const endpoint = r.endpoint === "read" ? "read" : "full";
      if (typeof r.token_id === "string") this.deliver(r.id, r.token_id, endpoint, typeof r.action === "string" ? { action: r.action } : undefined);
    } catch {
      // not ours to read: ignore
    }
  }
}

function accepts(req: Request, type: string): boolean {
  const accept = req.headers.accept;
  return typeof accept === "string" && accept.includes(type);
}

export class AnswerStream implements ClientRequests {
  private opened = false;

  constructor(
    private readonly questions: Questions,
    private readonly res: Response,
    private readonly caller: Caller,
    private readonly endpoint: McpEndpoint,
  ) {}

  /** Only a client that reads event streams can be asked; others get no stream (and are never asked). */
  static for(questions: Questions, req: Request, res: Response, caller: Caller, endpoint: McpEndpoint): AnswerStream | undefined {
    return accepts(req, "text/event-stream") ? new AnswerStream(questions, res, caller, endpoint) : undefined;
  }

  get isOpen(): boolean {
    return this.opened;
  }

  private open(): void {
    if (this.opened) return;
    this.opened = true;
    this.res.statusCode = 200;
    this.res.setHeader("Content-Type", "text/event-stream");
    this.res.setHeader("Cache-Control", "no-cache, no-transform");
    this.res.flushHeaders();
  }

  private event(message: unknown): void {
    this.res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  request(method: string, params: Record<string, unknown>): Promise<unknown> {
    this.open();
    const id = `finance-mcp-${randomUUID()}`;
    return new Promise((resolve) => {
      const keepAlive = setInterval(() => this.res.write(": waiting for the person\n\n"), KEEPALIVE_MS);
      const timer = setTimeout(() => settle(undefined), REQUEST_STATE_TTL_MS);
      const onClose = () => settle(undefined);
      const settle = (result: unknown) => {
        if (!this.questions.remove(id)) return;
        clearTimeout(timer);
        clearInterval(keepAlive);
        this.res.off("close", onClose);
        resolve(result);
      };
      this.questions.add(id, { tokenId: this.caller.tokenId, endpoint: this.endpoint, settle });
      this.res.on("close", onClose);
      this.event({ jsonrpc: "2.0", id, method, params });
    });
  }

  /** The call's own response, the stream's last event. */
  finish(body: unknown): void {
    this.event(body);
    this.res.end();
  }
}

/** An error response is no answer: the person was not asked, so nothing is confirmed. */
export function resultOf(body: { result?: unknown; error?: unknown }): unknown {
  return body.error === undefined ? body.result : undefined;
}

/** A POSTed JSON-RPC response: {jsonrpc, id, result} or {jsonrpc, id, error}, and no method. */
export function isClientResponse(body: unknown): body is { id: unknown; result?: unknown; error?: unknown } {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return false;
  const b = body as Record<string, unknown>;
  return b.method === undefined && "id" in b && ("result" in b || "error" in b);
}
