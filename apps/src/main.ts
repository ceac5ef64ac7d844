/**
 * One script for the four apps: the document's <body data-view> picks the view. The App (ext-apps SDK)
 * speaks to the host over postMessage: it receives the tool's arguments and result, follows the host's
 * theme, fonts and locale, and calls tools through the host (the only network an app has).
 */
// First: zod must not probe for eval under the apps' CSP (no-eval.ts), before the SDK that uses it loads.
import "./no-eval.js";
import { App, applyDocumentTheme, applyHostFonts, applyHostStyleVariables, type McpUiHostContext } from "@modelcontextprotocol/ext-apps";
import { h } from "./dom.js";
import { setLocale } from "./format.js";
import type { View } from "./view.js";
import { budgets } from "./views/budgets.js";
import { importPreview } from "./views/import.js";
import { netWorth } from "./views/net-worth.js";
import { forecast } from "./views/forecast.js";
import { spending } from "./views/spending.js";

const views: Record<string, View> = { spending, budgets, "net-worth": netWorth, import: importPreview, forecast };

const name = document.body.dataset.view ?? "";
const view = views[name];
const root = document.getElementById("app")!;
const app = new App({ name: `finance-mcp ${name}`, version: "1.0.0" }, {}, { autoResize: true });
let args: Record<string, unknown> = {};

function applyContext(ctx: Partial<McpUiHostContext> | undefined): void {
  if (!ctx) return;
  if (ctx.theme) applyDocumentTheme(ctx.theme);
  if (ctx.styles?.variables) applyHostStyleVariables(ctx.styles.variables);
  if (ctx.styles?.css?.fonts) applyHostFonts(ctx.styles.css.fonts);
  if (ctx.locale) setLocale(ctx.locale);
}

function message(text: string, kind = "note"): void {
  root.replaceChildren(h("p", { class: kind, role: kind === "error" ? "alert" : null }, text));
}

app.ontoolinput = (params) => {
  args = (params.arguments ?? {}) as Record<string, unknown>;
};
app.ontoolresult = (result) => {
  const data = result.structuredContent as Record<string, unknown> | undefined;
  if (result.isError || !data) {
    const text = result.content?.find((c) => c.type === "text");
    message(text && "text" in text ? text.text : "The tool answered without data.", "error");
    return;
  }
  root.replaceChildren();
  void Promise.resolve(view!(data, { app, args, root })).catch((err: unknown) => message(`Could not draw this: ${String(err)}`, "error"));
};
app.ontoolcancelled = () => message("The tool call was cancelled.");
app.onhostcontextchanged = (ctx) => applyContext(ctx);

if (!view) message(`No view called ${JSON.stringify(name)}.`, "error");
else {
  message("Waiting for the answer…");
  await app.connect();
  applyContext(app.getHostContext());
}
