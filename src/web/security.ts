/**
 * What every page of the web UI (src/web) shares for safety:
 * - a signed session cookie (HMAC-SHA256 over the user id and expiry with a key derived from TOKEN_PEPPER):
 *   stateless, so several processes serve the same sessions; HttpOnly, SameSite=Lax, Secure behind https;
 *   it signs in to these pages only and is never accepted as an API token;
 * - CSRF: a random per-browser cookie and, in every form, its HMAC; a POST whose field does not match is
 *   refused (403), as is a POST from another origin (Origin checked by the host/origin guard);
 * - headers: a Content-Security-Policy with no external source and a per-response nonce for the one inline
 *   script, frame-ancestors 'none' and X-Frame-Options DENY (no framing), no caching, no referrer to other sites.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { NextFunction, Request, Response } from "express";
import type { Config } from "../config.js";

export const SESSION_COOKIE = "fmcp_session";
export const CSRF_COOKIE = "fmcp_csrf";
/** A session lasts half an hour: long enough to approve a client or create a token, short if a browser is left open. */
export const SESSION_SECONDS = 30 * 60;

const key = (config: Config, purpose: string) => createHmac("sha256", config.tokenPepper).update(`finance-mcp web ${purpose}`).digest();
const sign = (config: Config, purpose: string, text: string) => createHmac("sha256", key(config, purpose)).update(text).digest("base64url");

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function cookies(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0) out[part.slice(0, eq).trim()] = decodeURIComponent(part.slice(eq + 1).trim());
  }
  return out;
}

const secure = (config: Config) => (config.publicUrl?.startsWith("https://") ? "; Secure" : "");

function setCookie(res: Response, config: Config, name: string, value: string, maxAge: number, sameSite: "Lax" | "Strict"): void {
  const header = `${name}=${encodeURIComponent(value)}; Path=/; HttpOnly; SameSite=${sameSite}; Max-Age=${maxAge}${secure(config)}`;
  const prev = res.getHeader("Set-Cookie");
  res.setHeader("Set-Cookie", [...(Array.isArray(prev) ? prev : prev ? [String(prev)] : []), header]);
}

export function startSession(res: Response, config: Config, userId: string, now: Date): void {
  const expires = Math.floor(now.getTime() / 1000) + SESSION_SECONDS;
  const value = `${userId}.${expires}`;
  setCookie(res, config, SESSION_COOKIE, `${value}.${sign(config, "session", value)}`, SESSION_SECONDS, "Lax");
}

export function endSession(res: Response, config: Config): void {
  setCookie(res, config, SESSION_COOKIE, "", 0, "Lax");
}

/** The signed-in user's id, or undefined (no cookie, a forged one, or an expired one). */
export function sessionUser(req: Request, config: Config, now: Date): string | undefined {
  const raw = cookies(req)[SESSION_COOKIE];
  const m = /^(usr_[A-Za-z0-9]+)\.(\d{1,12})\.([A-Za-z0-9_-]+)$/.exec(raw ?? "");
  if (!m) return undefined;
  if (!same(m[3]!, sign(config, "session", `${m[1]}.${m[2]}`))) return undefined;
  return Number(m[2]) * 1000 > now.getTime() ? m[1] : undefined;
}

/** The CSRF token for this browser's forms (sets the browser's random cookie when it has none). */
export function csrfToken(req: Request, res: Response, config: Config): string {
  let nonce = cookies(req)[CSRF_COOKIE];
  if (!nonce || !/^[A-Za-z0-9_-]{22,64}$/.test(nonce)) {
    nonce = randomBytes(24).toString("base64url");
    setCookie(res, config, CSRF_COOKIE, nonce, 24 * 3600, "Strict");
  }
  return sign(config, "csrf", nonce);
}

/** Whether a form's csrf field belongs to this browser's cookie. */
export function csrfValid(req: Request, config: Config, field: unknown): boolean {
  const nonce = cookies(req)[CSRF_COOKIE];
  return typeof field === "string" && !!nonce && same(field, sign(config, "csrf", nonce));
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

/** Refuses a POST whose csrf field is missing or wrong (403), before the route runs. */
export function requireCsrf(config: Config) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (csrfValid(req, config, (req.body as Record<string, unknown> | undefined)?.csrf)) return next();
    res.status(403).type("text/plain").send("Forbidden: this form is stale or was not sent from this site. Reload the page and try again.");
  };
}
