/**
 * JSON-RPC batches on POST /api/v1/mcp, for protocol revision 2025-03-26 only, which says servers MUST
 * accept them (2025-06-18 removed them; 2025-11-25 and 2026-07-28 have none). A batch is served when the
 * request declares 2025-03-26 (that MCP-Protocol-Version header, or none: the revision's default);
 * under any other header it is refused with 400, -32600.
 *
 * Each element passes exactly the checks and the method a single message does (admit → answer), one
 * after the other in array order, so writes apply in the order sent; each counts against the rate limit.
 * The answer is an array of the elements' responses (notifications have none), or 202 with no body when
 * every element was a notification. An element's failure is its own error object in the array; only a
 * missing or invalid token fails the whole batch (401), since no element could run.
 */
import type { Request, Response } from "express";
import { DEFAULT_HEADER_VERSION } from "../mcp/revisions.js";
import { INVALID_REQUEST, protocolError } from "../rpc/protocol-error.js";
import { admit, answer, checkSession, errorAnswer, idOf, isNotification, writeJson, type McpRouteDeps } from "./mcp-exchange.js";
import { authenticate, endpointOf } from "./guards.js";

/** More would let one POST hold the event loop for long; MAX_BODY_BYTES bounds the bytes, this the count. */
export const MAX_BATCH_MESSAGES = 100;

export async function handleBatch(deps: McpRouteDeps, batch: unknown[], req: Request, res: Response, requestId: string): Promise<void> {
  const header = (req.headers["mcp-protocol-version"] as string | undefined)?.trim();
  if (header && header !== DEFAULT_HEADER_VERSION) {
    throw protocolError(
      INVALID_REQUEST,
      `JSON-RPC batches exist only in protocol revision ${DEFAULT_HEADER_VERSION}; this request declares ${header}: send one message per request.`,
      { field: "body" },
      400,
    );
  }
  if (batch.length === 0) throw protocolError(INVALID_REQUEST, "An empty JSON-RPC batch: send at least one message.", { field: "body" }, 400);
  if (batch.length > MAX_BATCH_MESSAGES) {
    throw protocolError(
      INVALID_REQUEST,
      `A batch holds at most ${MAX_BATCH_MESSAGES} messages; this one has ${batch.length}.`,
      { field: "body", expected: `at most ${MAX_BATCH_MESSAGES} messages` },
      400,
    );
  }
  await checkSession(deps, req, await authenticate(deps, req, endpointOf(res)));

  const answers: unknown[] = [];
  for (const element of batch) {
    try {
      const admitted = await admit(deps, element, req, res, "streamable-http");
      if (admitted.msg.method === "initialize") {
        throw protocolError(INVALID_REQUEST, "initialize must not be part of a batch: send it alone.", { field: "method" }, 400);
      }
      if (isNotification(admitted.msg)) continue;
      answers.push((await answer(deps, admitted, requestId)).body);
    } catch (err) {
      answers.push(errorAnswer(deps, idOf(element), err, requestId).body);
    }
  }
  if (answers.length === 0) {
    res.status(202).end();
    return;
  }
  writeJson(res, 200, answers);
}
