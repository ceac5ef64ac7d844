/**
 * The due dates of a stored rule (RRULE + start date): by arithmetic (periodic.ts) for the rules toRRule
 * writes, so that the cost does not grow with the bill's age, and with the `rrule` package for any other.
 */
import rrulePkg from "rrule";
import type { Options as RRuleOptions } from "rrule";
import { formatDay, formatDayNumber, LAST_EPOCH_DAY, MS_PER_DAY, requireDay } from "../../calendar/days.js";
import { parseSimpleRule, type SimpleRule, simpleOccurrences } from "./periodic.js";
import { DEFAULT_OCCURRENCE_LIMIT, MAX_OCCURRENCE_LIMIT } from "./schedule-types.js";

// rrule 2.8.1 has no "exports" map and no "type": Node's ESM loader (and tsx) sees its CommonJS
// (UMD) build, whose named exports are not detectable: `import { RRule } from 'rrule'` fails at
// run time. The default import is the CommonJS `module.exports` object.
const { RRule } = rrulePkg;

type RRuleInstance = InstanceType<typeof RRule>;

function buildRule(rrule: string, startDate: string): RRuleInstance {
  const dtstart = requireDay(startDate, "start_date");
  if (typeof rrule !== "string" || !/^(RRULE:)?FREQ=/i.test(rrule.trim()) || /DTSTART|TZID|[\r\n]/i.test(rrule)) {
    throw new Error(`not a stored bill RRULE: ${JSON.stringify(rrule)}`);
  }
  let options: Partial<RRuleOptions>;
  try {
    options = RRule.parseString(rrule.trim());
  } catch (e) {
    throw new Error(`cannot parse RRULE ${JSON.stringify(rrule)}: ${(e as Error).message}`, { cause: e });
  }
  if (options.freq === undefined) throw new Error(`RRULE without FREQ: ${JSON.stringify(rrule)}`);
  // No tzid: the rule works on UTC midnights standing for calendar days. noCache: rules are
  // built per call and thrown away.
  return new RRule({ ...options, dtstart, tzid: null }, true);
}

const simpleRuleCache = new Map<string, SimpleRule | null>();

/**
 * parseSimpleRule, remembered per (start date, RRULE): list_bill_reminders asks for every bill twice
 * per call, and the parse cost more than the arithmetic. Entries are immutable and few (one per
 * stored bill schedule); the bound only keeps a flood of distinct rules from growing it.
 */
function simpleRuleFor(rrule: string, startDate: string): SimpleRule | null {
  if (typeof rrule !== "string") return null;
  const key = `${startDate}|${rrule}`;
  let rule = simpleRuleCache.get(key);
  if (rule === undefined) {
    rule = parseSimpleRule(rrule, requireDay(startDate, "start_date"));
    if (simpleRuleCache.size >= 1000) simpleRuleCache.clear();
    simpleRuleCache.set(key, rule);
  }
  return rule;
}

function checkLimit(limit: number, field: string): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_OCCURRENCE_LIMIT) {
    throw new RangeError(`${field} must be an integer from 1 to ${MAX_OCCURRENCE_LIMIT}, got ${String(limit)}`);
  }
}

/**
 * The due dates of the rule (stored RRULE + start date) from `from` to `to`, both inclusive,
 * in order, at most `limit` (default 1000) of them. Empty when `to` is before `from`.
 */
export function occurrencesBetween(rrule: string, startDate: string, from: string, to: string, limit = DEFAULT_OCCURRENCE_LIMIT): string[] {
  checkLimit(limit, "limit");
  const fromDay = requireDay(from, "from");
  const toDay = requireDay(to, "to");
  const simple = simpleRuleFor(rrule, startDate);
  if (simple) {
    if (toDay.getTime() < fromDay.getTime()) return [];
    return simpleOccurrences(simple, fromDay.getTime() / MS_PER_DAY, toDay.getTime() / MS_PER_DAY, limit).map(formatDayNumber);
  }
  const rule = buildRule(rrule, startDate);
  if (toDay.getTime() < fromDay.getTime()) return [];
  return rule.between(fromDay, toDay, true, (_d, i) => i < limit).map(formatDay);
}

/**
 * The next `n` due dates strictly after `after` (or on or after it with `inclusive`), in order;
 * fewer when the series ends first. For "the next three due dates as of today" pass today and
 * `inclusive: true`, so that a bill due today is listed.
 */
export function nextOccurrences(rrule: string, startDate: string, after: string, n: number, inclusive = false): string[] {
  checkLimit(n, "n");
  const afterDay = requireDay(after, "after");
  const end = new Date(LAST_EPOCH_DAY * MS_PER_DAY);
  const simple = simpleRuleFor(rrule, startDate);
  if (simple) {
    // Due dates are whole days, so "strictly after" is "on or after the next day".
    const from = afterDay.getTime() / MS_PER_DAY + (inclusive ? 0 : 1);
    return simpleOccurrences(simple, from, end.getTime() / MS_PER_DAY, n).map(formatDayNumber);
  }
  const rule = buildRule(rrule, startDate);
  return rule.between(afterDay, end, inclusive, (_d, i) => i < n).map(formatDay);
}
