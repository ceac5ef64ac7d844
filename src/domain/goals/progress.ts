/**
 * Goal progress as of a day (openrpc.json, GoalProgress), exactly, in BigInt minor units:
 * - remaining = max(target − saved, 0); percent = saved / target × 100, half up to 2 decimals.
 * - months_left = days from today to target_date / 30.4375 (= days × 16 / 487), rounded down to one
 *   decimal; 0 once the date is today or past.
 * - needed_per_month = remaining / months_left (the rounded figure, as a user would divide), rounded up
 *   to the minor unit; the whole remaining amount when months_left < 1; 0 when nothing remains.
 * - on_track: true when nothing remains ("true once achieved"); otherwise the net contributions dated in
 *   the last 90 days (today and the 89 days before) divided by 3 are at least needed_per_month, compared
 *   exactly as recent ≥ 3 × needed.
 * - A missing target amount makes remaining, percent, needed_per_month and on_track null; a missing
 *   target date makes months_left and needed_per_month null, and on_track null unless nothing remains.
 */
import type { GoalContribution, GoalProgress } from "../../../generated/types.js";
import { toMoney } from "../../money/amount.js";
import { addDays, daysBetween } from "../../calendar/days.js";
import type { GoalRecord } from "./store.js";

/** The days counted as "recent" for on_track: today and the 89 before it. */
export const RECENT_DAYS = 90;

export function recentWindow(today: string): { from: string; to: string } {
  return { from: addDays(today, -(RECENT_DAYS - 1)), to: today };
}

export function computeProgress(g: GoalRecord, saved: bigint, recentSum: bigint, recent: GoalContribution[], today: string): GoalProgress {
  const target = g.targetMinor;
  const remaining = target === null ? null : target - saved > 0n ? target - saved : 0n;
  const percent = target === null ? null : Number((2n * (saved > 0n ? saved : 0n) * 10_000n + target) / (2n * target)) / 100;

  let tenths: bigint | null = null; // months_left × 10
  if (g.targetDate !== null) {
    const days = daysBetween(today, g.targetDate);
    tenths = days <= 0 ? 0n : (BigInt(days) * 160n) / 487n;
  }
  let needed: bigint | null = null;
  if (remaining !== null && tenths !== null) {
    if (remaining === 0n) needed = 0n;
    else if (tenths < 10n) needed = remaining;
    else needed = (remaining * 10n + tenths - 1n) / tenths;
  }
  let onTrack: boolean | null = null;
  if (remaining !== null) {
    if (remaining === 0n) onTrack = true;
    else if (needed !== null) onTrack = recentSum >= 3n * needed;
  }
  return {
    goal_id: g.id,
    name: g.name,
    status: g.status,
    target_amount: target === null ? null : toMoney(target, g.currency),
    saved: toMoney(saved, g.currency),
    remaining: remaining === null ? null : toMoney(remaining, g.currency),
    percent,
    target_date: g.targetDate,
    months_left: tenths === null ? null : Number(tenths) / 10,
    needed_per_month: needed === null ? null : toMoney(needed, g.currency),
    on_track: onTrack,
    recent_contributions: recent as GoalProgress["recent_contributions"],
  };
}
