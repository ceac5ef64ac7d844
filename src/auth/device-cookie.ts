/**
 * OWASP's device cookie (Slow Down Online Guessing Attacks with Device Cookies): a browser that signed in
 * to an account once keeps a cookie naming the account, a random nonce and an HMAC of both under the web
 * key. Sign-ins that present a valid one for the email they try are throttled per device (the nonce), not
 * per email and address: an attacker's failures, from any address (the proxy's own, when TRUST_PROXY is
 * unset), then never lock the owner's browser out. A device's own failures lock that device only.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const DEVICE_COOKIE = "fmcp_device";
/** A year: the cookie is what lets the owner in during an attack, so it outlives sessions and sign-outs. */
export const DEVICE_COOKIE_SECONDS = 365 * 86_400;

const NONCE = /^[A-Za-z0-9_-]{22}$/;

const sign = (key: Buffer, email: string, nonce: string) =>
  createHmac("sha256", key).update(`device\n${email.trim().toLowerCase()}\n${nonce}`).digest("base64url");

/** A new device cookie's value for `email`. */
export function newDeviceCookie(key: Buffer, email: string): string {
  const nonce = randomBytes(16).toString("base64url");
  return `${nonce}.${sign(key, email, nonce)}`;
}

/** The device (its nonce) when `cookie` was issued by this server to a browser that signed in as `email`; else undefined. */
export function deviceOf(key: Buffer, email: string, cookie: string | undefined): string | undefined {
  if (!cookie) return undefined;
  const [nonce = "", mac = "", extra] = cookie.split(".");
  if (extra !== undefined || !NONCE.test(nonce)) return undefined;
  const want = Buffer.from(sign(key, email, nonce));
  const got = Buffer.from(mac);
  return got.length === want.length && timingSafeEqual(got, want) ? nonce : undefined;
}
