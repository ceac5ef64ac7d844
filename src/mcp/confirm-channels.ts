/**
 * How a confirmation reaches the person, per revision (docs/protocol.md, "Confirmation through the
 * client"); the decision and the commit are the write pipeline's (src/writes/confirm.ts).
 *
 *   2025-06-18, 2025-11-25 (Streamable HTTP, a client that declared elicitation at initialize and accepts
 *     text/event-stream): an elicitation/create request on the tools/call answer's stream; the call
 *     waits for the client's answer (REQUEST_STATE_TTL_MS at most; no answer = cancel).
 *   2026-07-28 (the request's _meta declares elicitation): an input_required result carrying the
 *     question and a signed requestState; the client retries with the answer in inputResponses.
 *   Anything else (2025-03-26, the SSE transport's 2024-11-05, direct calls, no capability): no channel.
 */
import type { Knex } from "knex";
import type { Caller } from "../context.js";
import type { ConfirmAnswer, ConfirmChannel, ConfirmQuestion } from "../writes/confirm.js";
import { AwaitingConfirmation, needsConfirmation, shownPreviewOf } from "../writes/confirm.js";
import { redeemRequestState, signRequestState } from "../writes/request-state.js";
import { declaresFormElicitation, sessionClientElicits } from "./client-capabilities.js";
import { modelText } from "./model-text.js";
import { META_CLIENT_CAPABILITIES } from "./revisions.js";
import type { McpContext } from "./types.js";

/** The revisions of the initialize era that have elicitation. */
const LEGACY_ELICITING = new Set(["2025-06-18", "2025-11-25"]);
/** The key of the one input request in an input_required result. */
export const CONFIRM_INPUT = "confirm";
const MESSAGE_CHARS = 1500;

/** What the person reads: the tool's title, then what its dry run says it would do (ids, amounts, counts). */
export function confirmMessage(q: ConfirmQuestion): string {
  const { status: _s, audit_id: _a, warnings: _w, preview_id: _p, ...what } = q.preview;
  const text = modelText(what);
  return `Confirm: ${q.title}?\n${text.length > MESSAGE_CHARS ? `${text.slice(0, MESSAGE_CHARS)}…` : text}`;
}

/** The elicitation/create params: a question with no fields; accept, decline or cancel is the answer. */
export function confirmElicitation(q: ConfirmQuestion): Record<string, unknown> {
  return { message: confirmMessage(q), requestedSchema: { type: "object", properties: {} } };
}

function answerOf(result: unknown): ConfirmAnswer {
  const action = result !== null && typeof result === "object" ? (result as Record<string, unknown>).action : undefined;
  return action === "accept" || action === "decline" ? action : "cancel";
}

export interface ChannelDeps {
  db: Knex;
  now: () => Date;
}

function metaCapabilities(params: Record<string, unknown>): unknown {
  const meta = params._meta;
  return meta !== null && typeof meta === "object" ? (meta as Record<string, unknown>)[META_CLIENT_CAPABILITIES] : undefined;
}

function modernChannel(deps: ChannelDeps, caller: Caller, params: Record<string, unknown>): ConfirmChannel {
  return {
    async carried(tool, args) {
      const responses = params.inputResponses;
      const response = responses !== null && typeof responses === "object" ? (responses as Record<string, unknown>)[CONFIRM_INPUT] : undefined;
      // No answer to our question (or no state): ask afresh, with a new state.
      if (response === undefined || params.requestState === undefined) return undefined;
      const { shownPreview } = await redeemRequestState(deps.db, params.requestState, caller, tool, args, deps.now());
      return { answer: answerOf(response), previewId: shownPreview };
    },
    async ask(q) {
      // The preview the person is shown travels in the signed state: the retry's commit is bound to it.
      const requestState = await signRequestState(deps.db, caller, q.tool, q.params, deps.now(), shownPreviewOf(q.preview));
      // The call ends here; the MCP layer answers input_required with this (src/mcp/tools.ts).
      throw new AwaitingConfirmation({ inputRequests: { [CONFIRM_INPUT]: { method: "elicitation/create", params: confirmElicitation(q) } }, requestState });
    },
  };
}

/** The channel of one tools/call, or undefined when this call cannot ask (today's flow). */
export async function confirmChannel(deps: ChannelDeps, tool: string, params: Record<string, unknown>, ctx: McpContext): Promise<ConfirmChannel | undefined> {
  if (!needsConfirmation(tool)) return undefined;
  if (ctx.revision.era === "modern") return declaresFormElicitation(metaCapabilities(params)) ? modernChannel(deps, ctx.caller, params) : undefined;
  const requester = ctx.clientRequests;
  if (!requester || !LEGACY_ELICITING.has(ctx.revision.version) || !(await sessionClientElicits(deps.db, ctx.caller.tokenId, ctx.sessionId))) return undefined;
  return { ask: async (q) => answerOf(await requester.request("elicitation/create", confirmElicitation(q))) };
}
