/**
 * get_cash_flow_forecast: a balance line for the total (home currency) and one per wallet (its own
 * currency), each with its low point marked; the events behind the low point and the next income on the
 * total's line; the months as a table under the lines (what the model's text holds too).
 */
import { h, svg } from "../dom.js";
import { dayLabel, money, monthLabel, type Money } from "../format.js";
import type { View } from "../view.js";

interface Event {
  date: string;
  label: string;
  amount: Money;
  source: string;
}
interface Forecast {
  as_of: string;
  until: string;
  currency: string;
  balance: Money;
  lowest: { date: string; balance: Money };
  next_income: Event | null;
  safe_to_spend: Money;
  safe_until: string;
  wallets: { wallet_id: string; name: string; currency: string; lowest: { date: string; balance: Money } }[];
  months: { month: string; income: Money; expense: Money; end_balance: Money }[];
  low_point_events: Event[];
  missing_rates: string[];
  daily: { total: string[]; wallets: string[][] };
}

const W = 600;
const H = 150;
const PAD = { left: 8, right: 8, top: 24, bottom: 22 };

/** The index of a day in the series (day 0 is as_of). */
const indexOf = (asOf: string, day: string) => Math.round((Date.parse(`${day}T00:00:00Z`) - Date.parse(`${asOf}T00:00:00Z`)) / 86_400_000);

function line(
  f: Forecast,
  title: string,
  values: string[],
  currency: string,
  low: { date: string; balance: Money },
  events: Event[],
  attrs: Record<string, string>,
) {
  const nums = values.map(Number);
  const lo = Math.min(0, ...nums);
  const hi = Math.max(...nums, lo + 1);
  const x = (i: number) => PAD.left + (i / Math.max(1, nums.length - 1)) * (W - PAD.left - PAD.right);
  const y = (v: number) => PAD.top + (1 - (v - lo) / (hi - lo)) * (H - PAD.top - PAD.bottom);
  const points = nums.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  const li = indexOf(f.as_of, low.date);
  return h(
    "section",
    {},
    h("h2", {}, title, " ", h("span", { class: "muted", "data-field": "low" }, `lowest ${money(low.balance)} on ${dayLabel(low.date)}`)),
    svg(
      "svg",
      { class: "line", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": `${title}: lowest ${money(low.balance)} on ${dayLabel(low.date)}`, ...attrs },
      lo < 0 ? svg("line", { class: "zero", x1: PAD.left, x2: W - PAD.right, y1: y(0), y2: y(0) }) : null,
      svg("polyline", { class: "stroke", points }),
      ...events.map((e) => {
        const i = indexOf(f.as_of, e.date);
        return svg(
          "rect",
          { class: "event", x: x(i) - 3, y: y(nums[i] ?? 0) - 3, width: 6, height: 6 },
          svg("title", {}, `${dayLabel(e.date)}: ${e.label} ${money(e.amount)}`),
        );
      }),
      svg("circle", { class: "low", cx: x(li), cy: y(nums[li] ?? 0), r: 5 }, svg("title", {}, `Lowest: ${money(low.balance)} on ${dayLabel(low.date)}`)),
      svg("text", { x: PAD.left, y: PAD.top - 8, class: "axis" }, `highest ${money(String(Math.max(...nums).toFixed(2)), currency)}`),
      svg("text", { x: PAD.left, y: H - 6, class: "axis" }, dayLabel(f.as_of)),
      svg("text", { x: W - PAD.right, y: H - 6, class: "axis end" }, dayLabel(f.until)),
    ),
  );
}

export const forecast: View = (data, { root }) => {
  const f = data as unknown as Forecast;
  root.append(h("h1", {}, "The months ahead ", h("span", { class: "muted" }, `to ${dayLabel(f.until)}`)));
  root.append(
    h("p", { class: "headline big" }, h("strong", { "data-field": "safe_to_spend" }, money(f.safe_to_spend)), ` safe to spend until ${dayLabel(f.safe_until)}`),
    h(
      "p",
      { class: "note" },
      f.next_income
        ? h("span", { "data-field": "next_income" }, `Next income: ${f.next_income.label}, ${money(f.next_income.amount)} on ${dayLabel(f.next_income.date)}.`)
        : "No income expected in this period.",
    ),
  );
  const marks = [...f.low_point_events, ...(f.next_income ? [f.next_income] : [])];
  root.append(line(f, `Total (${f.currency})`, f.daily.total, f.currency, f.lowest, marks, { "data-series": "total" }));
  // Each wallet's line and the months fold away, so the view stays within a host's 500 px until opened.
  const wallets = h("details", { class: "wallets" }, h("summary", {}, `Each wallet (${f.wallets.length})`));
  f.wallets.forEach((w, i) => wallets.append(line(f, w.name, f.daily.wallets[i] ?? [], w.currency, w.lowest, [], { "data-wallet": w.wallet_id })));
  if (f.wallets.length) root.append(wallets);

  if (f.low_point_events.length) {
    const list = h("ul", { class: "events" });
    for (const e of f.low_point_events) list.append(h("li", { "data-date": e.date }, `${dayLabel(e.date)} · `, h("span", {}, e.label), ` ${money(e.amount)}`));
    root.append(h("h2", {}, "Behind the low point"), list);
  }
  const table = h(
    "table",
    { class: "months" },
    h("thead", {}, h("tr", {}, h("th", {}, "Month"), h("th", { class: "num" }, "In"), h("th", { class: "num" }, "Out"), h("th", { class: "num" }, "End"))),
  );
  const body = h("tbody");
  for (const m of f.months)
    body.append(
      h(
        "tr",
        { "data-month": m.month },
        h("td", {}, monthLabel(m.month)),
        h("td", { class: "num" }, money(m.income)),
        h("td", { class: "num" }, money(m.expense)),
        h("td", { class: "num", "data-field": "end_balance" }, money(m.end_balance)),
      ),
    );
  table.append(body);
  root.append(h("details", { class: "months" }, h("summary", {}, `By month (${f.months.length})`), h("div", { class: "scroll" }, table)));
  if (f.missing_rates.length) root.append(h("p", { class: "note" }, `No exchange rate for ${f.missing_rates.join(", ")}: left out of the total.`));
};
