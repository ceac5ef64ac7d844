import type { Warning } from "../../../generated/types.js";
import { formatMinor } from "../../money/amount.js";
import type { GoalRecord } from "./store.js";

export function achievedWarning(g: GoalRecord, saved: bigint): Warning {
  const target = g.targetMinor ?? 0n;
  return {
    code: "goal_achieved",
    message: `Goal "${g.name}" reached its target: ${formatMinor(saved, g.currency)} of ${formatMinor(target, g.currency)} ${g.currency} saved. Its status is now achieved.`,
  };
}

export function contributionsRemovedWarning(count: number, saved: bigint, currency: string, dryRun: boolean): Warning {
  const what = `${count} contribution${count === 1 ? "" : "s"} totalling ${formatMinor(saved, currency)} ${currency}`;
  return {
    code: "contributions_removed",
    message: `${what} ${dryRun ? "would be" : "were"} removed with the goal; they stay in the audit log and no wallet balance changes.`,
  };
}
