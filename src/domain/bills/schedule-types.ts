/** A bill schedule's shape as it crosses the tool boundary, and its bounds (rules: schedule.ts). */
import { schemaBounds } from "../../../generated/limits.js";
import type { WeekdayCode } from "../../calendar/names.js";

export const FREQUENCIES = ["once", "daily", "weekly", "biweekly", "monthly", "quarterly", "yearly"] as const;
export type Frequency = (typeof FREQUENCIES)[number];

/** The schedule as it crosses the tool boundary. */
export interface Schedule {
  frequency: Frequency;
  /** YYYY-MM-DD, the earliest possible due date. */
  start_date: string;
  /** Every N periods; default 1. */
  interval?: number;
  /** 1..31, or -1 for the last day of the month. */
  day_of_month?: number;
  weekday?: WeekdayCode;
  /** YYYY-MM-DD, inclusive. */
  end_date?: string;
  count?: number;
}

/** The spec's BillSchedule bounds (generated from openrpc.json; never restated here). */
export const MAX_INTERVAL: number = schemaBounds.BillSchedule.interval.maximum;
export const MAX_COUNT: number = schemaBounds.BillSchedule.count.maximum;
/** Default and largest number of dates `occurrencesBetween` / `nextOccurrences` return. */
export const DEFAULT_OCCURRENCE_LIMIT = 1000;
export const MAX_OCCURRENCE_LIMIT = 10000;
