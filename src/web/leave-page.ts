/**
 * Leaving with one's data, on the account page: "Download my data" (POST /account/export: the export the
 * CLI's `finance-mcp export` makes, as a file, for the signed-in person only) and "Delete my account"
 * (GET /account/delete shows how many rows of each kind will go; POST /account/delete takes the password
 * again and deletes the person and every row of theirs in one transaction, src/account/delete.ts). Every
 * form is CSRF-checked; the person is always the session's, never a field of the form. A chatbot cannot
 * do either: no tool reaches this code (docs/decisions.md, "Deleting an account").
 */
import express, { type Request, type Response, type Router } from "express";
import type { Knex } from "knex";
import { AccountNotFoundError, countAccountRows, deleteAccount, type AccountRows } from "../account/delete.js";
import { ACCOUNT_TABLE_RULES } from "../account/tables.js";
import type { User } from "../auth/users.js";
import type { Config } from "../config.js";
import { hostAndOriginGuard } from "../http/guards.js";
import type { RateLimits } from "../limits/types.js";
import type { Logger } from "../log.js";
import { exportAccount } from "../portability/export.js";
import { escapeHtml, renderPage } from "./layout.js";
import { asyncPage as wrap, pageErrors } from "./page-errors.js";
import { clearSessionCookie, csrfToken, newNonce, pageHeaders, requireCsrf } from "./security.js";
import { formSender, recheckPassword, sessionEnded, signedIn } from "./signed-in.js";

export interface LeavePageDeps {
  db: Knex;
  config: Config;
  limits: RateLimits;
  log: Logger;
  now: () => Date;
  webKey: Buffer;
}

/** The "Your data" section of /account: the download button and the way to the deletion page. */
export function yourDataSection(hidden: string): string {
  return `<h2 id="your-data">Your data</h2>
<p>Download everything the server keeps for you (wallets, transactions, budgets, goals, bill reminders, the change history) as one JSON file: the same export as <code>finance-mcp export</code>.</p>
<form method="post" action="/account/export">${hidden}<button class="secondary" type="submit">Download my data</button></form>
<p><a href="/account/delete">Delete my account</a>: see what would be deleted first; it needs your password.</p>`;
}

const RULE_ORDER = Object.keys(ACCOUNT_TABLE_RULES);
const rank = (table: string) => (RULE_ORDER.includes(table) ? RULE_ORDER.indexOf(table) : RULE_ORDER.length);

/** Kinds of rows as the deletion page lists them: each shown kind, then the service's own records summed. */
function kindRows(counts: readonly AccountRows[]): { label: string; rows: number }[] {
  // In the rules' order (the ledger first, credentials and history after), a table without a rule last.
  const ranked = [...counts].sort((a, b) => rank(a.table) - rank(b.table));
  const shown = ranked.filter((c) => c.shown).map((c) => ({ label: c.label, rows: c.rows }));
  const kept = ranked.filter((c) => !c.shown);
  const keptRows = kept.reduce((n, c) => n + c.rows, 0);
  return [...shown, { label: `records the service keeps for your account (${kept.map((c) => c.label).join(", ")})`, rows: keptRows }];
}

function countsTable(counts: readonly AccountRows[], caption: string): string {
  const rows = kindRows(counts)
    .map((k) => `<tr><td>${escapeHtml(k.label)}</td><td>${k.rows}</td></tr>`)
    .join("\n");
  return `<div class="scroll"><table aria-label="${escapeHtml(caption)}"><thead><tr><th scope="col">What</th><th scope="col">How many</th></tr></thead>
<tbody><tr><td>your account (email, password, time zone, currency)</td><td>1</td></tr>
${rows}</tbody></table></div>`;
}

export function leavePageRouter(deps: LeavePageDeps): Router {
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: "16kb", parameterLimit: 20 });
  const guard = hostAndOriginGuard(deps.config);
  const csrf = requireCsrf(deps.webKey);

  function send(res: Response, status: number, title: string, body: string, signedIn?: { email: string; csrf: string }) {
    const nonce = newNonce();
    pageHeaders(res, nonce);
    res.status(status).type("html").send(renderPage({ title, body, nonce, signedIn }));
  }

  async function sendDeletePage(req: Request, res: Response, user: User, status = 200, error?: string) {
    const token = csrfToken(req, res, deps.config, deps.webKey);
    const hidden = `<input type="hidden" name="csrf" value="${escapeHtml(token)}">`;
    const counts = await countAccountRows(deps.db, user.id);
    const body = `${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ""}
<p>Deleting your account removes everything listed below, at once and for good: it cannot be undone, and no one can restore it. Download your data first if you want to keep it.</p>
<form method="post" action="/account/export">${hidden}<button class="secondary" type="submit">Download my data</button></form>
<h2 id="what">What will be deleted</h2>
${countsTable(counts, "What will be deleted")}
<p>Every token and connected client stops working at once, and you are signed out everywhere. Nothing that names you stays on the server: its logs know you only by an account id, which points to nothing once the account is gone. The email address can be used for a new account afterwards.</p>
<h2 id="confirm">Delete</h2>
<form method="post" action="/account/delete">${hidden}
<label for="delete-password">Your password</label><input id="delete-password" name="password" type="password" autocomplete="current-password" required>
<label class="check"><input type="checkbox" name="confirm" value="yes" required> I understand that my account and all its data will be deleted for good</label>
<button class="danger" type="submit">Delete my account</button>
</form>
<p><a href="/account">Keep my account</a></p>`;
    send(res, status, "Delete your account", body, { email: user.email, csrf: token });
  }

  router.post(
    "/account/export",
    guard,
    form,
    csrf,
    wrap(async (req, res) => {
      const user = (await formSender(deps, req, res))?.user;
      if (!user) return;
      const now = deps.now();
      const data = await exportAccount(deps.db, user.id, now);
      deps.log.info("web_data_exported", { user_id: user.id });
      pageHeaders(res, newNonce());
      res
        .status(200)
        .type("application/json")
        .setHeader("Content-Disposition", `attachment; filename="finance-mcp-export-${now.toISOString().slice(0, 10)}.json"`);
      res.send(`${JSON.stringify(data, null, 2)}\n`);
    }),
  );

  router.get(
    "/account/delete",
    guard,
    wrap(async (req, res) => {
      const user = (await signedIn(deps, req))?.user;
      if (!user) return res.redirect(303, "/account");
      await sendDeletePage(req, res, user);
    }),
  );

  router.post(
    "/account/delete",
    guard,
    form,
    csrf,
    wrap(async (req, res) => {
      const user = (await formSender(deps, req, res))?.user;
      if (!user) return;
      const body = req.body as Record<string, unknown>;
      if (body.confirm !== "yes") return sendDeletePage(req, res, user, 400, "Tick the box to confirm: nothing was deleted.");
      // A borrowed session cannot delete the account without the password.
      const refused = await recheckPassword(deps, req, res, user, body.password, "The password is wrong: nothing was deleted.");
      if (refused) return sendDeletePage(req, res, user, refused.status, refused.message);
      let deleted: AccountRows[];
      try {
        deleted = await deleteAccount(deps.db, user.id);
      } catch (err) {
        // A second click whose first one deleted the account meanwhile.
        if (err instanceof AccountNotFoundError) return sessionEnded(deps, req, res);
        throw err;
      }
      // Neither the email nor the id: nothing left in the logs points at the person (the count says what happened).
      deps.log.info("web_account_deleted", { rows: deleted.reduce((n, d) => n + d.rows, 0) + 1 });
      clearSessionCookie(res, deps.config);
      send(
        res,
        200,
        "Account deleted",
        `<p class="notice" role="status">Your account and all its data have been deleted. You are signed out, and every token and connected client has stopped working.</p>
${countsTable(deleted, "What was deleted")}
<p><a href="/">finance-mcp</a></p>`,
      );
    }),
  );

  router.use("/account", pageErrors(deps.log));
  return router;
}
