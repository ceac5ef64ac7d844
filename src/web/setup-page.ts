/**
 * The first-run page (issue 52 item 6): while the server has no user, GET / offers to create the owner
 * account, guarded by the one-time setup code the server printed to its log at start
 * (src/auth/setup-code.ts). POST /setup creates the owner, signs the browser in and goes on to / (how to
 * connect a chatbot); from then on / is the usual home page and POST /setup answers 404. A JSON client of
 * GET / keeps getting the index (src/web/home-page.ts).
 */
import express, { type NextFunction, type Request, type Response, type Router } from "express";
import type { Knex } from "knex";
import { createOwner, setupPending, SetupRefused } from "../auth/setup-code.js";
import { UserInputError } from "../auth/users.js";
import { createSession } from "../auth/web-sessions.js";
import type { Config } from "../config.js";
import { hostAndOriginGuard } from "../http/guards.js";
import type { Logger } from "../log.js";
import { escapeHtml, renderPage } from "./layout.js";
import { pageErrors } from "./page-errors.js";
import { csrfToken, newNonce, pageHeaders, requireCsrf, setSessionCookie } from "./security.js";

export const SETUP_PATH = "/setup";

export interface SetupDeps {
  db: Knex;
  config: Config;
  log: Logger;
  now: () => Date;
  webKey: Buffer;
}

interface Filled {
  email?: string;
  timezone?: string;
  currency?: string;
}

function setupForm(csrf: string, filled: Filled, error?: string): string {
  const value = (v: string | undefined) => (v ? ` value="${escapeHtml(v)}"` : "");
  return `<p>This finance-mcp server has no owner yet. Create your account here; then connect your chatbot to it.</p>
<p>To show that you run this server, enter the <strong>setup code</strong> it printed to its log when it started
(the line with <code>setup_code</code>, in the terminal of <code>npm start</code> or your service's log). It works once.</p>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ""}
<form method="post" action="${SETUP_PATH}">
<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">
<label for="setup_code">Setup code</label>
<input id="setup_code" name="setup_code" autocomplete="off" spellcheck="false" required autofocus>
<label for="email">Your email</label>
<input id="email" name="email" type="email" autocomplete="username" required${value(filled.email)}>
<label for="password">A password (at least 12 characters)</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="12" required>
<label for="timezone">Your time zone (decides what "today" and "this month" are)</label>
<input id="timezone" name="timezone" required${value(filled.timezone ?? "UTC")}>
<label for="currency">Your home currency (ISO code)</label>
<input id="currency" name="currency" maxlength="3" required${value(filled.currency ?? "USD")}>
<button type="submit">Create the owner account</button>
</form>`;
}

/** Fills in the browser's own time zone when the field still holds the default. */
const TIMEZONE_SCRIPT = `(() => { const f = document.getElementById("timezone"); try { const tz = Intl.DateTimeFormat().resolvedOptions().timeZone; if (f && f.value === "UTC" && tz) f.value = tz; } catch {} })();`;

const wrap =
  (h: (req: Request, res: Response, next: NextFunction) => Promise<void>) =>
  (req: Request, res: Response, next: NextFunction): void =>
    void h(req, res, next).catch(next);

export function setupRouter(deps: SetupDeps): Router {
  const router = express.Router();
  const guard = hostAndOriginGuard(deps.config);
  const form = express.urlencoded({ extended: false, limit: "8kb", parameterLimit: 20 });

  const show = (req: Request, res: Response, status: number, filled: Filled, error?: string) => {
    const nonce = newNonce();
    pageHeaders(res, nonce);
    res.setHeader("Vary", "Accept");
    const csrf = csrfToken(req, res, deps.config, deps.webKey);
    res
      .status(status)
      .type("html")
      .send(renderPage({ title: "Set up your finance server", body: setupForm(csrf, filled, error), nonce, script: TIMEZONE_SCRIPT }));
  };

  router.get(
    "/",
    guard,
    wrap(async (req, res, next) => {
      if (req.accepts(["html", "json"]) !== "html" || !(await setupPending(deps.db))) return next();
      show(req, res, 200, {});
    }),
  );

  router.post(
    SETUP_PATH,
    guard,
    form,
    requireCsrf(deps.webKey),
    wrap(async (req, res, next) => {
      if (!(await setupPending(deps.db))) return next(); // the offer is gone: the app's 404
      const body = req.body as Record<string, unknown>;
      const filled = { email: String(body.email ?? "").trim(), timezone: String(body.timezone ?? "").trim(), currency: String(body.currency ?? "").trim() };
      try {
        const user = await createOwner(deps.db, String(body.setup_code ?? ""), { ...filled, password: String(body.password ?? "") }, deps.now());
        setSessionCookie(res, deps.config, await createSession(deps.db, deps.webKey, user.id, deps.now()));
        deps.log.info("owner_created", { user_id: user.id });
        res.redirect(303, "/");
      } catch (err) {
        if (err instanceof SetupRefused) return show(req, res, 403, filled, err.message);
        if (err instanceof UserInputError) return show(req, res, 400, filled, err.message);
        throw err;
      }
    }),
  );
  router.use(SETUP_PATH, pageErrors(deps.log));
  return router;
}
