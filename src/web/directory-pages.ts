/**
 * What a directory asks of a listed server besides /privacy (src/web/privacy-page.ts), issue 52 item 5:
 * - GET /terms: the terms of use of this software as installed;
 * - GET /support: where a person gets help (the operator's SUPPORT_CONTACT when set, the help articles,
 *   their account page, the software's issue tracker);
 * - GET /.well-known/openai-apps-challenge: DIRECTORY_VERIFICATION_TOKEN as plain text, the domain check of
 *   ChatGPT's app directory (404 while unset).
 * Every page's footer links /privacy, /terms and /support (src/html/page.ts).
 */
import express, { type Router } from "express";
import type { Config } from "../config.js";
import { hostAndOriginGuard } from "../http/guards.js";
import { escapeHtml, renderPage } from "./layout.js";
import { privacyHtml } from "./privacy-page.js";
import { newNonce, pageHeaders } from "./security.js";

export const TERMS_PATH = "/terms";
export const SUPPORT_PATH = "/support";
export const DIRECTORY_CHALLENGE_PATH = "/.well-known/openai-apps-challenge";
/** The software's home, where its issues are filed (package.json `bugs`). */
export const ISSUES_URL = "https://github.com/finance-mcp/finance-mcp/issues";

export const TERMS_TEXT = `# What this is
finance-mcp is free software (MIT license) that whoever runs this server installed on their own machine. It keeps a record of your finances that you or your chatbots enter; it does not move money, connect to your bank, or give financial, tax or legal advice.

# Your account and your data
Your data is yours: download it or delete your account at any time on your account page (/account). What is kept and who can read it is on the privacy page (/privacy). You decide what each connected chatbot may read or change, and you can revoke it at any time.

# Answers are a record, not advice
Figures (balances, budgets, forecasts) are computed from what the ledger holds, as of the day they name. A chatbot may still misread or misquote them: check what matters against your bank.

# No warranty
The software is provided "as is", without warranty of any kind, as its license says. Whoever runs this server decides how long it runs and how it is backed up.`;

function supportHtml(config: Config): string {
  const contact = config.supportContact
    ? `<p>This server's operator: <strong>${escapeHtml(config.supportContact)}</strong>.</p>`
    : "<p>For this server (an account, a sign-in, an outage), ask whoever runs it: it is run by its owner, not by the software's authors.</p>";
  return `${contact}
<h2>Help with using it</h2>
<p>Ask your chatbot: the help articles of this server (how to import a statement, set a budget, connect a client) are one of its tools. Your account page, <a href="/account">/account</a>, shows your tokens, connected chatbots, the latest changes, and where to download or delete your data.</p>
<h2>A problem with the software</h2>
<p>Report it at <a href="${ISSUES_URL}">${ISSUES_URL}</a>; never include your data, tokens or passwords.</p>`;
}

export function directoryRouter(deps: { config: Config }): Router {
  const router = express.Router();
  const guard = hostAndOriginGuard(deps.config);
  const page = (title: string, body: string) => (_req: express.Request, res: express.Response) => {
    const nonce = newNonce();
    pageHeaders(res, nonce);
    res.type("html").send(renderPage({ title, body, nonce }));
  };
  router.get(TERMS_PATH, guard, page("Terms of use", privacyHtml(TERMS_TEXT)));
  router.get(SUPPORT_PATH, guard, page("Support", supportHtml(deps.config)));
  // No Host guard: the directory's checker asks by the public name, which PUBLIC_URL names.
  router.get(DIRECTORY_CHALLENGE_PATH, (_req, res, next) => {
    if (!deps.config.directoryVerificationToken) return next();
    res.setHeader("Cache-Control", "no-store");
    res.type("text/plain").send(deps.config.directoryVerificationToken);
  });
  return router;
}
