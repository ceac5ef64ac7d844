/**
 * The OAuth 2.1 endpoints (docs/oauth.md):
 *   GET  /.well-known/oauth-protected-resource[/api/v1/mcp]  RFC 9728 metadata of the MCP endpoint
 *   GET  /.well-known/oauth-protected-resource/api/v1/mcp/read  the same for the read-only endpoint
 *   GET  /.well-known/oauth-authorization-server             RFC 8414 metadata of the issuer
 *   POST /oauth/register    Dynamic Client Registration (RFC 7591)
 *   GET  /oauth/authorize   checks the request, then hands over to the consent page (src/web)
 *   POST /oauth/token       authorization_code (PKCE S256) and refresh_token grants
 *   POST /oauth/revoke      RFC 7009
 * When OAuth is off for a request (OAUTH=off, or no PUBLIC_URL and a Host that is not loopback) every
 * one of them falls through to the 404, as on a server without OAuth.
 */
import express, { type NextFunction, type Request, type Response, type Router } from "express";
import type { Config } from "../config.js";
import { describeForLog } from "../db/errors.js";
import { AppError } from "../errors.js";
import type { Logger } from "../log.js";
import { hostAndOriginGuard } from "./guards.js";
import { publicCors } from "./cors.js";
import { scopeOf } from "./request-scope.js";
import cors from "cors";
import type { Knex } from "knex";
import { addressKey } from "../limits/login.js";
import type { RateLimits } from "../limits/types.js";
import { AuthorizationPageError, startAuthorization, type OAuthDeps } from "../oauth/authorize.js";
import { ClientMetadataError, registerClient } from "../oauth/clients.js";
import { sendAuthorizationErrorPage } from "../oauth/error-page.js";
import { authorizationServerMetadata, protectedResourceMetadata } from "../oauth/metadata.js";
import { revokeRequest } from "../oauth/revoke.js";
import { handleTokenRequest } from "../oauth/token.js";
import {
  AS_METADATA_PATH,
  AUTHORIZE_PATH,
  endpointOfResource,
  MCP_PATH,
  MCP_READ_PATH,
  oauthUrls,
  PRM_PATH,
  REGISTER_PATH,
  REVOKE_PATH,
  TOKEN_PATH,
  type OAuthUrls,
} from "../oauth/urls.js";

export interface OAuthRouteDeps {
  db: Knex;
  config: Config;
  log: Logger;
  now: () => Date;
  limits: RateLimits;
}

const MAX_BODY = "16kb";
/** Registration, token and revocation are called by clients from anywhere (no cookies are involved). */
const clientCors = cors({ origin: "*", methods: ["POST"], maxAge: 600 });

export function oauthRouter(deps: OAuthRouteDeps): Router {
  const router = express.Router();
  const oauthDeps: OAuthDeps = { db: deps.db, config: deps.config, now: deps.now };
  // Only the Host is checked: these endpoints are meant for clients of any origin.
  const hostGuard = hostAndOriginGuard({ ...deps.config, allowedOrigins: ["*"] });
  const form = express.urlencoded({ extended: false, limit: MAX_BODY, parameterLimit: 50 });
  const json = express.json({ limit: MAX_BODY, type: () => true });

  /** Resolves the request's OAuth URLs, or falls through to the 404 when OAuth is off for it. */
  const withUrls =
    (fn: (urls: OAuthUrls, req: Request, res: Response) => Promise<void> | void) =>
    (req: Request, res: Response, next: NextFunction): void => {
      const urls = oauthUrls(deps.config, req.headers);
      if (!urls) return next();
      Promise.resolve(fn(urls, req, res)).catch((err: unknown) => {
        deps.log.error("oauth_endpoint_error", { request_id: scopeOf(res).request_id, ...describeForLog(err) });
        if (!res.headersSent)
          res.status(500).set("Cache-Control", "no-store").json({ error: "server_error", error_description: "The server failed; try again." });
      });
    };

  /**
   * Registration and authorization need no credentials, and an authorization request may make the server
   * fetch a metadata document: RATE_LIMIT_OAUTH_PER_HOUR per client address (an IPv6 /64 counts as one).
   */
  const perAddress = (req: Request, res: Response, next: NextFunction) => {
    deps.limits.consume("oauth", addressKey(req.ip ?? req.socket.remoteAddress ?? "unknown")).then(
      (d) => {
        if (d.allowed) return next();
        res.set("Retry-After", String(d.resetSeconds)).set("Cache-Control", "no-store");
        const message = `Too many OAuth requests from this address: at most ${d.limit} per hour. Wait ${d.resetSeconds} seconds, then retry.`;
        if (req.method === "GET") sendAuthorizationErrorPage(res, 429, message, "temporarily_unavailable", d.resetSeconds);
        else res.status(429).json({ error: "temporarily_unavailable", error_description: message });
      },
      (err: unknown) => {
        // The limit's store failed (src/limits/limiter.ts, UNINSURED): not counted, so not served.
        if (!(err instanceof AppError) || err.errorName !== "unavailable") return next(err);
        res.set("Retry-After", "5").set("Cache-Control", "no-store");
        const message = "This request could not be counted against the per-address limit. Retry in 5 seconds.";
        if (req.method === "GET") sendAuthorizationErrorPage(res, 503, message, "temporarily_unavailable", 5);
        else res.status(503).json({ error: "temporarily_unavailable", error_description: message });
      },
    );
  };

  /** Skips the route (towards the 404) when OAuth is off for the request, before any body is read. */
  const oauthOn = (req: Request, _res: Response, next: NextFunction) => (oauthUrls(deps.config, req.headers) ? next() : next("route"));

  const bodyError = (res: Response, err: unknown) => {
    const tooLarge = (err as { type?: string }).type === "entity.too.large";
    res
      .status(tooLarge ? 413 : 400)
      .set("Cache-Control", "no-store")
      .json({ error: "invalid_request", error_description: tooLarge ? `The body is larger than ${MAX_BODY}.` : "The body cannot be parsed." });
  };
  const parse = (parser: express.RequestHandler) => (req: Request, res: Response, next: NextFunction) =>
    parser(req, res, (err?: unknown) => (err ? bodyError(res, err) : next()));

  for (const [path, endpoint] of [
    [PRM_PATH, "full"],
    [`${PRM_PATH}${MCP_PATH}`, "full"],
    [`${PRM_PATH}${MCP_READ_PATH}`, "read"],
  ] as const) {
    router.options(path, publicCors);
    router.get(
      path,
      hostGuard,
      publicCors,
      withUrls((urls, _req, res) => void res.json(protectedResourceMetadata(urls, endpoint))),
    );
  }
  router.options(AS_METADATA_PATH, publicCors);
  router.get(
    AS_METADATA_PATH,
    hostGuard,
    publicCors,
    withUrls((urls, _req, res) => void res.json(authorizationServerMetadata(urls))),
  );

  router.options([REGISTER_PATH, TOKEN_PATH, REVOKE_PATH], clientCors);

  router.post(
    REGISTER_PATH,
    oauthOn,
    hostGuard,
    clientCors,
    perAddress,
    (req, res, next) => {
      if (/^application\/json\b/i.test(req.headers["content-type"] ?? "")) return next();
      res
        .status(400)
        .set("Cache-Control", "no-store")
        .json({ error: "invalid_client_metadata", error_description: "Send the client metadata as application/json." });
    },
    parse(json),
    withUrls(async (_urls, req, res) => {
      res.set("Cache-Control", "no-store");
      try {
        const { response, client } = await registerClient(deps.db, req.body, deps.now());
        deps.log.info("oauth_client_registered", { request_id: scopeOf(res).request_id, client_id: client.clientId });
        res.status(201).json(response);
      } catch (err) {
        if (!(err instanceof ClientMetadataError)) throw err;
        res.status(400).json({ error: err.error, error_description: err.message });
      }
    }),
  );

  router.get(
    AUTHORIZE_PATH,
    oauthOn,
    hostGuard,
    perAddress,
    withUrls(async (urls, req, res) => {
      res.set("Cache-Control", "no-store");
      const requester = addressKey(req.ip ?? req.socket.remoteAddress ?? "unknown");
      try {
        res.redirect(302, await startAuthorization(oauthDeps, urls, req.query as Record<string, unknown>, requester));
      } catch (err) {
        if (!(err instanceof AuthorizationPageError)) throw err;
        // Never a redirect to the client (RFC 9700 §4.11.2): src/oauth/authorize.ts.
        sendAuthorizationErrorPage(res, err.status, err.message, err.error, err.retryAfterSeconds);
      }
    }),
  );

  router.post(
    TOKEN_PATH,
    oauthOn,
    hostGuard,
    clientCors,
    parse(form),
    withUrls(async (urls, req, res) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      res.set("Cache-Control", "no-store").set("Pragma", "no-cache");
      if (body.resource !== undefined && (typeof body.resource !== "string" || !endpointOfResource(urls, body.resource))) {
        res.status(400).json({
          error: "invalid_target",
          error_description: `resource must be one of this server's MCP endpoints, ${urls.resource} or ${urls.readResource}`,
        });
        return;
      }
      const answer = await handleTokenRequest(oauthDeps, urls, { method: req.method, headers: req.headers as Record<string, unknown>, query: {}, body });
      if (answer.error) deps.log.error("oauth_token_error", { request_id: scopeOf(res).request_id, ...describeForLog(answer.error) });
      for (const [k, v] of Object.entries(answer.headers)) if (k.toLowerCase() !== "content-type") res.set(k, v);
      res.status(answer.status).json(answer.body);
    }),
  );

  router.post(
    REVOKE_PATH,
    oauthOn,
    hostGuard,
    clientCors,
    parse(form),
    withUrls(async (_urls, req, res) => {
      res.set("Cache-Control", "no-store");
      const outcome = await revokeRequest(oauthDeps, (req.body ?? {}) as Record<string, unknown>, req.headers.authorization);
      if (outcome.status === 200) return void res.status(200).end();
      if (outcome.status === 401) res.set("WWW-Authenticate", 'Basic realm="finance-mcp"');
      res.status(outcome.status).json({ error: outcome.error, error_description: outcome.description });
    }),
  );

  return router;
}
