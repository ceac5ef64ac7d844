/**
 * /account/import: the statement import for a file the person picks (big statements do not fit in a
 * chat). The same tool as a chatbot's, through the same call path: the page calls import_transactions
 * with dry_run to show the preview (counts, reconciliation, a table of rows with duplicates marked and a
 * box on each possible duplicate), then again to commit it with the boxes ticked. The file is read in the
 * browser (FileReader) and posted as text. The preview page shows a summary and never the file (issue 41:
 * a 200 KB statement made a 1.2 MB page): the browser keeps the text (IndexedDB, under the form's
 * idempotency key) and the confirm button sends it from there. Every form is CSRF-checked; the call acts
 * as the signed-in person with the transactions scopes only. A CSV of a layout already imported into the
 * wallet is read with the mapping remembered for it (the tool does that), and the preview says so.
 */
import { randomUUID } from "node:crypto";
import express, { type NextFunction, type Request, type Response, type Router } from "express";
import type { Knex } from "knex";
import type { Config } from "../config.js";
import { listWalletRows } from "../domain/wallets/store.js";
import { AppError } from "../errors.js";
import { hostAndOriginGuard } from "../http/guards.js";
import type { Dispatch } from "../rpc/dispatch.js";
import { escapeHtml, renderPage } from "./layout.js";
import { csrfToken, newNonce, pageHeaders, requireCsrf } from "./security.js";
import { signedIn } from "./signed-in.js";

export interface ImportPageDeps {
  db: Knex;
  config: Config;
  dispatch: Dispatch;
  now: () => Date;
  webKey: Buffer;
}

type Row = {
  row: number;
  date: string | null;
  amount: string | null;
  payee: string | null;
  category: string | null;
  category_from: string | null;
  status: string;
};
type Answer = {
  status: string;
  currency: string;
  counts: Record<string, number>;
  rows: Row[];
  reconciliation: { date: string; statement_balance: string; wallet_balance: string; difference: string } | null;
  mapping_source: { source: "detected" | "given" | "remembered"; saved_at: string | null } | null;
  warnings: { code?: string; message: string }[];
};

// The statement is kept in this browser (one at a time) between the preview and the confirmation.
const KEPT = `function kept(then) {
  var open = indexedDB.open("finance-import", 1);
  open.onupgradeneeded = function () { open.result.createObjectStore("statements"); };
  open.onerror = function () { then(null); };
  open.onsuccess = function () { then(open.result); };
}`;

const READ_FILE = `${KEPT}
document.getElementById("file").addEventListener("change", function (e) {
  var f = e.target.files[0]; if (!f) return;
  var r = new FileReader();
  r.onload = function () { document.getElementById("statement").value = r.result; document.getElementById("preview").disabled = false; };
  r.readAsText(f, document.getElementById("encoding").value);
});
var form = document.getElementById("statement").form, stored = false;
form.addEventListener("submit", function (e) {
  if (stored) return;
  e.preventDefault();
  kept(function (db) {
    var done = function () { stored = true; form.submit(); };
    if (!db) return done();
    var tx = db.transaction("statements", "readwrite");
    tx.objectStore("statements").clear();
    tx.objectStore("statements").put(document.getElementById("statement").value, form.elements.key.value);
    tx.oncomplete = tx.onerror = tx.onabort = done;
  });
});`;

const CONFIRM = `${KEPT}
var form = document.getElementById("confirm"), ready = false;
function lost() { document.getElementById("lost").hidden = false; }
form.addEventListener("submit", function (e) {
  if (ready) return;
  e.preventDefault();
  kept(function (db) {
    if (!db) return lost();
    var get = db.transaction("statements").objectStore("statements").get(form.elements.key.value);
    get.onerror = lost;
    get.onsuccess = function () {
      if (typeof get.result !== "string") return lost();
      form.elements.statement.value = get.result;
      ready = true;
      form.submit();
    };
  });
});`;

export function importPageRouter(deps: ImportPageDeps): Router {
  const router = express.Router();
  const guard = hostAndOriginGuard(deps.config);
  const csrf = requireCsrf(deps.webKey);
  const form = express.urlencoded({ extended: false, limit: deps.config.maxImportBodyBytes, parameterLimit: 6000 });

  function send(res: Response, status: number, title: string, body: string, signedIn: { email: string; csrf: string }, script?: string) {
    const nonce = newNonce();
    pageHeaders(res, nonce);
    res.status(status).type("html").send(renderPage({ title, body, signedIn, nonce, script }));
  }

  // The same server-side session as the account page: a signed-out or expired one is nobody.
  const user = async (req: Request) => (await signedIn(deps, req))?.user;

  router.get("/account/import", guard, (req: Request, res: Response, next: NextFunction) => {
    void (async () => {
      const me = await user(req);
      if (!me) return res.redirect(303, "/account");
      const token = csrfToken(req, res, deps.config, deps.webKey);
      const wallets = await listWalletRows(deps.db, me.id, { includeArchived: false });
      const options = wallets.map((w) => `<option value="${escapeHtml(w.id)}">${escapeHtml(w.name)} (${escapeHtml(w.currency)})</option>`).join("");
      const body = `<p>Pick a statement your bank exported (CSV, OFX/QFX, CAMT.052/053 XML or QIF). You see what would be imported before anything is.</p>
<form method="post" action="/account/import">
<input type="hidden" name="csrf" value="${escapeHtml(token)}"><input type="hidden" name="key" value="${randomUUID()}">
<label for="wallet">Wallet</label><select id="wallet" name="wallet_id" required>${options}</select>
<label for="encoding">File encoding</label><select id="encoding"><option value="utf-8">UTF-8</option><option value="windows-1252">Windows-1252 / Latin-1</option></select>
<label for="file">Statement file</label><input id="file" type="file" accept=".csv,.txt,.ofx,.qfx,.xml,.qif">
<textarea id="statement" name="statement" hidden></textarea>
<input type="hidden" name="action" value="preview"><button id="preview" type="submit" disabled>Preview</button>
</form><p><a href="/account">Back to your account</a></p>`;
      send(
        res,
        200,
        "Import a statement",
        wallets.length ? body : `<p>Create a wallet first.</p><p><a href="/account">Back</a></p>`,
        { email: me.email, csrf: token },
        READ_FILE,
      );
    })().catch(next);
  });

  router.post("/account/import", guard, form, csrf, (req: Request, res: Response, next: NextFunction) => {
    void (async () => {
      const me = await user(req);
      if (!me) return res.redirect(303, "/account");
      const token = csrfToken(req, res, deps.config, deps.webKey);
      const f = req.body as Record<string, unknown>;
      const confirm = f.action === "confirm";
      const listed = (Array.isArray(f.import_rows) ? f.import_rows : f.import_rows === undefined ? [] : [f.import_rows]).map(Number).filter(Number.isInteger);
      const params = {
        wallet_id: String(f.wallet_id ?? ""),
        statement: String(f.statement ?? ""),
        rows_limit: 200,
        import_rows: listed,
        skip_invalid: f.skip_invalid === "on",
        // The balance the person ticked to confirm, as a decision_needed warning offered it (issue 48).
        ...(typeof f.expected_balance === "string" && f.expected_balance !== "" ? { expected_balance: f.expected_balance } : {}),
        // The preview's key is the commit's too: a double click or a reload of the confirm commits once.
        idempotency_key: /^[0-9a-f-]{36}$/.test(String(f.key)) ? String(f.key) : randomUUID(),
        dry_run: !confirm,
      };
      const caller = {
        userId: me.id,
        tokenId: "web",
        tokenName: "account page",
        scopes: new Set(["read:transactions", "write:transactions"]),
        expiresAt: null,
        timezone: me.timezone,
        defaultCurrency: me.default_currency,
      };
      let answer: Answer;
      try {
        answer = (await deps.dispatch("import_transactions", params, { caller, requestId: `web-import-${randomUUID()}` })) as unknown as Answer;
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        // A commit that waits for the person's word on the balance: the preview again, with the rows they
        // ticked, the reason and a box to confirm that balance. A failed write claims no key: the same one commits.
        if (confirm && err.details.field === "expected_balance") {
          const again = (await deps.dispatch(
            "import_transactions",
            { ...params, dry_run: true },
            { caller, requestId: `web-import-${randomUUID()}` },
          )) as unknown as Answer;
          return send(res, 200, "Import preview", previewBody(again, { ...params, listed }, token, false), { email: me.email, csrf: token }, CONFIRM);
        }
        const body = `<p class="error" role="alert">${escapeHtml(err.message)}</p><p><a href="/account/import">Pick another file</a></p>`;
        return send(res, 400, "Import a statement", body, { email: me.email, csrf: token });
      }
      send(
        res,
        200,
        confirm ? "Statement imported" : "Import preview",
        previewBody(answer, params, token, confirm),
        { email: me.email, csrf: token },
        confirm ? undefined : CONFIRM,
      );
    })().catch(next);
  });

  return router;
}

function previewBody(
  a: Answer,
  p: { wallet_id: string; idempotency_key: string; skip_invalid: boolean; listed?: number[] },
  token: string,
  committed: boolean,
): string {
  const c = a.counts;
  const summary = committed
    ? `<p role="status">Imported ${c.created} rows.</p>`
    : `<p role="status">${c.new} new, ${c.duplicate} already imported, ${c.possible_duplicate} possible duplicates, ${c.invalid} invalid, of ${c.rows} rows.</p>`;
  const rec = a.reconciliation
    ? `<p>Closing balance on ${escapeHtml(a.reconciliation.date)}: statement ${escapeHtml(a.reconciliation.statement_balance)}, wallet ${escapeHtml(a.reconciliation.wallet_balance)} (difference ${escapeHtml(a.reconciliation.difference)} ${escapeHtml(a.currency)}).</p>`
    : "";
  const remembered =
    a.mapping_source?.source === "remembered"
      ? `<p>Columns read as for this wallet's earlier statements of this layout (remembered ${escapeHtml((a.mapping_source.saved_at ?? "").slice(0, 10))}).</p>`
      : "";
  const warnings = a.warnings.map((w) => `<p class="notice">${escapeHtml(w.message)}</p>`).join("");
  const rows = a.rows
    .map((r) => {
      const possible = r.status.startsWith("possible duplicate");
      const box =
        possible && !committed
          ? `<input type="checkbox" name="import_rows" value="${r.row}" form="confirm" aria-label="Import row ${r.row} anyway"${p.listed?.includes(r.row) ? " checked" : ""}>`
          : "";
      const kind = r.status.split(" ")[0];
      return `<tr class="${escapeHtml(kind)}"><td>${r.row}</td><td>${escapeHtml(r.date ?? "")}</td><td>${escapeHtml(r.amount ?? "")}</td><td>${escapeHtml(r.payee ?? "")}</td><td>${escapeHtml(r.category ?? "")}${r.category_from ? ` <small>(${escapeHtml(r.category_from)})</small>` : ""}</td><td>${escapeHtml(r.status)}</td><td>${box}</td></tr>`;
    })
    .join("\n");
  const table = `<div class="scroll"><table aria-label="Statement rows"><thead><tr><th scope="col">Row</th><th scope="col">Date</th><th scope="col">Amount</th><th scope="col">Payee</th><th scope="col">Category</th><th scope="col">Status</th><th scope="col">Import anyway</th></tr></thead><tbody>${rows}</tbody></table></div>`;
  const confirm = committed
    ? `<p><a href="/account/import">Import another statement</a> · <a href="/account">Your account</a></p>`
    : `<form id="confirm" method="post" action="/account/import">
<input type="hidden" name="csrf" value="${escapeHtml(token)}"><input type="hidden" name="key" value="${escapeHtml(p.idempotency_key)}">
<input type="hidden" name="wallet_id" value="${escapeHtml(p.wallet_id)}"><input type="hidden" name="action" value="confirm"><textarea name="statement" hidden></textarea>
${(c.invalid ?? 0) > 0 ? `<label><input type="checkbox" name="skip_invalid"${p.skip_invalid ? " checked" : ""}> Leave out the invalid rows</label>` : ""}
${confirmBalance(a)}<button type="submit">Confirm import</button> <a href="/account/import">Cancel</a>
<p id="lost" class="error" role="alert" hidden>This browser no longer holds the statement. <a href="/account/import">Pick the file again</a>.</p>
</form>`;
  return `${summary}${rec}${remembered}${warnings}${table}${confirm}`;
}

/** The box that confirms the balance a decision_needed warning names (the commit is refused without it). */
function confirmBalance(a: Answer): string {
  const decision = a.warnings.find((w) => w.code === "decision_needed");
  const balance = decision === undefined ? null : /expected_balance: "(-?\d+(?:\.\d+)?)"/.exec(decision.message);
  if (!balance) return "";
  return `<label><input type="checkbox" name="expected_balance" value="${escapeHtml(balance[1]!)}"> Import anyway: the wallet's balance will be ${escapeHtml(balance[1]!)} ${escapeHtml(a.currency)}</label>\n`;
}
