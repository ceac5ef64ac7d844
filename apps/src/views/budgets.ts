/**
 * get_budget_status: one gauge per budget. The fill is spent against what the period allows (limit plus
 * what was carried in); the mark on the track is how much of the period has passed, so a fill beyond the
 * mark is spending ahead of pace.
 */
import { h } from "../dom.js";
import { dayLabel, money, percent, type Money } from "../format.js";
import type { View } from "../view.js";

interface Status {
  budget_id: string;
  name: string;
  period_start: string;
  period_end: string;
  limit: Money;
  spent: Money;
  remaining: Money;
  carried_in: Money;
  utilization: number;
  percent_elapsed: number;
  pace: "under" | "on_track" | "over";
  projected_spend: Money;
  transaction_count: number;
  over_budget: boolean;
  alert: boolean;
}

const PACE = { under: "Under pace", on_track: "On track", over: "Ahead of pace" } as const;

/** Over when remaining is below zero: read off the exact decimal, as the server wrote it. */
const over = (b: Status) => b.remaining.value.startsWith("-");

export const budgets: View = (data, { root }) => {
  const list = data.budgets as Status[];
  root.append(h("h1", {}, "Budgets ", h("span", { class: "muted" }, `on ${dayLabel(String(data.as_of))}`)));
  if (list.length === 0) {
    root.append(h("p", { class: "note" }, "No budget is active on this day."));
    return;
  }
  const grid = h("div", { class: "gauges" });
  for (const b of list) {
    const state = b.over_budget ? "over" : b.alert || b.pace === "over" ? "warn" : "ok";
    grid.append(
      h(
        "article",
        { class: `gauge ${state}`, "data-budget": b.budget_id },
        h("h2", {}, b.name),
        h("p", { class: "muted small" }, `${dayLabel(b.period_start)} – ${dayLabel(b.period_end)}`),
        h(
          "div",
          {
            class: "meter",
            role: "meter",
            "aria-label": `${b.name}: ${percent(b.utilization)} of the budget spent`,
            "aria-valuemin": 0,
            "aria-valuemax": 100,
            "aria-valuenow": Math.round(b.utilization * 100),
          },
          h("span", { class: "fill", style: `width:${Math.min(100, b.utilization * 100).toFixed(1)}%` }),
          h("span", {
            class: "pace-mark",
            title: `${Math.round(b.percent_elapsed)} % of the period has passed`,
            style: `left:${b.percent_elapsed.toFixed(1)}%`,
          }),
        ),
        h(
          "p",
          { class: "headline" },
          h("strong", { "data-field": "spent" }, money(b.spent)),
          " of ",
          h("span", { "data-field": "limit" }, money(b.limit)),
          b.carried_in.minor !== 0 ? h("span", { class: "muted", "data-field": "carried_in" }, ` + ${money(b.carried_in)} carried in`) : null,
          h("span", { class: "pct", "data-field": "utilization" }, percent(b.utilization)),
        ),
        h(
          "dl",
          { class: "facts" },
          h(
            "div",
            {},
            // The label says which way: "Left €97.70" or "Over by €97.70", never "Over by -€97.70".
            h("dt", {}, over(b) ? "Over by" : "Left"),
            h("dd", { "data-field": "remaining", class: over(b) ? "neg" : "" }, money(b.remaining.value.replace(/^-/, ""), b.remaining.currency)),
          ),
          h("div", {}, h("dt", {}, "Pace"), h("dd", { "data-field": "pace", class: `pace ${b.pace}` }, PACE[b.pace] ?? b.pace)),
          h("div", {}, h("dt", {}, "Projected"), h("dd", { "data-field": "projected_spend" }, money(b.projected_spend))),
          h("div", {}, h("dt", {}, "Period passed"), h("dd", { "data-field": "percent_elapsed" }, `${Math.round(b.percent_elapsed)} %`)),
        ),
      ),
    );
  }
  root.append(grid);
};
