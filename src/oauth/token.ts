/**
 * The token endpoint's grants (authorization_code with PKCE, refresh_token) on @node-oauth/oauth2-server:
 * the library parses the request, authenticates the client, checks the code's expiry, client and
 * redirect URI, verifies PKCE (S256 only; a wrong verifier still uses the code up), narrows scopes on
 * refresh and writes the RFC 6749 answer. This model is the storage it calls, and issues finance-mcp's
 * own tokens: the access token is an `fmcp_` MCP token (a row of mcp_tokens, bound to the resource),
 * so it is checked, rate-limited, listed and revoked like any other.
 *
 * One grant (oauth_grants) per approved authorization: one mcp_tokens row whose secret and expiry each
 * refresh replaces, and a chain of refresh tokens, each usable once. Presenting a used refresh token, or
 * a used authorization code, is taken as theft: the whole grant is revoked (OAuth 2.1 §4.3.1, RFC 6749
 * §4.1.2).
 */
import OAuth2Server from "@node-oauth/oauth2-server";
import type { Knex } from "knex";
import { generateToken, hashToken } from "../auth/token-format.js";
import { newId } from "../db/ids.js";
import { dialect } from "../db/knex.js";
import { findClient, clientSecretMatches, ClientMetadataError, type OAuthClient } from "./clients.js";
import { secondsUntilSlot, tokensCreatedSince } from "./quota.js";
import { randomString, secretHash } from "./secrets.js";
import type { OAuthDeps } from "./authorize.js";
import type { OAuthUrls } from "./urls.js";

/** An access token lives an hour; the client refreshes it. */
export const ACCESS_TOKEN_TTL_S = 3600;
/** A refresh token unused for 30 days lapses; a grant lasts a year at most (the static tokens' maximum). */
export const REFRESH_TOKEN_TTL_S = 30 * 24 * 3600;
export const GRANT_TTL_MS = 365 * 24 * 3600 * 1000;
export const REFRESH_PREFIX = "fmcr_";

/** The token-creation limit is reached: answered 429 with Retry-After. */
export class QuotaError extends OAuth2Server.OAuthError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message, { code: 429, name: "temporarily_unavailable" });
  }
}

interface CodeRequest {
  redirect_uri: string;
  scopes: string[];
  code_challenge: string;
  resource: string;
}

/** Revokes a grant and its access token (theft suspected, or the client or person revoked it). */
export async function revokeGrant(db: Knex, grantId: string, now: Date): Promise<void> {
  await db.transaction(async (trx) => {
    await trx("oauth_grants").where({ id: grantId }).whereNull("revoked_at").update({ revoked_at: now.toISOString() });
    await trx("mcp_tokens").where({ grant_id: grantId }).whereNull("revoked_at").update({ revoked_at: now.toISOString() });
  });
}

type User = { id: string; grantId?: string; codeHash?: string };

/** The library's model for one token request (it knows the request's resource and caches the client). */
export function tokenModel(deps: OAuthDeps, urls: OAuthUrls) {
  const { db, config } = deps;
  const pepper = config.tokenPepper;
  let loaded: OAuthClient | undefined;

  return {
    async getClient(clientId: string, clientSecret: string | null | undefined) {
      let client: OAuthClient | undefined;
      try {
        client = await findClient(db, clientId, { allowPrivate: config.oauth.cimdAllowPrivate, now: deps.now() });
      } catch (err) {
        if (err instanceof ClientMetadataError) return null;
        throw err;
      }
      if (!client || !clientSecretMatches(client, clientSecret)) return null;
      loaded = client;
      return { id: client.clientId, grants: ["authorization_code", "refresh_token"], redirectUris: client.redirectUris };
    },

    async getAuthorizationCode(code: string) {
      const codeHash = secretHash(code, pepper);
      const row = await db("oauth_codes").where({ code_hash: codeHash }).first();
      if (!row) return null;
      if (row.used_at) {
        // A code presented twice: whoever has it may not be the client. The grant it made goes too.
        if (row.grant_id) await revokeGrant(db, String(row.grant_id), deps.now());
        return null;
      }
      const request = JSON.parse(String(row.request)) as CodeRequest;
      if (request.resource !== urls.resource) return null;
      return {
        authorizationCode: code,
        expiresAt: new Date(String(row.expires_at)),
        redirectUri: request.redirect_uri,
        scope: request.scopes,
        client: { id: String(row.client_id) },
        user: { id: String(row.user_id), codeHash } satisfies User,
        codeChallenge: request.code_challenge,
        codeChallengeMethod: "S256",
      };
    },

    async revokeAuthorizationCode(code: { authorizationCode: string }) {
      const n = await db("oauth_codes")
        .where({ code_hash: secretHash(code.authorizationCode, pepper) })
        .whereNull("used_at")
        .update({ used_at: deps.now().toISOString() });
      return n > 0;
    },

    async getRefreshToken(refreshToken: string) {
      if (!refreshToken.startsWith(REFRESH_PREFIX)) return null;
      const row = await db("oauth_refresh_tokens as r")
        .join("oauth_grants as g", "g.id", "r.grant_id")
        .where("r.token_hash", secretHash(refreshToken, pepper))
        .first(
          "r.grant_id",
          "r.scopes",
          "r.expires_at",
          "r.used_at",
          "g.user_id",
          "g.client_id",
          "g.resource",
          "g.revoked_at",
          "g.expires_at as grant_expires_at",
        );
      if (!row) return null;
      const now = deps.now();
      if (row.used_at) {
        await revokeGrant(db, String(row.grant_id), now);
        return null;
      }
      if (row.revoked_at || String(row.grant_expires_at) <= now.toISOString() || row.resource !== urls.resource) return null;
      return {
        refreshToken,
        refreshTokenExpiresAt: new Date(String(row.expires_at)),
        scope: JSON.parse(String(row.scopes)) as string[],
        client: { id: String(row.client_id) },
        user: { id: String(row.user_id), grantId: String(row.grant_id) } satisfies User,
      };
    },

    /** Uses a refresh token up; false when it already was (two refreshes raced, or a replay): the grant goes. */
    async revokeToken(token: { refreshToken?: string; user: User }) {
      const now = deps.now();
      const n = await db("oauth_refresh_tokens")
        .where({ token_hash: secretHash(token.refreshToken ?? "", pepper) })
        .whereNull("used_at")
        .update({ used_at: now.toISOString() });
      if (n === 0 && token.user.grantId) await revokeGrant(db, token.user.grantId, now);
      return n > 0;
    },

    async validateScope(_user: User, _client: unknown, scope: string[] | undefined) {
      return scope && scope.length > 0 ? scope : false;
    },

    async generateAccessToken() {
      return generateToken();
    },

    async generateRefreshToken() {
      return `${REFRESH_PREFIX}${randomString(32)}`;
    },

    async saveToken(
      token: { accessToken: string; accessTokenExpiresAt?: Date; refreshToken?: string; refreshTokenExpiresAt?: Date; scope?: string[] },
      client: { id: string },
      user: User,
    ) {
      const now = deps.now();
      const scopes = [...(token.scope ?? [])].sort();
      const accessExpires = new Date(now.getTime() + ACCESS_TOKEN_TTL_S * 1000);
      const refreshExpires = new Date(now.getTime() + REFRESH_TOKEN_TTL_S * 1000);
      await db.transaction(async (trx) => {
        // The user's row is locked (Postgres; SQLite has one writer) so that the count below and the
        // insert cannot interleave with another creation on any process (as createTokenWithinQuota).
        if (dialect(db) === "postgres") await trx("users").where({ id: user.id }).forUpdate().first("id");
        else
          await trx("users")
            .where({ id: user.id })
            .update({ updated_at: trx.ref("updated_at") });
        let grantId = user.grantId;
        if (grantId === undefined) {
          const perHour = config.rateLimits.tokensPerHour;
          if ((await tokensCreatedSince(trx, user.id, now)) >= perHour) {
            const wait = await secondsUntilSlot(trx, user.id, now, perHour);
            throw new QuotaError(`At most ${perHour} tokens may be created per hour for this account; retry in ${wait} seconds.`, wait);
          }
          grantId = `ogr_${randomString(16)}`;
          await trx("oauth_grants").insert({
            id: grantId,
            user_id: user.id,
            client_id: client.id,
            scopes: JSON.stringify(scopes),
            resource: urls.resource,
            created_at: now.toISOString(),
            expires_at: new Date(now.getTime() + GRANT_TTL_MS).toISOString(),
          });
          await trx("mcp_tokens").insert({
            id: newId("tok"),
            user_id: user.id,
            name: `${(loaded?.name ?? client.id).slice(0, 90)} (OAuth)`,
            token_hash: hashToken(token.accessToken, pepper),
            scopes: JSON.stringify(scopes),
            created_at: now.toISOString(),
            expires_at: accessExpires.toISOString(),
            grant_id: grantId,
            resource: urls.resource,
          });
          if (user.codeHash) await trx("oauth_codes").where({ code_hash: user.codeHash }).update({ grant_id: grantId });
        } else {
          // A refresh: the grant's one token gets the new secret, expiry and (possibly narrower) scopes.
          const grant = await trx("oauth_grants").where({ id: grantId }).first("revoked_at");
          if (!grant || grant.revoked_at) throw new OAuth2Server.InvalidGrantError("Invalid grant: the grant was revoked");
          await trx("mcp_tokens")
            .where({ grant_id: grantId })
            .update({ token_hash: hashToken(token.accessToken, pepper), scopes: JSON.stringify(scopes), expires_at: accessExpires.toISOString() });
        }
        // A grant's expired refresh tokens go (a used one is kept until it expires, to recognise its replay).
        await trx("oauth_refresh_tokens").where({ grant_id: grantId }).where("expires_at", "<", now.toISOString()).delete();
        await trx("oauth_refresh_tokens").insert({
          token_hash: secretHash(token.refreshToken!, pepper),
          grant_id: grantId,
          scopes: JSON.stringify(scopes),
          created_at: now.toISOString(),
          expires_at: refreshExpires.toISOString(),
        });
      });
      return { ...token, accessTokenExpiresAt: accessExpires, refreshTokenExpiresAt: refreshExpires, scope: scopes, client, user };
    },
  };
}

const server = new OAuth2Server({ model: {} as never });

/**
 * Runs a token request through the library. `body` is the parsed form; answers status, headers and the
 * JSON body to send (errors included, as RFC 6749 §5.2 objects).
 */
export async function handleTokenRequest(
  deps: OAuthDeps,
  urls: OAuthUrls,
  req: { method: string; headers: Record<string, unknown>; query: Record<string, unknown>; body: Record<string, unknown> },
): Promise<{ status: number; headers: Record<string, string>; body: Record<string, unknown>; error?: unknown }> {
  const request = new OAuth2Server.Request(req as never);
  const response = new OAuth2Server.Response({ headers: {} });
  try {
    await server.token(request, response, {
      model: tokenModel(deps, urls) as never,
      accessTokenLifetime: ACCESS_TOKEN_TTL_S,
      refreshTokenLifetime: REFRESH_TOKEN_TTL_S,
      // Public clients (MCP clients are, mostly) authenticate with PKCE and their client_id; a client
      // registered with a secret is still held to it by getClient above.
      requireClientAuthentication: { authorization_code: false, refresh_token: false },
      alwaysIssueNewRefreshToken: true,
    } as never);
    return { status: 200, headers: response.headers as Record<string, string>, body: response.body as Record<string, unknown> };
  } catch (err) {
    const e = err as { code?: number; name?: string; message?: string; retryAfterSeconds?: number };
    const headers: Record<string, string> = { ...(response.headers as Record<string, string>) };
    if (err instanceof QuotaError) headers["retry-after"] = String(err.retryAfterSeconds);
    // A server_error's message may come from the database: never sent.
    const serverSide = !(err instanceof OAuth2Server.OAuthError) || e.name === "server_error";
    // invalid_client is always 401 (RFC 6749 §5.2 allows it): hosted clients such as Claude.ai register
    // again on a 401 invalid_client, which recovers a client whose registration this server lost.
    const invalidClient = !serverSide && e.name === "invalid_client";
    if (invalidClient) headers["www-authenticate"] = 'Basic realm="finance-mcp"';
    const status = serverSide ? 500 : invalidClient ? 401 : (e.code ?? 400);
    return {
      status,
      headers,
      body: serverSide ? { error: "server_error", error_description: "The server failed; try again." } : { error: e.name, error_description: e.message },
      error: serverSide ? err : undefined,
    };
  }
}
