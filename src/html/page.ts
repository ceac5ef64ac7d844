/**
 * What every HTML page of the server shares, whoever serves it (the account and consent pages in src/web,
 * the authorization error page in src/oauth): escaping, the layout, and the security headers. It imports
 * nothing of the server, so neither area depends on the other through it.
 */
import { randomBytes } from "node:crypto";
import type { Response } from "express";

export const escapeHtml = (s: unknown) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

const STYLE = `
  :root { color-scheme: light dark; --accent: #1f5fbf; }
  * { box-sizing: border-box; }
  body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; padding: 1rem; max-width: 44rem; margin-inline: auto; }
  header { border-bottom: 1px solid #8884; margin-bottom: 1rem; display: flex; justify-content: space-between; align-items: center; gap: 1rem; flex-wrap: wrap; }
  h1 { font-size: 1.5rem; margin: .5rem 0; } h2 { font-size: 1.2rem; margin-top: 2rem; }
  label { display: block; margin: .5rem 0 .25rem; font-weight: 600; }
  input[type=email], input[type=password], input[type=text], input[type=number] { width: 100%; padding: .6rem; font-size: 1rem; border: 1px solid #888; border-radius: .3rem; }
  fieldset { border: 1px solid #8886; border-radius: .4rem; margin: .75rem 0; padding: .5rem .75rem; }
  legend { font-weight: 600; padding: 0 .25rem; }
  .check { display: flex; gap: .5rem; align-items: center; font-weight: normal; margin: .3rem 0; }
  .check input { width: 1.2rem; height: 1.2rem; }
  button { font-size: 1rem; padding: .6rem 1.1rem; border-radius: .3rem; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; margin: .5rem .5rem .5rem 0; }
  button.secondary { background: transparent; color: inherit; border-color: #888; }
  button.danger { background: #b03022; border-color: #b03022; }
  :focus-visible { outline: 3px solid #f5a623; outline-offset: 2px; }
  table { border-collapse: collapse; width: 100%; font-size: .95rem; } th, td { text-align: left; padding: .4rem; border-bottom: 1px solid #8884; vertical-align: top; }
  .scroll { overflow-x: auto; }
  .notice { border-left: 4px solid var(--accent); padding: .5rem .75rem; background: #8881; }
  .error { border-left: 4px solid #c0392b; padding: .5rem .75rem; background: #c0392b1a; }
  pre { white-space: pre-wrap; word-break: break-all; background: #8881; padding: .6rem; border-radius: .3rem; }
  code { word-break: break-all; }
  footer { border-top: 1px solid #8884; margin-top: 2rem; padding: .75rem 0; font-size: .95rem; }
  /* Explicit colours in both themes: the browser's own dark link blue fails WCAG AA contrast (axe,
     test/web/accessibility.test.ts). */
  body { color: #1b1d21; background: #ffffff; } a { color: #1a56b0; }
  @media (prefers-color-scheme: dark) {
    body { color: #ecedef; background: #1c1d20; } a { color: #9cc2ff; }
    :root { --accent: #2f6fd6; }
  }
`;

export interface Page {
  title: string;
  body: string;
  nonce: string;
  /** Shown in the header when someone is signed in, with a sign-out button. */
  signedIn?: { email: string; csrf: string };
  /** An inline script (runs under the page's CSP nonce). */
  script?: string;
}

export function renderPage(p: Page): string {
  const signOut = p.signedIn
    ? `<form method="post" action="/account/sign-out"><input type="hidden" name="csrf" value="${escapeHtml(p.signedIn.csrf)}"><span>${escapeHtml(p.signedIn.email)}</span> <button class="secondary" type="submit">Sign out</button></form>`
    : "";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${escapeHtml(p.title)} · finance-mcp</title>
<style nonce="${p.nonce}">${STYLE}</style>
</head>
<body>
<header><p><strong>finance-mcp</strong></p>${signOut}</header>
<main id="main">
<h1>${escapeHtml(p.title)}</h1>
${p.body}
</main>
<footer><a href="/privacy">Privacy</a> · <a href="/terms">Terms</a> · <a href="/support">Support</a></footer>
${p.script ? `<script nonce="${p.nonce}">${p.script}</script>` : ""}
</body>
</html>`;
}

/** The headers of every page; `formTargets` are extra origins a form may be sent or redirected to. */
export function pageHeaders(res: Response, nonce: string, formTargets: readonly string[] = []): void {
  res.setHeader(
    "Content-Security-Policy",
    [
      "default-src 'none'",
      "style-src 'unsafe-inline'",
      `script-src 'nonce-${nonce}'`,
      "img-src 'self' data:",
      `form-action 'self'${formTargets.map((t) => ` ${t}`).join("")}`,
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join("; "),
  );
  res.setHeader("X-Frame-Options", "DENY");
  res.setHeader("Cache-Control", "no-store");
  // same-origin, not no-referrer: with no-referrer Chromium sends "Origin: null" on form posts, which
  // the origin guard must refuse; no other site ever learns these pages' addresses either way.
  res.setHeader("Referrer-Policy", "same-origin");
  res.setHeader("X-Content-Type-Options", "nosniff");
}

export const newNonce = () => randomBytes(16).toString("base64");
