/**
 * get_net_worth: a line of the net worth in the home currency (or, when a rate is missing, in the one
 * currency the person holds), the latest value and the change, and the points as a table under the line.
 */
import { h, svg } from "../dom.js";
import { dayLabel, money, signedMoney, type Money } from "../format.js";
import type { View } from "../view.js";

interface Point {
  date: string;
  by_currency: { currency: string; assets: Money; liabilities: Money; net: Money }[];
  home_net: Money | null;
}
interface NetWorth {
  home_currency: string;
  points: Point[];
  change: { from: string; to: string; by_currency: Money[]; home_net: Money | null } | null;
  missing_rates: string[];
}

const W = 600;
const H = 220;
const PAD = { left: 8, right: 8, top: 26, bottom: 24 };

export const netWorth: View = (data, { root }) => {
  const n = data as unknown as NetWorth;
  // The series: home-currency totals when every point has one, else the first currency held.
  const home = n.points.every((p) => p.home_net !== null);
  const currency = home ? n.home_currency : (n.points[0]?.by_currency[0]?.currency ?? n.home_currency);
  const valueOf = (p: Point): Money | null => (home ? p.home_net : (p.by_currency.find((c) => c.currency === currency)?.net ?? null));
  const series = n.points.map((p) => ({ date: p.date, m: valueOf(p) })).filter((p): p is { date: string; m: Money } => p.m !== null);
  const last = series.at(-1);

  root.append(h("h1", {}, "Net worth ", h("span", { class: "muted" }, last ? `on ${dayLabel(last.date)}` : "")));
  if (!last) {
    root.append(h("p", { class: "note" }, "No wallet was open in this period."));
    return;
  }
  const change = n.change ? (home ? n.change.home_net : (n.change.by_currency.find((c) => c.currency === currency) ?? null)) : null;
  root.append(
    h(
      "p",
      { class: "headline big" },
      h("strong", { "data-field": "latest" }, money(last.m)),
      change
        ? h("span", { class: change.minor < 0 ? "neg" : "pos", "data-field": "change" }, ` ${signedMoney(change)} since ${dayLabel(n.change!.from)}`)
        : null,
    ),
  );

  if (series.length > 1) {
    const values = series.map((p) => p.m.minor);
    const lo = Math.min(0, ...values);
    const hi = Math.max(...values, lo + 1);
    // (the top of the chart is the highest point; its value is written above it)
    const x = (i: number) => PAD.left + (i / (series.length - 1)) * (W - PAD.left - PAD.right);
    const y = (v: number) => PAD.top + (1 - (v - lo) / (hi - lo)) * (H - PAD.top - PAD.bottom);
    const points = series.map((p, i) => `${x(i).toFixed(1)},${y(p.m.minor).toFixed(1)}`).join(" ");
    root.append(
      svg(
        "svg",
        { class: "line", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": `Net worth from ${money(series[0]!.m)} to ${money(last.m)}` },
        lo < 0 ? svg("line", { class: "zero", x1: PAD.left, x2: W - PAD.right, y1: y(0), y2: y(0) }) : null,
        svg("polygon", { class: "area", points: `${x(0)},${y(Math.max(lo, 0))} ${points} ${x(series.length - 1)},${y(Math.max(lo, 0))}` }),
        svg("polyline", { class: "stroke", points }),
        ...series.map((p, i) => svg("circle", { cx: x(i), cy: y(p.m.minor), r: 3.5 }, svg("title", {}, `${dayLabel(p.date)}: ${money(p.m)}`))),
        svg("text", { x: PAD.left, y: PAD.top - 8, class: "axis" }, `highest ${money(series.reduce((a, b) => (b.m.minor > a.m.minor ? b : a)).m)}`),
        svg("text", { x: PAD.left, y: H - 6, class: "axis" }, dayLabel(series[0]!.date)),
        svg("text", { x: W - PAD.right, y: H - 6, class: "axis end" }, dayLabel(last.date)),
      ),
    );
  }
  const table = h("table", { class: "points" }, h("thead", {}, h("tr", {}, h("th", {}, "Day"), h("th", { class: "num" }, `Net (${currency})`))));
  const body = h("tbody");
  for (const p of [...series].reverse())
    body.append(h("tr", { "data-date": p.date }, h("td", {}, dayLabel(p.date)), h("td", { class: "num", "data-field": "net" }, money(p.m))));
  table.append(body);
  root.append(h("details", {}, h("summary", {}, `${series.length} points`), table));
  if (n.missing_rates.length)
    root.append(
      h("p", { class: "note" }, `No exchange rate for ${n.missing_rates.join(", ")}: ask the assistant to set one to see every wallet in ${n.home_currency}.`),
    );
};
