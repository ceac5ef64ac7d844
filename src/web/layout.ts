/**
 * The HTML of the web pages: one small accessible layout (landmarks, headings, labelled controls, visible
 * focus, readable on a phone), inline CSS, no external assets. Every value shown is escaped.
 */
export { escapeHtml, renderPage } from "../html/page.js";
import { escapeHtml } from "../html/page.js";

export function signInForm(csrf: string, next: string, error?: string): string {
  return `${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ""}
<form method="post" action="/account/sign-in">
<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">
<input type="hidden" name="next" value="${escapeHtml(next)}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required autofocus>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`;
}

/** Scopes grouped by area, as the checkboxes of the consent page and of token creation show them. */
export const AREAS: { area: string; label: string; read: string; write?: string }[] = [
  { area: "transactions", label: "Transactions", read: "read:transactions", write: "write:transactions" },
  { area: "wallets", label: "Wallets and balances", read: "read:wallets", write: "write:wallets" },
  { area: "budgets", label: "Budgets", read: "read:budgets", write: "write:budgets" },
  { area: "goals", label: "Savings goals", read: "read:goals", write: "write:goals" },
  { area: "bills", label: "Bill reminders", read: "read:bills", write: "write:bills" },
  { area: "knowledge", label: "Help articles and calculator", read: "read:knowledge" },
  { area: "whoami", label: "Who you are (timezone, currency) and the change history", read: "meta:whoami" },
];

/** Checkboxes per area: read checked, write unchecked, each only when `offered` holds it. */
export function scopeFieldsets(offered: readonly string[]): string {
  return AREAS.filter((a) => offered.includes(a.read) || (a.write && offered.includes(a.write)))
    .map((a) => {
      const box = (scope: string, text: string, checked: boolean) =>
        `<label class="check"><input type="checkbox" name="scope" value="${escapeHtml(scope)}"${checked ? " checked" : ""}> ${escapeHtml(text)} <code>${escapeHtml(scope)}</code></label>`;
      return `<fieldset><legend>${escapeHtml(a.label)}</legend>${offered.includes(a.read) ? box(a.read, "Read", true) : ""}${a.write && offered.includes(a.write) ? box(a.write, "Change", false) : ""}</fieldset>`;
    })
    .join("\n");
}
