/**
 * What every page of the web UI (src/web) shares for safety:
 * - a session cookie naming a session kept on the server (src/auth/web-sessions.ts), signed with the web key
 *   (src/web/secret.ts: SESSION_SECRET or a random key stored in the database, never derived from another
 *   setting); HttpOnly, SameSite=Lax, Secure behind https; it signs in to these pages only and is never
 *   accepted as an API token;
 * - CSRF: a random per-browser cookie and, in every form, its HMAC under the web key; a POST whose field
 *   does not match is refused (403), as is a POST from another origin (Origin checked by the host/origin guard);
 * - headers: a Content-Security-Policy with no external source and a per-response nonce for the one inline
 *   script, frame-ancestors 'none' and X-Frame-Options DENY (no framing), no caching, no referrer to other sites.
 */
import { DEVICE_COOKIE, DEVICE_COOKIE_SECONDS, deviceOf, newDeviceCookie } from "../auth/device-cookie.js";
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { NextFunction, Request, Response } from "express";
import type { Config } from "../config.js";
import { SESSION_MAX_SECONDS } from "../auth/web-sessions.js";

export const SESSION_COOKIE = "fmcp_session";
export const CSRF_COOKIE = "fmcp_csrf";

const csrfSign = (key: Buffer, nonce: string) => createHmac("sha256", key).update(`csrf\n${nonce}`).digest("base64url");

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function cookies(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    try {
      out[part.slice(0, eq).trim()] = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      // A malformed %-escape: the cookie is ignored, never an error.
    }
  }
  return out;
}

const secure = (config: Config) => (config.publicUrl?.startsWith("https://") ? "; Secure" : "");

function setCookie(res: Response, config: Config, name: string, value: string, maxAge: number, sameSite: "Lax" | "Strict"): void {
  const header = `${name}=${encodeURIComponent(value)}; Path=/; HttpOnly; SameSite=${sameSite}; Max-Age=${maxAge}${secure(config)}`;
  const prev = res.getHeader("Set-Cookie");
  res.setHeader("Set-Cookie", [...(Array.isArray(prev) ? prev : prev ? [String(prev)] : []), header]);
}

/** Gives the browser the cookie of a session started on the server (the server, not the cookie, decides its end). */
export function setSessionCookie(res: Response, config: Config, value: string): void {
  setCookie(res, config, SESSION_COOKIE, value, SESSION_MAX_SECONDS, "Lax");
}

export function clearSessionCookie(res: Response, config: Config): void {
  setCookie(res, config, SESSION_COOKIE, "", 0, "Lax");
}

/** The device (src/auth/device-cookie.ts) of this browser when its device cookie was issued for `email`. */
export function knownDevice(req: Request, key: Buffer, email: string): string | undefined {
  return deviceOf(key, email, cookies(req)[DEVICE_COOKIE]);
}

/** After a right password: a browser without a valid device cookie for `email` gets one (kept across sign-outs). */
export function rememberDevice(req: Request, res: Response, config: Config, key: Buffer, email: string): void {
  if (!knownDevice(req, key, email)) setCookie(res, config, DEVICE_COOKIE, newDeviceCookie(key, email), DEVICE_COOKIE_SECONDS, "Lax");
}

/** The CSRF token for this browser's forms (sets the browser's random cookie when it has none). */
export function csrfToken(req: Request, res: Response, config: Config, key: Buffer): string {
  let nonce = cookies(req)[CSRF_COOKIE];
  if (!nonce || !/^[A-Za-z0-9_-]{22,64}$/.test(nonce)) {
    nonce = randomBytes(24).toString("base64url");
    setCookie(res, config, CSRF_COOKIE, nonce, 24 * 3600, "Strict");
  }
  return csrfSign(key, nonce);
}

/** Whether a form's csrf field belongs to this browser's cookie. */
export function csrfValid(req: Request, key: Buffer, field: unknown): boolean {
  const nonce = cookies(req)[CSRF_COOKIE];
  return typeof field === "string" && !!nonce && same(field, csrfSign(key, nonce));
}

export { newNonce, pageHeaders } from "../html/page.js";

/** Refuses a POST whose csrf field is missing or wrong (403), before the route runs. */
export function requireCsrf(key: Buffer) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (csrfValid(req, key, (req.body as Record<string, unknown> | undefined)?.csrf)) return next();
    res.status(403).type("text/plain").send("Forbidden: this form is stale or was not sent from this site. Reload the page and try again.");
  };
}
