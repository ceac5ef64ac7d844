/**
 * The page a person sees when /oauth/authorize cannot go on (an unknown client, a redirect URI it did not
 * register, a malformed request, too many requests): the same layout and security headers as the other
 * pages (CSP without any other origin, no framing, no caching, nosniff), never a redirect to the client.
 */
import type { Response } from "express";
import { escapeHtml, renderPage } from "../html/page.js";
import { newNonce, pageHeaders } from "../html/page.js";

export function sendAuthorizationErrorPage(res: Response, status: number, message: string, error?: string, retryAfterSeconds?: number): void {
  const nonce = newNonce();
  pageHeaders(res, nonce);
  if (retryAfterSeconds !== undefined) res.setHeader("Retry-After", String(retryAfterSeconds));
  const body = `<p class="error" role="alert">${escapeHtml(message)}</p>
${error ? `<p>Error code for the application's developers: <code>${escapeHtml(error)}</code></p>` : ""}
<p>Nothing was connected. Go back to the application you were connecting and start again; if this keeps happening, its developers need to fix the request.</p>`;
  res
    .status(status)
    .type("text/html; charset=utf-8")
    .send(renderPage({ title: "This connection request cannot be completed", body, nonce }));
}
