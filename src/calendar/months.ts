/** Months as `YYYY-MM`, for what a person picks from a menu (completion of a month argument). */
import { monthStart } from "./days.js";

/** `count` months back from the month of `today` (itself first), as `YYYY-MM`. */
export function recentMonths(today: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => monthStart(today, -i).slice(0, 7));
}
