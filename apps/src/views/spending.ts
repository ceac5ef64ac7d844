/**
 * get_transaction_summary: the totals per currency, then one bar per group. Grouped by month, the bars
 * are the months side by side (month over month); grouped by category, tag, payee or wallet, each bar is
 * set against the same group in the period before, which the app asks the host for (the same call, the
 * dates moved back; read-only).
 */
import { h } from "../dom.js";
import { dayLabel, money, monthLabel, type Money } from "../format.js";
import type { View } from "../view.js";

interface Group {
  key: string | null;
  label: string | null;
  currency: string;
  income: Money;
  expenses: Money;
  net: Money;
  count: number;
  refunds?: Money;
}
interface Total {
  currency: string;
  income: Money;
  expenses: Money;
  net: Money;
  count: number;
  refunds?: Money;
}
interface Summary {
  date_from: string;
  date_to: string;
  totals: Total[];
  groups: Group[];
}

const iso = (t: number) => new Date(t).toISOString().slice(0, 10);
const DAY = 86_400_000;

/** The period just before [from, to]: whole calendar months move back by as many months; other ranges by their length. */
export function previousPeriod(from: string, to: string): { date_from: string; date_to: string } {
  const [fy, fm, fd] = from.split("-").map(Number) as [number, number, number];
  const [ty, tm, td] = to.split("-").map(Number) as [number, number, number];
  const lastOfMonth = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate();
  if (fd === 1 && td === lastOfMonth(ty, tm)) {
    const months = (ty - fy) * 12 + (tm - fm) + 1;
    return { date_from: iso(Date.UTC(fy, fm - 1 - months, 1)), date_to: iso(Date.UTC(fy, fm - 1, 0)) };
  }
  const start = Date.UTC(fy, fm - 1, fd);
  const days = (Date.UTC(ty, tm - 1, td) - start) / DAY + 1;
  return { date_from: iso(start - days * DAY), date_to: iso(start - DAY) };
}

const groupName = (g: Group) => g.label ?? g.key ?? "No category";

export const spending: View = async (data, { app, args, root }) => {
  const s = data as unknown as Summary;
  const incomeOnly = args.direction === "income";
  const measure = (g: Group | Total) => (incomeOnly ? g.income : g.expenses);
  const byMonth = args.group_by === "month" || (s.groups.length > 0 && s.groups.every((g) => g.key !== null && /^\d{4}-\d{2}$/.test(g.key)));

  root.append(
    h("h1", {}, incomeOnly ? "Income" : "Spending", " ", h("span", { class: "muted" }, `${dayLabel(s.date_from)} – ${dayLabel(s.date_to)}`)),
    ...s.totals.map((t) =>
      h(
        "dl",
        { class: "totals", "data-currency": t.currency },
        h("div", {}, h("dt", {}, "Spent"), h("dd", { "data-field": "expenses" }, money(t.expenses))),
        // Spending is net of refunds (openrpc.json, Refunded): what came back is shown apart, once.
        t.refunds ? h("div", {}, h("dt", {}, "Refunded"), h("dd", { "data-field": "refunds" }, money(t.refunds))) : null,
        h("div", {}, h("dt", {}, "Income"), h("dd", { "data-field": "income" }, money(t.income))),
        h("div", {}, h("dt", {}, "Net"), h("dd", { "data-field": "net", class: t.net.minor < 0 ? "neg" : "" }, money(t.net))),
        h("div", {}, h("dt", {}, "Transactions"), h("dd", { "data-field": "count" }, t.count)),
      ),
    ),
  );
  if (s.totals.length === 0) root.append(h("p", { class: "note" }, "Nothing was spent or earned in this period."));
  if (s.groups.length === 0) return;

  const currencies = [...new Set(s.groups.map((g) => g.currency))];
  const sections = new Map<string, HTMLElement>();
  for (const currency of currencies) {
    const groups = s.groups.filter((g) => g.currency === currency && (byMonth || measure(g).minor > 0));
    // A currency with nothing to draw (only income, when spending is drawn) gets no empty heading.
    if (groups.length === 0) continue;
    if (!byMonth) groups.sort((a, b) => measure(b).minor - measure(a).minor);
    const max = Math.max(1, ...groups.map((g) => measure(g).minor));
    const list = h("ol", { class: byMonth ? "bars months" : "bars", "data-currency": currency });
    for (const g of groups) {
      const m = measure(g);
      const label = byMonth && g.key ? monthLabel(g.key) : groupName(g);
      list.append(
        h(
          "li",
          { "data-key": g.key ?? "" },
          h("span", { class: "label", title: label }, label),
          h("span", { class: "track" }, h("span", { class: "bar", style: `width:${((m.minor / max) * 100).toFixed(1)}%` })),
          h("span", { class: "amount", "data-field": "amount" }, money(m)),
          h("span", { class: "delta", "data-field": "delta" }),
        ),
      );
    }
    const section = h("section", {}, currencies.length > 1 ? h("h2", {}, currency) : null, list);
    sections.set(currency, section);
    root.append(section);
  }
  if (byMonth) return;

  // The same question for the period before: each group's change, drawn as a tick on its bar.
  const before = previousPeriod(s.date_from, s.date_to);
  root.append(h("p", { class: "muted small", "data-field": "compared" }, `Compared with ${dayLabel(before.date_from)} – ${dayLabel(before.date_to)}.`));
  let earlier: Summary;
  try {
    const answer = await app.callServerTool({ name: "get_transaction_summary", arguments: { ...args, ...before, group_by: args.group_by ?? "category" } });
    if (answer.isError || !answer.structuredContent) return;
    earlier = answer.structuredContent as unknown as Summary;
  } catch {
    return; // a host that does not proxy tool calls: the bars stand alone
  }
  for (const [currency, section] of sections) {
    const rows = [...section.querySelectorAll<HTMLLIElement>("li[data-key]")];
    const max = Math.max(1, ...s.groups.filter((g) => g.currency === currency).map((g) => measure(g).minor));
    for (const row of rows) {
      const now = s.groups.find((g) => g.currency === currency && (g.key ?? "") === row.dataset.key)!;
      const then = earlier.groups.find((g) => g.currency === currency && (g.key ?? "") === row.dataset.key);
      const delta = row.querySelector<HTMLElement>(".delta")!;
      if (!then || measure(then).minor === 0) {
        delta.textContent = "new";
        continue;
      }
      const change = (measure(now).minor - measure(then).minor) / measure(then).minor;
      delta.textContent = `${change > 0 ? "▲" : change < 0 ? "▼" : ""}${Math.abs(Math.round(change * 100))}%`;
      delta.title = `${money(measure(then))} before`;
      delta.classList.add(change > 0 ? "up" : "down");
      const tick = h("span", {
        class: "before",
        title: `${money(measure(then))} before`,
        style: `left:${Math.min(100, (measure(then).minor / max) * 100).toFixed(1)}%`,
      });
      row.querySelector(".track")!.append(tick);
    }
  }
};
