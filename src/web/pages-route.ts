/**
 * The web pages: sign-in, the account page (/account: tokens, connected clients, latest changes, the way to
 * download one's data and delete the account: src/web/leave-page.ts) and the
 * OAuth consent page (/oauth/consent). Server-rendered HTML, no external assets, every form CSRF-checked,
 * no framing (src/web/security.ts). Token creation goes through the same code and limit as the tokens
 * endpoint; consent through src/oauth/authorize.ts (docs/oauth.md).
 */
import express, { type Request, type Response, type Router } from "express";
import type { Knex } from "knex";
import { changePassword } from "../auth/password-change.js";
import { signIn } from "../auth/sign-in.js";
import { createTokenWithinQuota, KNOWN_SCOPES, listTokens, revokeToken, TokenInputError, TokenQuotaError, validateNewToken } from "../auth/tokens.js";
import { passwordProblem, UserInputError } from "../auth/users.js";
import { createSession, endAllSessions, endSession } from "../auth/web-sessions.js";
import type { Config } from "../config.js";
import { clientConfigs } from "../demo/client-config.js";
import { listChanges } from "../domain/changes/list.js";
import { AppError } from "../errors.js";
import { hostAndOriginGuard } from "../http/guards.js";
import type { RateLimits } from "../limits/types.js";
import type { Logger } from "../log.js";
import { completeAuthorization, describePendingAuthorization, PendingAuthorizationError } from "../oauth/authorize.js";
import { listConnectedClients, revokeConnectedClient } from "../oauth/grants.js";
import { escapeHtml, renderPage, scopeFieldsets } from "./layout.js";
import { clearSessionCookie, csrfToken, knownDevice, newNonce, pageHeaders, rememberDevice, requireCsrf, setSessionCookie } from "./security.js";
import { clientAddress, formSender, recheckPassword, showSignIn, signedIn, signInRefusal } from "./signed-in.js";
import { createCalendarFeed, feedCarriesSeries, liveCalendarFeed, revokeCalendarFeed, setFeedCarriesSeries } from "../auth/calendar-feeds.js";
import { calendarFeedSection, feedUrl } from "./calendar-feed.js";
import { yourDataSection } from "./leave-page.js";
import { asyncPage as wrap, pageErrors } from "./page-errors.js";

export interface PagesDeps {
  db: Knex;
  config: Config;
  limits: RateLimits;
  log: Logger;
  now: () => Date;
  /** Signs session cookies and CSRF fields (src/web/secret.ts). */
  webKey: Buffer;
}

/** Only local paths are followed after sign-in (never another site). */
const localPath = (next: unknown) => (typeof next === "string" && /^\/(account|oauth\/consent)(\?[A-Za-z0-9=&_%.-]*)?$/.test(next) ? next : "/account");

/** The ticked scope checkboxes of a form: none, one (a string) or several (an array). */
const scopesOf = (body: Record<string, unknown>) => (Array.isArray(body.scope) ? body.scope.map(String) : body.scope === undefined ? [] : [String(body.scope)]);

const fmt = (iso: string | null) => (iso ? escapeHtml(iso.replace("T", " ").slice(0, 16) + " UTC") : "never");

export function pagesRouter(deps: PagesDeps): Router {
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: "16kb", parameterLimit: 60 });
  const guard = hostAndOriginGuard(deps.config);
  const csrf = requireCsrf(deps.webKey);
  const csrfFor = (req: Request, res: Response) => csrfToken(req, res, deps.config, deps.webKey);

  // Every answer of these pages carries their security headers, error answers included (a refused Host,
  // a stale form, a body too large, a crash): send() below replaces the CSP with the page's own nonce.
  router.use(["/account", "/oauth/consent"], (_req, res, next) => {
    pageHeaders(res, newNonce());
    next();
  });

  function send(
    res: Response,
    status: number,
    page: { title: string; body: string; signedIn?: { email: string; csrf: string }; script?: string },
    formTargets: string[] = [],
  ) {
    const nonce = newNonce();
    pageHeaders(res, nonce, formTargets);
    res
      .status(status)
      .type("html")
      .send(renderPage({ ...page, nonce }));
  }

  router.post(
    "/account/sign-in",
    guard,
    form,
    csrf,
    wrap(async (req, res) => {
      const body = req.body as Record<string, unknown>;
      const next = localPath(body.next);
      try {
        const email = String(body.email ?? "").trim();
        const user = await signIn(
          deps.db,
          deps.limits,
          email,
          String(body.password ?? ""),
          clientAddress(req),
          () => new AppError("unauthorized", "Wrong email or password."),
          // A browser that signed in to this account before is throttled on its own (docs/security.md, "Failed logins").
          knownDevice(req, deps.webKey, email),
        );
        rememberDevice(req, res, deps.config, deps.webKey, email);
        setSessionCookie(res, deps.config, await createSession(deps.db, deps.webKey, user.id, deps.now()));
        deps.log.info("web_sign_in", { user_id: user.id });
        res.redirect(303, next);
      } catch (err) {
        const refused = signInRefusal(err, res);
        showSignIn(deps, req, res, next, refused.status, refused.message);
      }
    }),
  );

  router.post(
    "/account/sign-out",
    guard,
    form,
    csrf,
    wrap(async (req, res) => {
      // The row goes, so the cookie is dead everywhere, even where it was copied to.
      const current = await signedIn(deps, req);
      if (current) await endSession(deps.db, current.session.idHash);
      clearSessionCookie(res, deps.config);
      res.redirect(303, "/account");
    }),
  );

  router.post(
    "/account/sign-out-everywhere",
    guard,
    form,
    csrf,
    wrap(async (req, res) => {
      const current = await formSender(deps, req, res);
      if (!current) return;
      const ended = await endAllSessions(deps.db, current.user.id);
      deps.log.info("web_signed_out_everywhere", { user_id: current.user.id, sessions: ended });
      clearSessionCookie(res, deps.config);
      res.redirect(303, "/account");
    }),
  );

  router.post(
    "/account/password",
    guard,
    form,
    csrf,
    wrap(async (req, res) => {
      const current = await formSender(deps, req, res);
      if (!current) return;
      const { user } = current;
      const token = csrfFor(req, res);
      const body = req.body as Record<string, unknown>;
      // An unfit new password is refused before the (slow, throttled) check of the current one.
      const unfit = passwordProblem(String(body.new_password ?? ""));
      if (unfit) return sendAccount(req, res, user, token, undefined, `New ${unfit}`, 400);
      const refused = await recheckPassword(deps, req, res, user, body.current_password, "The current password is wrong: the password was not changed.");
      if (refused) return sendAccount(req, res, user, token, undefined, refused.message, refused.status);
      try {
        await changePassword(deps.db, user.id, String(body.new_password ?? ""), deps.now());
      } catch (err) {
        if (err instanceof UserInputError) return sendAccount(req, res, user, token, undefined, `New ${err.message}`, 400);
        throw err;
      }
      // Every session ended with the change, this one too; this browser gets a new one.
      setSessionCookie(res, deps.config, await createSession(deps.db, deps.webKey, user.id, deps.now()));
      deps.log.info("web_password_changed", { user_id: user.id });
      res.redirect(303, "/account?password=changed#security");
    }),
  );

  router.get(
    "/account",
    guard,
    wrap(async (req, res) => {
      const user = (await signedIn(deps, req))?.user;
      if (!user) return showSignIn(deps, req, res, "/account");
      const token = csrfFor(req, res);
      await sendAccount(
        req,
        res,
        user,
        token,
        undefined,
        undefined,
        200,
        req.query.password === "changed" ? "Password changed. Every other session has been signed out." : undefined,
      );
    }),
  );

  async function sendAccount(
    req: Request,
    res: Response,
    user: { id: string; email: string },
    token: string,
    created?: { token: string; name: string },
    error?: string,
    status = 200,
    notice?: string,
    createdFeedUrl?: string,
  ) {
    const now = deps.now().toISOString();
    const tokens = (await listTokens(deps.db, user.id)).filter((t) => !t.grant_id && !t.revoked_at && t.expires_at > now);
    const clients = (await listConnectedClients(deps.db, user.id)).filter((c) => !c.revoked_at);
    const changes = (await listChanges({ db: deps.db, caller: { userId: user.id, scopes: new Set(KNOWN_SCOPES), timezone: "UTC" } }, { limit: 10 })).changes;
    const hidden = `<input type="hidden" name="csrf" value="${escapeHtml(token)}">`;
    const mcpUrl = `${deps.config.publicUrl || `http://${req.headers.host ?? "127.0.0.1"}`}/api/v1/mcp`;
    const createdBlock = created
      ? `<section class="notice" aria-labelledby="created-title"><h2 id="created-title">Token created: ${escapeHtml(created.name)}</h2>
<p>Copy it now: it is shown only once.</p>
<pre id="new-token">${escapeHtml(created.token)}</pre><button type="button" class="secondary" data-copy="new-token">Copy token</button>
${clientConfigs(mcpUrl, created.token)
  .map(
    (c, i) =>
      `<h3>${escapeHtml(c.client)}</h3><p>${escapeHtml(c.where)}</p><pre id="config-${i}">${escapeHtml(c.text)}</pre><button type="button" class="secondary" data-copy="config-${i}">Copy</button>`,
  )
  .join("\n")}
<p>For a chatbot that must only read, put <code>${escapeHtml(mcpUrl)}/read</code> in its configuration instead: the same token then reads and never writes.</p></section>`
      : "";
    const tokenRows = tokens
      .map(
        (
          t,
        ) => `<tr><td>${escapeHtml(t.name)}</td><td>${t.scopes.map((s) => `<code>${escapeHtml(s)}</code>`).join(" ")}</td><td>${fmt(t.created_at)}</td><td>${fmt(t.last_used_at)}</td><td>${fmt(t.expires_at)}</td>
<td><form method="post" action="/account/tokens/${escapeHtml(t.token_id)}/revoke">${hidden}<button class="secondary" type="submit" aria-label="Revoke ${escapeHtml(t.name)}">Revoke</button></form></td></tr>`,
      )
      .join("\n");
    const clientRows = clients
      .map(
        (
          c,
        ) => `<tr><td>${escapeHtml(c.client_name)}<br><code>${escapeHtml(c.client_id)}</code></td><td>${c.scopes.map((s) => `<code>${escapeHtml(s)}</code>`).join(" ")}</td><td>${fmt(c.created_at)}</td><td>${fmt(c.last_used_at)}</td><td>${fmt(c.grant_expires_at)}</td>
<td><form method="post" action="/account/clients/${escapeHtml(c.grant_id)}/revoke">${hidden}<button class="secondary" type="submit" aria-label="Disconnect ${escapeHtml(c.client_name)}">Disconnect</button></form></td></tr>`,
      )
      .join("\n");
    const changeRows = changes
      .map((c) => `<tr><td>${fmt(c.at)}</td><td><code>${escapeHtml(c.tool)}</code></td><td>${escapeHtml(c.summary)}</td></tr>`)
      .join("\n");
    const head = (cols: string[]) => `<thead><tr>${cols.map((c) => `<th scope="col">${c}</th>`).join("")}</tr></thead>`;
    const body = `${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ""}${notice ? `<p class="notice" role="status">${escapeHtml(notice)}</p>` : ""}${createdBlock}
<h2 id="tokens">Tokens</h2>
${tokens.length ? `<div class="scroll"><table aria-labelledby="tokens">${head(["Name", "Scopes", "Created", "Last used", "Expires", ""])}<tbody>${tokenRows}</tbody></table></div>` : "<p>No active tokens.</p>"}
<h2 id="clients">Connected clients</h2>
${clients.length ? `<div class="scroll"><table aria-labelledby="clients">${head(["Client", "Scopes", "Connected", "Last used", "Until", ""])}<tbody>${clientRows}</tbody></table></div>` : "<p>No client is connected through OAuth.</p>"}
<h2 id="new">Create a token</h2>
<form method="post" action="/account/tokens">${hidden}
<label for="name">Name</label><input id="name" name="name" type="text" maxlength="100" required placeholder="Claude on my laptop">
${scopeFieldsets(KNOWN_SCOPES)}
<label for="days">Expires after (days)</label><input id="days" name="expires_in_days" type="number" min="1" max="365" value="30" required>
<button type="submit">Create token</button>
</form>
<h2 id="import">Import a statement</h2>
<p><a href="/account/import">Import a bank statement</a> (CSV, OFX, CAMT, QIF) with a preview first.</p>
<h2 id="banks">Bank connections</h2>
<p><a href="/account/banks">Connect a bank</a> over SimpleFIN with a setup token, so its transactions arrive by themselves.</p>
${calendarFeedSection(await liveCalendarFeed(deps.db, user.id), hidden, createdFeedUrl, await feedCarriesSeries(deps.db, user.id))}
<h2 id="changes">Latest changes</h2>
${changes.length ? `<div class="scroll"><table aria-labelledby="changes">${head(["When", "Tool", "What"])}<tbody>${changeRows}</tbody></table></div>` : "<p>No changes yet.</p>"}
<h2 id="security">Sign-in and password</h2>
<p>Signing out everywhere ends this browser's session and every other one (another computer, a phone, a copied cookie). Tokens and connected clients stay: revoke them above.</p>
<form method="post" action="/account/sign-out-everywhere">${hidden}<button class="secondary" type="submit">Sign out everywhere</button></form>
<form method="post" action="/account/password">${hidden}
<label for="current-password">Current password</label><input id="current-password" name="current_password" type="password" autocomplete="current-password" required>
<label for="new-password">New password (at least 12 characters)</label><input id="new-password" name="new_password" type="password" autocomplete="new-password" minlength="12" maxlength="1024" required>
<button type="submit">Change password</button>
</form>
<p>Changing the password signs out every other session.</p>
${yourDataSection(hidden)}`;
    const script = `document.querySelectorAll("button[data-copy]").forEach(function (b) { b.addEventListener("click", function () { navigator.clipboard.writeText(document.getElementById(b.dataset.copy).textContent).then(function () { b.textContent = "Copied"; }); }); });`;
    send(res, status, { title: "Your account", body, signedIn: { email: user.email, csrf: token }, script: created || createdFeedUrl ? script : undefined });
  }

  router.post(
    "/account/tokens",
    guard,
    form,
    csrf,
    wrap(async (req, res) => {
      const user = (await formSender(deps, req, res))?.user;
      if (!user) return;
      const token = csrfFor(req, res);
      const body = req.body as Record<string, unknown>;
      const scopes = scopesOf(body);
      let input: ReturnType<typeof validateNewToken>;
      try {
        input = validateNewToken({ name: String(body.name ?? ""), scopes, expires_in_days: Number(body.expires_in_days) });
      } catch (err) {
        if (!(err instanceof TokenInputError)) throw err;
        return sendAccount(req, res, user, token, undefined, err.message, 400);
      }
      try {
        const created = await createTokenWithinQuota(deps.db, user.id, input, deps.config.tokenPepper, deps.config.rateLimits.tokensPerHour, deps.now());
        deps.log.info("token_created", { user_id: user.id, token_id: created.token_id, scopes: created.scopes, via: "account page" });
        await sendAccount(req, res, user, token, { token: created.token, name: created.name });
      } catch (err) {
        if (!(err instanceof TokenQuotaError)) throw err;
        await sendAccount(
          req,
          res,
          user,
          token,
          undefined,
          `Too many tokens created: at most ${err.limit} per hour. Try again in ${err.retryAfterSeconds} seconds.`,
          429,
        );
      }
    }),
  );

  /** A signed-in POST of the account page that changes one thing, then shows the page again at `anchor`. */
  function accountAction(path: string, anchor: string, act: (userId: string, param: string, body: Record<string, unknown>) => Promise<unknown>) {
    router.post(
      path,
      guard,
      form,
      csrf,
      wrap(async (req, res) => {
        const user = (await formSender(deps, req, res))?.user;
        if (!user) return;
        await act(user.id, String(Object.values(req.params)[0]), (req.body ?? {}) as Record<string, unknown>);
        res.redirect(303, `/account#${anchor}`);
      }),
    );
  }
  accountAction("/account/tokens/:id/revoke", "tokens", (userId, id) => revokeToken(deps.db, userId, id, deps.now()));
  accountAction("/account/clients/:grant/revoke", "clients", (userId, grant) => revokeConnectedClient(deps.db, userId, grant, deps.now()));
  accountAction("/account/calendar-feed/revoke", "calendar", (userId) => revokeCalendarFeed(deps.db, userId, deps.now()));
  accountAction("/account/calendar-feed/series", "calendar", (userId, _param, body) => setFeedCarriesSeries(deps.db, userId, body.series === "1"));
  router.post(
    "/account/calendar-feed",
    guard,
    form,
    csrf,
    wrap(async (req, res) => {
      const user = (await formSender(deps, req, res))?.user;
      if (!user) return;
      const secret = await createCalendarFeed(deps.db, user.id, deps.config.tokenPepper, deps.now());
      await sendAccount(req, res, user, csrfFor(req, res), undefined, undefined, 200, undefined, feedUrl(deps.config, req, secret));
    }),
  );

  router.get(
    "/oauth/consent",
    guard,
    wrap(async (req, res) => {
      const id = String(req.query.request ?? "");
      const pending = await describePendingAuthorization(deps, id);
      if (!pending) {
        return send(res, 400, {
          title: "This request has expired",
          body: "<p>The sign-in request is unknown, already used or older than ten minutes. Go back to the app you were connecting and start again.</p>",
        });
      }
      const user = (await signedIn(deps, req))?.user;
      if (!user) return showSignIn(deps, req, res, `/oauth/consent?request=${encodeURIComponent(id)}`);
      const token = csrfFor(req, res);
      const body = `<p><strong>${escapeHtml(pending.clientName)}</strong> wants to use your finance data through finance-mcp.</p>
<p>Client: <code>${escapeHtml(pending.clientId)}</code><br>After you choose, your browser goes to <strong>${escapeHtml(pending.redirectHost)}</strong>.</p>
<form method="post" action="/oauth/consent">
<input type="hidden" name="csrf" value="${escapeHtml(token)}">
<input type="hidden" name="request" value="${escapeHtml(pending.id)}">
<p>Choose what it may do. Reading is ticked; changing anything is not unless you tick it.</p>
${scopeFieldsets(pending.requestedScopes)}
<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</form>`;
      send(res, 200, { title: `Connect ${pending.clientName}?`, body, signedIn: { email: user.email, csrf: token } }, [new URL(pending.redirectUri).origin]);
    }),
  );

  router.post(
    "/oauth/consent",
    guard,
    form,
    csrf,
    wrap(async (req, res) => {
      const body = req.body as Record<string, unknown>;
      const id = String(body.request ?? "");
      const user = (await formSender(deps, req, res, `/oauth/consent?request=${encodeURIComponent(id)}`))?.user;
      if (!user) return;
      const scopes = scopesOf(body);
      const pending = await describePendingAuthorization(deps, id);
      // Only an explicit Allow approves: a form without a decision (or with any other value) denies.
      const approve = body.decision === "approve";
      if (pending && approve && scopes.length === 0) {
        // Before completeAuthorization, which would use the request up: the person may still choose.
        return send(res, 400, {
          title: "Choose what to allow",
          body: `<p class="error" role="alert">Tick at least one permission, or deny the request.</p><p><a href="/oauth/consent?request=${encodeURIComponent(id)}">Back to the choices</a></p>`,
        });
      }
      try {
        const to = await completeAuthorization(deps, id, user.id, approve ? scopes : null);
        pageHeaders(res, newNonce(), pending ? [new URL(pending.redirectUri).origin] : []);
        res.redirect(303, to);
      } catch (err) {
        if (!(err instanceof PendingAuthorizationError)) throw err;
        send(res, 400, {
          title: "Not connected",
          body: `<p class="error" role="alert">${escapeHtml(err.message)}</p><p>Go back to the app you were connecting and start again.</p>`,
        });
      }
    }),
  );

  // A body the form parser refuses or a crash: a page with the pages' headers (src/web/page-errors.ts).
  router.use(["/account", "/oauth/consent"], pageErrors(deps.log));

  return router;
}
