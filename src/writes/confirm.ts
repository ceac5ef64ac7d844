/**
 * Confirmation through the client, in front of the write pipeline (docs/protocol.md, "Confirmation
 * through the client"). A write listed in openrpc.json info.x-confirm (generated/confirm.ts), called by a
 * client that can ask its person (a ConfirmChannel, built by the MCP layer from the client's declared
 * elicitation capability), commits only after the person accepts:
 *
 *   the call's key already committed → the pipeline replays it; nothing to ask;
 *   dry run → the preview; under the rule's row threshold → commit without asking;
 *   ask (with the preview) → accept: commit; decline or cancel: confirmation_declined, nothing written.
 *
 * The accept commits what the dialog showed: a bulk write's dry run answers a preview_id, which the commit
 * is bound to (kept in the wait, or in the signed requestState of a 2026-07-28 retry), so rows changed
 * while the person read are stale_preview, as for a commit passing that preview_id (issue 51).
 *
 * A 2026-07-28 retry carries its answer (channel.carried): it was asked before, so it is not asked again.
 * Without a channel (a direct call, a client without elicitation, a revision without it) nothing changes:
 * the dry-run-then-commit flow of every write. Dry runs are never asked about.
 */
import { confirmRules, type ConfirmRule } from "../../generated/confirm.js";
import { AppError } from "../errors.js";
import type { ToolContext } from "../context.js";
import { findKey } from "./idempotency.js";
import { dialogPreviewOf } from "./preview.js";
import type { WriteHandler } from "./pipeline.js";

export type ConfirmAnswer = "accept" | "decline" | "cancel";

export interface ConfirmQuestion {
  tool: string;
  title: string;
  /** The dry run's answer: what the write would do. */
  preview: Record<string, unknown>;
  params: Record<string, unknown>;
}

/** A person's answer, and the preview_id of the dry run they were shown (bulk writes only). */
export interface CarriedAnswer {
  answer: ConfirmAnswer;
  previewId?: string;
}

/** How a transport asks the person behind the client; the MCP layer makes one per call (src/mcp/confirm-channels.ts). */
export interface ConfirmChannel {
  /** The answer this call already carries (a 2026-07-28 retry), checked and claimed; undefined when it carries none. */
  carried?(tool: string, params: Record<string, unknown>): Promise<CarriedAnswer | undefined>;
  /** Asks the person and returns their answer, or throws what ends the call until the client retries with it. */
  ask(question: ConfirmQuestion): Promise<ConfirmAnswer>;
}

/**
 * Thrown by a channel whose question ends the call (2026-07-28): the client comes back with the
 * person's answer in a new call. Not a failure: nothing was written, and the transport turns `result`
 * into its answer (src/mcp/tools.ts: an input_required result); metrics count it apart.
 */
export class AwaitingConfirmation extends Error {
  constructor(readonly result: Record<string, unknown>) {
    super("awaiting the person's confirmation");
  }
}

/** The write pipeline (src/writes/pipeline.ts); `shownPreview` binds the commit to the preview a dialog showed. */
export type RunWrite = (
  tool: string,
  params: Record<string, unknown>,
  ctx: ToolContext,
  handler: WriteHandler,
  shownPreview?: string,
) => Promise<Record<string, unknown>>;

/** The preview_id a dry run answered (bulk writes), or kept beside its answer (deletes), which the confirmed commit is bound to. */
export function shownPreviewOf(preview: Record<string, unknown>): string | undefined {
  return typeof preview.preview_id === "string" ? preview.preview_id : dialogPreviewOf(preview);
}

/** The number at a JSON pointer of the preview (an array counts its items); 0 when absent. */
function countAt(preview: Record<string, unknown>, pointer: string): number {
  let node: unknown = preview;
  for (const part of pointer.slice(1).split("/")) {
    node = node !== null && typeof node === "object" ? (node as Record<string, unknown>)[part.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined;
  }
  return Array.isArray(node) ? node.length : typeof node === "number" ? node : 0;
}

/** Whether the person must confirm this write, given its dry run. */
export function mustConfirm(rule: ConfirmRule, preview: Record<string, unknown>): boolean {
  return rule.rows === undefined || rule.over === undefined || countAt(preview, rule.rows) > rule.over;
}

export function needsConfirmation(tool: string): boolean {
  return confirmRules.has(tool);
}

function notConfirmed(answer: "decline" | "cancel", title: string): AppError {
  const said = answer === "decline" ? "The person declined" : "The person closed the confirmation without answering";
  return new AppError(
    "confirmation_declined",
    `${said} when their client asked them to confirm "${title}". Nothing was changed. Tell them so; call again only if they ask for it.`,
    { answer },
  );
}

export async function confirmThenWrite(
  runWrite: RunWrite,
  tool: { name: string; title: string },
  params: Record<string, unknown>,
  ctx: ToolContext,
  handler: WriteHandler,
  channel: ConfirmChannel | undefined,
): Promise<Record<string, unknown>> {
  const rule = confirmRules.get(tool.name);
  if (!rule || !channel || params.dry_run === true) return runWrite(tool.name, params, ctx, handler);
  let carried = await channel.carried?.(tool.name, params);
  if (carried === undefined) {
    // A retry of a call that committed: the pipeline answers "replayed" and writes nothing; do not ask.
    if (await findKey(ctx.db, ctx.caller.userId, String(params.idempotency_key))) return runWrite(tool.name, params, ctx, handler);
    const preview = await runWrite(tool.name, { ...params, dry_run: true }, ctx, handler);
    if (!mustConfirm(rule, preview)) return runWrite(tool.name, params, ctx, handler);
    carried = { answer: await channel.ask({ tool: tool.name, title: tool.title, preview, params }), previewId: shownPreviewOf(preview) };
  }
  if (carried.answer === "accept") return runWrite(tool.name, params, ctx, handler, carried.previewId);
  throw notConfirmed(carried.answer, tool.title);
}
