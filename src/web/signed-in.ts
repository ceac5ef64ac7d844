/**
 * Who a page's request comes from, once for every page of src/web: the person of the live server-side
 * session the session cookie names (src/auth/web-sessions.ts), what a form answers when that session
 * ended, and the password asked again before an act a borrowed session must not do alone.
 */
import type { Request, Response } from "express";
import type { Knex } from "knex";
import { signIn } from "../auth/sign-in.js";
import { findUserById, type User } from "../auth/users.js";
import { readSession, type WebSession } from "../auth/web-sessions.js";
import type { Config } from "../config.js";
import { AppError } from "../errors.js";
import type { RateLimits } from "../limits/types.js";
import { renderPage, signInForm } from "./layout.js";
import { cookies, csrfToken, knownDevice, newNonce, pageHeaders, SESSION_COOKIE } from "./security.js";

/** What the helpers below read: every page router's deps hold these. */
export interface SessionDeps {
  db: Knex;
  config: Config;
  now: () => Date;
  /** Signs session cookies and CSRF fields (src/web/secret.ts). */
  webKey: Buffer;
}

/** The person of the live server-side session the cookie names (with that session), or undefined. */
export async function signedIn(deps: SessionDeps, req: Request): Promise<{ user: User; session: WebSession } | undefined> {
  const session = await readSession(deps.db, deps.webKey, cookies(req)[SESSION_COOKIE], deps.now());
  const user = session ? await findUserById(deps.db, session.userId) : undefined;
  return user && session ? { user, session } : undefined;
}

/** The sign-in page, which leads to `next` (a local path) once signed in; `error` above the form. */
export function showSignIn(deps: SessionDeps, req: Request, res: Response, next: string, status = 200, error?: string): void {
  const body = `<p>Sign in with the email and password of your finance-mcp account.</p>${signInForm(csrfToken(req, res, deps.config, deps.webKey), next, error)}`;
  const nonce = newNonce();
  pageHeaders(res, nonce);
  res
    .status(status)
    .type("html")
    .send(renderPage({ title: "Sign in", body, nonce }));
}

/**
 * A form posted without a live session (it expired, was signed out elsewhere, or the account was deleted
 * meanwhile) is not acted on: 401, and the sign-in form leading back to `next`.
 */
export function sessionEnded(deps: SessionDeps, req: Request, res: Response, next = "/account"): void {
  showSignIn(deps, req, res, next, 401, "Your session ended: sign in again.");
}

/** The first step of every signed-in form: its person and session, or undefined once sessionEnded answered. */
export async function formSender(deps: SessionDeps, req: Request, res: Response, next = "/account"): Promise<{ user: User; session: WebSession } | undefined> {
  const current = await signedIn(deps, req);
  if (!current) sessionEnded(deps, req, res, next);
  return current;
}

/** A refused sign-in as a page shows it: 429 with Retry-After when throttled, else 401. Anything but an AppError is thrown again. */
export function signInRefusal(err: unknown, res: Response): { status: number; message: string } {
  if (!(err instanceof AppError)) throw err;
  if (err.errorName === "rate_limited") res.setHeader("Retry-After", String(err.details.retry_after_seconds ?? 60));
  return { status: err.errorName === "rate_limited" ? 429 : 401, message: err.message };
}

/** The address a sign-in is throttled by. */
export const clientAddress = (req: Request) => req.ip ?? req.socket.remoteAddress ?? "unknown";

/**
 * The signed-in person's password asked again before an act a borrowed session must not do alone
 * (changing the password, deleting the account). Checked like a sign-in, through the same throttle, so
 * such a session cannot guess it either. Undefined when right; else the refusal to show (signInRefusal),
 * `wrong` its message for a wrong password.
 */
export async function recheckPassword(
  deps: SessionDeps & { limits: RateLimits },
  req: Request,
  res: Response,
  user: User,
  password: unknown,
  wrong: string,
): Promise<{ status: number; message: string } | undefined> {
  try {
    await signIn(
      deps.db,
      deps.limits,
      user.email,
      String(password ?? ""),
      clientAddress(req),
      () => new AppError("unauthorized", wrong),
      knownDevice(req, deps.webKey, user.email),
    );
    return undefined;
  } catch (err) {
    return signInRefusal(err, res);
  }
}
