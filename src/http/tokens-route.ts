/**
 * The MCP tokens endpoint, authenticated with HTTP Basic (email and password):
 *   POST   /api/v1/mcp-tokens            create a token: 201 with the secret, shown this once
 *   GET    /api/v1/mcp-tokens            the user's tokens, never their secrets or hashes
 *   DELETE /api/v1/mcp-tokens/:token_id  revoke one: effective on the next request, on every process
 *
 * Order of checks: Host/Origin 403 → credentials 401 (login throttle 429 first) → Content-Type 415 →
 * JSON 400 → body 400 (naming the field) → creation limit 429 → create.
 * Error bodies are `{ "error": <JSON-RPC error object> }` with the stable data.code of docs/errors.md.
 */
import express, { type NextFunction, type Request, type Response, type Router } from "express";
import { describeForLog } from "../db/errors.js";
import type { Knex } from "knex";
import type { Config } from "../config.js";
import { AppError, internalError } from "../errors.js";
import { errorObject } from "../rpc/message.js";
import type { Logger } from "../log.js";
import type { RateLimits } from "../limits/types.js";
import {
  createTokenWithinQuota,
  listTokens,
  revokeToken,
  TokenInputError,
  TokenQuotaError,
  tokenStatus,
  validateNewToken,
  type TokenRow,
} from "../auth/tokens.js";
import { authenticateBasic, BASIC_CHALLENGE } from "./basic-auth.js";
import { hostAndOriginGuard } from "./guards.js";
import { applyLimit } from "./rate-limit-headers.js";
import { scopeOf } from "./request-scope.js";

export interface TokensRouteDeps {
  db: Knex;
  config: Config;
  log: Logger;
  limits: RateLimits;
  now: () => Date;
}

const PATH = "/api/v1/mcp-tokens";
const MAX_BODY = "16kb";

/** An error answered with a given HTTP status (400, 404, 413, 415) instead of the error's default. */
class StatusError extends AppError {
  constructor(
    readonly status: number,
    err: AppError,
  ) {
    super(err.errorName, err.message, err.details);
  }
}

function sendError(res: Response, status: number, err: AppError): void {
  if (err.errorName === "unauthorized") res.setHeader("WWW-Authenticate", BASIC_CHALLENGE);
  if (err.errorName === "rate_limited" && typeof err.details.retry_after_seconds === "number")
    res.setHeader("Retry-After", String(err.details.retry_after_seconds));
  res.status(status).json({ error: errorObject(err) });
}

const badBody = (status: number, message: string, field = "(body)", expected = "a JSON object sent as application/json", extra: Record<string, unknown> = {}) =>
  new StatusError(status, new AppError("invalid_params", message, { field, expected, ...extra }));

function publicToken(t: TokenRow, now: Date) {
  return {
    token_id: t.token_id,
    name: t.name,
    scopes: t.scopes,
    created_at: t.created_at,
    expires_at: t.expires_at,
    last_used_at: t.last_used_at,
    revoked_at: t.revoked_at,
    status: tokenStatus(t, now),
  };
}

export function tokensRouter(deps: TokensRouteDeps): Router {
  const router = express.Router();
  const guard = hostAndOriginGuard(deps.config);
  const jsonBody = express.json({ limit: MAX_BODY, strict: false, type: () => true });

  const handle =
    (fn: (req: Request, res: Response) => Promise<void>) =>
    (req: Request, res: Response, _next: NextFunction): void => {
      res.setHeader("Cache-Control", "no-store");
      fn(req, res).catch((err: unknown) => {
        if (res.headersSent) return;
        if (err instanceof StatusError) return sendError(res, err.status, err);
        if (err instanceof AppError) return sendError(res, err.httpStatus, err);
        deps.log.error("tokens_endpoint_error", { request_id: scopeOf(res).request_id, ...describeForLog(err) });
        const internal = internalError();
        sendError(res, internal.httpStatus, internal);
      });
    };

  const readJson = (req: Request, res: Response): Promise<unknown> =>
    new Promise((resolve, reject) => {
      if (!/^application\/json\b/i.test(req.headers["content-type"] ?? "")) return reject(badBody(415, "Content-Type must be application/json."));
      jsonBody(req, res, (err?: unknown) => {
        if (!err) return resolve(req.body);
        if ((err as { type?: string }).type === "entity.too.large") return reject(badBody(413, `The body is larger than ${MAX_BODY}.`));
        reject(badBody(400, "The body is not valid JSON."));
      });
    });

  router.post(
    PATH,
    guard,
    handle(async (req, res) => {
      const user = await authenticateBasic(deps.db, deps.limits, req);
      scopeOf(res).user_id = user.id;
      const body = await readJson(req, res);
      let input: ReturnType<typeof validateNewToken>;
      try {
        input = validateNewToken(body);
      } catch (err) {
        if (!(err instanceof TokenInputError)) throw err;
        throw badBody(400, err.message, err.field, err.expected, err.extra);
      }
      try {
        await applyLimit(deps.limits, res, "tokens", user.id);
      } catch (err) {
        if (err instanceof AppError && err.errorName === "rate_limited") {
          throw new AppError(
            "rate_limited",
            `Too many tokens created: at most ${deps.config.rateLimits.tokensPerHour} per hour per user. Wait ${err.details.retry_after_seconds} seconds, then retry.`,
            err.details,
          );
        }
        throw err;
      }
      const now = deps.now();
      try {
        const created = await createTokenWithinQuota(deps.db, user.id, input, deps.config.tokenPepper, deps.config.rateLimits.tokensPerHour, now);
        deps.log.info("token_created", { request_id: scopeOf(res).request_id, user_id: user.id, token_id: created.token_id, scopes: created.scopes });
        res.status(201).json({
          token: created.token,
          token_id: created.token_id,
          user_id: created.user_id,
          name: created.name,
          scopes: created.scopes,
          created_at: created.created_at,
          expires_at: created.expires_at,
        });
      } catch (err) {
        if (!(err instanceof TokenQuotaError)) throw err;
        throw new AppError(
          "rate_limited",
          `Too many tokens created: at most ${err.limit} per hour per user. Wait ${err.retryAfterSeconds} seconds, then retry.`,
          {
            retry_after_seconds: err.retryAfterSeconds,
          },
        );
      }
    }),
  );

  router.get(
    PATH,
    guard,
    handle(async (req, res) => {
      const user = await authenticateBasic(deps.db, deps.limits, req);
      scopeOf(res).user_id = user.id;
      const now = deps.now();
      res.json({ tokens: (await listTokens(deps.db, user.id)).map((t) => publicToken(t, now)) });
    }),
  );

  router.delete(
    `${PATH}/:token_id`,
    guard,
    handle(async (req, res) => {
      const user = await authenticateBasic(deps.db, deps.limits, req);
      scopeOf(res).user_id = user.id;
      const tokenId = String(req.params.token_id);
      const now = deps.now();
      if (!(await revokeToken(deps.db, user.id, tokenId, now))) {
        throw new StatusError(
          404,
          new AppError("not_found", `token_id: no token with id ${JSON.stringify(tokenId)} exists for this user. GET ${PATH} lists the user's tokens.`, {
            field: "token_id",
            expected: "the id of one of the user's tokens",
          }),
        );
      }
      const token = (await listTokens(deps.db, user.id)).find((t) => t.token_id === tokenId)!;
      deps.log.info("token_revoked", { request_id: scopeOf(res).request_id, user_id: user.id, token_id: tokenId });
      res.json(publicToken(token, now));
    }),
  );

  return router;
}
