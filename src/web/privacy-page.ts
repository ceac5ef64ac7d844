/**
 * GET /privacy : what this server keeps about a person, who can read it, what leaves it, and how to take it
 * away. Directory listings (the MCP registry's server.json, ChatGPT's and Claude's directories) link here,
 * and every page's footer does (src/html/page.ts).
 *
 * The default text is true for this software as shipped; each figure in it is read from the configuration
 * it comes from, so a changed setting changes the page. An operator whose deployment differs (backups,
 * hosting, a jurisdiction's notices) replaces it with PRIVACY_POLICY_FILE: plain text, paragraphs
 * separated by blank lines, a line starting with "# " a heading; shown escaped, never as HTML.
 */
import express, { type Router } from "express";
import type { Config } from "../config.js";
import { hostAndOriginGuard } from "../http/guards.js";
import { escapeHtml, renderPage } from "./layout.js";
import { newNonce, pageHeaders } from "./security.js";
import { defaultPrivacyText } from "./privacy-text.js";

export { defaultPrivacyText };

export const PRIVACY_PATH = "/privacy";

/** Plain text to HTML: "# " lines are headings, blank lines end paragraphs; everything escaped. */
export function privacyHtml(text: string): string {
  const out: string[] = [];
  let paragraph: string[] = [];
  const endParagraph = () => {
    if (paragraph.length > 0) out.push(`<p>${escapeHtml(paragraph.join(" "))}</p>`);
    paragraph = [];
  };
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line.startsWith("# ")) {
      endParagraph();
      out.push(`<h2>${escapeHtml(line.slice(2).trim())}</h2>`);
    } else if (line === "") endParagraph();
    else paragraph.push(line);
  }
  endParagraph();
  return out.join("\n");
}

export function privacyRouter(deps: { config: Config }): Router {
  const router = express.Router();
  const guard = hostAndOriginGuard(deps.config);
  const body = privacyHtml(deps.config.privacyPolicyText || defaultPrivacyText(deps.config));
  router.get(PRIVACY_PATH, guard, (_req, res) => {
    const nonce = newNonce();
    pageHeaders(res, nonce);
    res.type("html").send(renderPage({ title: "Privacy", body, nonce }));
  });
  return router;
}
