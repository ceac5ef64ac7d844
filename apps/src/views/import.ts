/**
 * import_transactions' preview (dry_run): what the statement holds, row by row. Possible duplicates are
 * left out unless the person ticks them; Import calls the same tool through the host with dry_run false,
 * the ticked rows as import_rows and a fresh idempotency key. Nothing is written before that click.
 */
import { h } from "../dom.js";
import { money, shortDay } from "../format.js";
import type { View } from "../view.js";

interface Row {
  row: number;
  date: string | null;
  amount: string | null;
  payee: string | null;
  description: string | null;
  category: string | null;
  status: string;
  transaction_id: string | null;
}
interface ImportResult {
  status: "committed" | "replayed" | "dry_run";
  audit_id: string | null;
  format: string;
  currency: string;
  counts: { rows: number; new: number; duplicate: number; possible_duplicate: number; invalid: number; created: number };
  rows: Row[];
  warnings: { code?: string; message: string }[];
}

/** A v4 UUID from getRandomValues (randomUUID needs a secure context, which a sandbox may not be). */
function uuid(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const x = [...b].map((v) => v.toString(16).padStart(2, "0")).join("");
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

const kind = (status: string) =>
  status.startsWith("possible duplicate") ? "possible" : status.startsWith("duplicate") ? "duplicate" : status.startsWith("invalid") ? "invalid" : "new";

function counts(r: ImportResult): HTMLElement {
  const c = r.counts;
  return h(
    "dl",
    { class: "totals" },
    h("div", {}, h("dt", {}, "Rows"), h("dd", { "data-field": "rows" }, c.rows)),
    h("div", {}, h("dt", {}, "New"), h("dd", { "data-field": "new" }, c.new)),
    h("div", {}, h("dt", {}, "Possible duplicates"), h("dd", { "data-field": "possible_duplicate" }, c.possible_duplicate)),
    h("div", {}, h("dt", {}, "Already there"), h("dd", { "data-field": "duplicate" }, c.duplicate)),
    h("div", {}, h("dt", {}, "Invalid"), h("dd", { "data-field": "invalid" }, c.invalid)),
  );
}

function done(root: HTMLElement, r: ImportResult): void {
  root.replaceChildren(
    h("h1", {}, "Statement imported"),
    h(
      "p",
      { class: "headline", role: "status", "data-field": "created" },
      `${r.counts.created} transaction${r.counts.created === 1 ? "" : "s"} added`,
      r.status === "replayed" ? " (this import had already been made)" : "",
      ".",
    ),
    counts(r),
  );
  if (r.audit_id) root.append(h("p", { class: "muted small" }, `Change ${r.audit_id}: the assistant can undo it.`));
}

export const importPreview: View = (data, { app, args, root }) => {
  const r = data as unknown as ImportResult;
  if (r.status !== "dry_run") return done(root, r);

  root.append(h("h1", {}, "Import preview ", h("span", { class: "muted" }, `${r.format.toUpperCase()}, ${r.currency}`)), counts(r));
  const table = h(
    "table",
    { class: "rows" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", {}, "Import"),
        h("th", {}, "Day"),
        h("th", {}, "Payee"),
        h("th", { class: "num" }, "Amount"),
        h("th", { class: "category" }, "Category"),
      ),
    ),
  );
  const body = h("tbody");
  for (const row of r.rows) {
    const k = kind(row.status);
    const box =
      k === "possible"
        ? h("input", { type: "checkbox", "data-row": row.row, "aria-label": `Import row ${row.row} anyway` })
        : h("span", { class: `mark ${k}`, "aria-hidden": "true" }, k === "new" ? "✓" : "–");
    body.append(
      h(
        "tr",
        { class: k, "data-row": row.row },
        h("td", {}, box),
        h("td", { class: "day" }, row.date ? shortDay(row.date) : ""),
        h("td", { class: "payee" }, row.payee ?? row.description ?? "", h("small", { class: "status" }, row.status)),
        h("td", { class: `num ${row.amount?.startsWith("-") ? "neg" : ""}`, "data-field": "amount" }, row.amount ? money(row.amount, r.currency) : ""),
        h("td", { class: "category" }, row.category ?? ""),
      ),
    );
  }
  table.append(body);
  root.append(h("div", { class: "scroll" }, table));
  if (r.counts.rows > r.rows.length) root.append(h("p", { class: "muted small" }, `The first ${r.rows.length} of ${r.counts.rows} rows.`));
  // The possible-duplicate warning speaks to the model (import_rows); here the boxes say it.
  if (r.counts.possible_duplicate)
    root.append(h("p", { class: "note" }, "Rows that look like a transaction already in the wallet are left out: tick one to import it anyway."));
  for (const w of r.warnings) if (w.code !== "possible_duplicates") root.append(h("p", { class: "note" }, w.message));

  const ticked = () => [...root.querySelectorAll<HTMLInputElement>("input[data-row]:checked")].map((i) => Number(i.dataset.row));
  const canImport = typeof args.statement === "string" && typeof args.wallet_id === "string";
  const button = h("button", { type: "button", class: "primary", disabled: !canImport || null }, "");
  const label = () => {
    const n = r.counts.new + ticked().length;
    button.textContent = `Import ${n} row${n === 1 ? "" : "s"}`;
    button.disabled = !canImport || n === 0;
  };
  const status = h("p", { class: "muted small", role: "status" });
  root.addEventListener("change", label);
  label();
  root.append(h("div", { class: "actions" }, button, status));
  if (!canImport) status.textContent = "This host did not pass the statement to the app: ask the assistant to import it.";

  button.addEventListener("click", async () => {
    button.disabled = true;
    for (const box of root.querySelectorAll<HTMLInputElement>("input[data-row]")) box.disabled = true;
    status.textContent = "Importing…";
    const rows = ticked();
    try {
      const answer = await app.callServerTool({
        name: "import_transactions",
        arguments: { ...args, dry_run: false, import_rows: rows, idempotency_key: uuid() },
      });
      const result = answer.structuredContent as unknown as ImportResult | undefined;
      if (answer.isError || !result) {
        const text = answer.content?.find((c) => c.type === "text");
        status.textContent = text && "text" in text ? text.text : "The import failed; nothing was written.";
        status.classList.add("error");
        button.disabled = false;
        return;
      }
      done(root, result);
      // Tell the model what the person did, so the conversation does not offer the same import again.
      await app
        .updateModelContext({
          content: [
            { type: "text", text: `The person confirmed the import in the app: ${result.counts.created} transactions added (audit ${result.audit_id}).` },
          ],
        })
        .catch(() => undefined);
    } catch (err) {
      status.textContent = `The import could not be sent: ${String(err)}`;
      button.disabled = false;
    }
  });
};
