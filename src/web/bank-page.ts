/**
 * /account/banks: bank connections over SimpleFIN (docs/history/bank-connections.md). The person pastes a
 * setup token here, never into a chat; the server claims it and lists the bank's accounts, and the person
 * picks for each a wallet of its currency, a new wallet, or none. "Sync now" runs the tool
 * sync_bank_connections through the same call path as a chatbot's (audited, undoable), as the signed-in
 * person. Every form is CSRF-checked; nothing on the page shows the Access URL.
 */
import { randomUUID } from "node:crypto";
import express, { type NextFunction, type Request, type Response, type Router } from "express";
import type { Knex } from "knex";
import type { User } from "../auth/users.js";
import type { Config } from "../config.js";
import { randomIds } from "../db/ids.js";
import { connectBank, disconnectBank, linkAccounts, type LinkChoice } from "../domain/banks/connect.js";
import { accountsOf, connectionsOf } from "../domain/banks/store.js";
import { listWalletRows } from "../domain/wallets/store.js";
import { AppError } from "../errors.js";
import { hostAndOriginGuard } from "../http/guards.js";
import type { Dispatch } from "../rpc/dispatch.js";
import { escapeHtml, renderPage } from "./layout.js";
import { csrfToken, newNonce, pageHeaders, requireCsrf } from "./security.js";
import { signedIn } from "./signed-in.js";

export interface BankPageDeps {
  db: Knex;
  config: Config;
  dispatch: Dispatch;
  now: () => Date;
  webKey: Buffer;
}

export function bankPageRouter(deps: BankPageDeps): Router {
  const router = express.Router();
  const guard = hostAndOriginGuard(deps.config);
  const csrf = requireCsrf(deps.webKey);
  const form = express.urlencoded({ extended: false, limit: "64kb", parameterLimit: 200 });

  // The same server-side session as the account page: a signed-out or expired one is nobody.
  const user = async (req: Request) => (await signedIn(deps, req))?.user;
  const callerOf = (me: User, scopes: string[]) => ({
    userId: me.id,
    tokenId: "web",
    tokenName: "account page",
    scopes: new Set(scopes),
    expiresAt: null,
    timezone: me.timezone,
    defaultCurrency: me.default_currency,
  });
  const ctxOf = (me: User) => ({
    db: deps.db,
    config: deps.config,
    caller: { userId: me.id, timezone: me.timezone, defaultCurrency: me.default_currency },
    now: deps.now,
    ids: randomIds,
  });

  async function show(req: Request, res: Response, me: User, status = 200, message?: { error?: string; notice?: string }) {
    const token = csrfToken(req, res, deps.config, deps.webKey);
    const hidden = `<input type="hidden" name="csrf" value="${escapeHtml(token)}">`;
    const connections = await connectionsOf(deps.db, me.id);
    const accounts = await accountsOf(
      deps.db,
      me.id,
      connections.map((c) => c.id),
    );
    const wallets = await listWalletRows(deps.db, me.id, { includeArchived: false });
    const walletName = (id: string | null) => wallets.find((w) => w.id === id)?.name ?? id ?? "";
    const sections = connections
      .map((c) => {
        const rows = accounts
          .filter((a) => a.connection_id === c.id)
          .map((a, i) => {
            const id = a.account_id;
            const syncable = a.skip_reason === null;
            const options = wallets
              .filter((w) => w.currency === a.currency)
              .map((w) => `<option value="${escapeHtml(w.id)}"${w.id === a.wallet_id ? " selected" : ""}>${escapeHtml(w.name)}</option>`)
              .join("");
            const pick = syncable
              ? `<input type="hidden" name="account_${i}" value="${escapeHtml(id)}"><select name="choice_${i}" aria-label="Wallet for ${escapeHtml(a.name)}">${a.wallet_id === null ? `<option value="new" selected>A new wallet</option>` : `<option value="new">A new wallet</option>`}${options}<option value="skip">Do not sync</option></select>`
              : escapeHtml(a.skip_reason ?? "");
            return `<tr><td>${escapeHtml(a.name)}</td><td>${escapeHtml(a.currency)}</td><td>${a.wallet_id ? escapeHtml(walletName(a.wallet_id)) : "—"}</td><td>${pick}</td></tr>`;
          })
          .join("\n");
        const state = c.last_sync_at
          ? `Last sync ${escapeHtml(c.last_sync_at.slice(0, 16).replace("T", " "))} UTC: ${escapeHtml(c.last_status ?? "")}.`
          : "Not synced yet.";
        const errors = c.last_errors.map((e) => `<p class="notice">The bank says: ${escapeHtml(e)}</p>`).join("");
        const action = (path: string) => `/account/banks/${encodeURIComponent(c.id)}/${path}`;
        return `<section aria-labelledby="${escapeHtml(c.id)}"><h2 id="${escapeHtml(c.id)}">${escapeHtml(c.bridge)}</h2><p>${state}</p>${errors}
<form method="post" action="${action("link")}">${hidden}
<div class="scroll"><table><thead><tr><th scope="col">Account</th><th scope="col">Currency</th><th scope="col">Wallet</th><th scope="col">Sync into</th></tr></thead><tbody>${rows}</tbody></table></div>
<button type="submit">Save</button></form>
<form method="post" action="${action("sync")}">${hidden}<button type="submit" class="secondary">Sync now</button></form>
<form method="post" action="${action("disconnect")}">${hidden}<button type="submit" class="secondary">Disconnect (deletes the stored access)</button></form></section>`;
      })
      .join("\n");
    const body = `${message?.error ? `<p class="error" role="alert">${escapeHtml(message.error)}</p>` : ""}${message?.notice ? `<p class="notice" role="status">${escapeHtml(message.notice)}</p>` : ""}
<p>Your bank's transactions can arrive by themselves through a bridge speaking the SimpleFIN protocol. Make a setup token at the bridge and paste it here (never into a chat). The server claims it once and keeps the access it gives sealed (encrypted); it reads only, and you can disconnect at any time.</p>
<form method="post" action="/account/banks/connect">${hidden}
<label for="setup-token">SimpleFIN setup token</label><input id="setup-token" name="setup_token" type="password" autocomplete="off" maxlength="4096" required>
<label for="days">First sync reads this many days back</label><input id="days" name="days" type="number" min="1" max="730" value="90" required>
<button type="submit">Connect</button></form>
${sections || "<p>No bank is connected.</p>"}
<p><a href="/account">Back to your account</a></p>`;
    const nonce = newNonce();
    pageHeaders(res, nonce);
    res
      .status(status)
      .type("html")
      .send(renderPage({ title: "Bank connections", body, signedIn: { email: me.email, csrf: token }, nonce }));
  }

  /** A signed-in page action; an AppError shows the page again with its message. */
  const page = (act: (req: Request, res: Response, me: User) => Promise<{ notice: string } | void>) => (req: Request, res: Response, next: NextFunction) =>
    void (async () => {
      const me = await user(req);
      if (!me) return res.redirect(303, "/account");
      try {
        const done = await act(req, res, me);
        await show(req, res, me, 200, done ?? undefined);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        await show(req, res, me, 400, { error: err.message });
      }
    })().catch(next);

  router.get(
    "/account/banks",
    guard,
    page(async () => undefined),
  );
  router.post(
    "/account/banks/connect",
    guard,
    form,
    csrf,
    page(async (req, _res, me) => {
      const f = req.body as Record<string, unknown>;
      const days = Number(f.days ?? 90);
      const c = await connectBank(ctxOf(me), { setupToken: String(f.setup_token ?? ""), days: Number.isInteger(days) ? days : Number.NaN });
      return {
        notice: `Connected ${c.bridge}: ${c.accounts.length} account${c.accounts.length === 1 ? "" : "s"}. Pick where each syncs into and save.${c.errors.length ? ` The bank says: ${c.errors.join(" ")}` : ""}`,
      };
    }),
  );
  router.post(
    "/account/banks/:id/link",
    guard,
    form,
    csrf,
    page(async (req, _res, me) => {
      const f = req.body as Record<string, unknown>;
      const choices: Record<string, LinkChoice> = {};
      for (let i = 0; i < 50; i++) if (f[`account_${i}`] !== undefined) choices[String(f[`account_${i}`])] = String(f[`choice_${i}`] ?? "skip");
      await linkAccounts(ctxOf(me), { connectionId: String(req.params.id), choices });
      return { notice: "Saved. Sync now, or wait for the next scheduled sync." };
    }),
  );
  router.post(
    "/account/banks/:id/sync",
    guard,
    form,
    csrf,
    page(async (req, _res, me) => {
      const answer = (await deps.dispatch(
        "sync_bank_connections",
        { connection_id: String(req.params.id), idempotency_key: randomUUID() },
        { caller: callerOf(me, ["write:transactions"]), requestId: `web-banks-${randomUUID()}` },
      )) as unknown as { created: number; warnings: { message: string }[] };
      return { notice: `Synced: ${answer.created} new transaction${answer.created === 1 ? "" : "s"}. ${answer.warnings.map((w) => w.message).join(" ")}` };
    }),
  );
  router.post(
    "/account/banks/:id/disconnect",
    guard,
    form,
    csrf,
    page(async (req, _res, me) => {
      await disconnectBank(ctxOf(me), { connectionId: String(req.params.id) });
      return { notice: "Disconnected: the stored access is deleted. Your wallets and their transactions stay." };
    }),
  );
  return router;
}
