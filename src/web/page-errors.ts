/**
 * The error answer of the web pages: a body the form parser refuses (too large, too many fields, bad
 * encoding) or a crash gets a page with the same security headers as every other page, never the
 * framework's default answer (which shows the error and its stack). The cause is logged, never shown.
 */
import type { ErrorRequestHandler, NextFunction, Request, Response } from "express";
import { describeForLog } from "../db/errors.js";
import type { Logger } from "../log.js";
import { renderPage } from "./layout.js";
import { newNonce, pageHeaders } from "./security.js";

export function pageErrors(log: Logger): ErrorRequestHandler {
  return (err: unknown, _req, res, next) => {
    if (res.headersSent) return next(err);
    const status = (err as { status?: unknown }).status;
    const form = typeof status === "number" && status >= 400 && status < 500;
    if (!form) log.error("web_page_error", describeForLog(err));
    const nonce = newNonce();
    pageHeaders(res, nonce);
    res
      .status(form ? status : 500)
      .type("html")
      .send(
        renderPage(
          form
            ? { title: "This form could not be read", body: "<p>The form was too large or malformed. Go back, reload the page and try again.</p>", nonce }
            : { title: "Something went wrong", body: "<p>The server could not complete this request. Try again in a moment.</p>", nonce },
        ),
      );
  };
}

/** An async page handler as an Express one: what it throws goes on to pageErrors. */
export const asyncPage =
  (h: (req: Request, res: Response) => Promise<void>) =>
  (req: Request, res: Response, next: NextFunction): void =>
    void h(req, res).catch(next);
