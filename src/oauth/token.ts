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
 * §4.1.2). Two exceptions keep honest clients connected (docs/oauth.md "Refresh tokens"):
 * - the refresh token the grant's last refresh used up works again for REFRESH_GRACE_S after that use
 *   (a client whose answer was lost retries); the new answer supersedes the lost one;
 * - a refresh asking for a scope the grant does not hold is refused before the token is used up.
 * A new grant for a client ends the person's earlier grants for that same client (a scope step-up
 * replaces the narrower grant rather than leaving two).
 */
import { createHash, timingSafeEqual } from "node:crypto";
import OAuth2Server from "@node-oauth/oauth2-server";
import type { Knex } from "knex";
import { generateToken, hashToken } from "../auth/token-format.js";
import { newId } from "../db/ids.js";
import { forUpdate } from "../db/dialect.js";
import { lockUserRow } from "../db/locks.js";
import { normalizeScope } from "./authorize.js";
import { mixedClientAuthentication } from "./client-auth.js";
import { clientSecretMatches, findStoredClient, touchClient, type OAuthClient } from "./clients.js";
import { secondsUntilSlot, tokensCreatedSince } from "./quota.js";
import { randomString, secretHash } from "./secrets.js";
import type { OAuthDeps } from "./authorize.js";
import { endpointOfResource, type OAuthUrls } from "./urls.js";

/** An access token lives an hour; the client refreshes it. */
export const ACCESS_TOKEN_TTL_S = 3600;
/** A refresh token unused for 30 days lapses; a grant lasts a year at most (the static tokens' maximum). */
export const REFRESH_TOKEN_TTL_S = 30 * 24 * 3600;
export const GRANT_TTL_MS = 365 * 24 * 3600 * 1000;
export const REFRESH_PREFIX = "fmcr_";
/**
 * The refresh token a refresh used up may be presented again for this long (a client retrying after a
 * timeout). Within it, a thief holding a copy is not caught at once; the grant is still revoked as soon
 * as any superseded token is presented (docs/decisions.md#oauth-under-attack, "Refresh-token grace").
 */
export const REFRESH_GRACE_S = 60;

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

/** `resource`: the endpoint an authorization code was issued for (the full or the read-only one), kept by its grant. */
type User = { id: string; grantId?: string; codeHash?: string; refreshHash?: string; resource?: string };

/**
 * A code presented again after its exchange: marked, so that an exchange still running refuses to create
 * its grant (it locks the code row, src/oauth/token.ts saveToken), and the grant an exchange already made
 * is revoked. The UPDATE waits for that exchange's lock on Postgres, so it reads the grant id committed.
 */
async function codeReplayed(db: Knex, codeHash: string, now: Date): Promise<void> {
  await db("oauth_codes").where({ code_hash: codeHash }).whereNull("replayed_at").update({ replayed_at: now.toISOString() });
  const row = await db("oauth_codes").where({ code_hash: codeHash }).first("grant_id");
  if (row?.grant_id) await revokeGrant(db, String(row.grant_id), now);
}

/** How long after a code's first use its own client's retry (with the verifier) is refused without revoking the grant. */
export const CODE_RETRY_WINDOW_S = 30;

/** Whether `verifier` is the PKCE verifier of the S256 `challenge` (RFC 7636 §4.6), compared in constant time. */
function verifierMatches(verifier: string | undefined, challenge: string): boolean {
  if (!verifier) return false;
  const got = Buffer.from(createHash("sha256").update(verifier).digest("base64url"));
  const want = Buffer.from(challenge);
  return got.length === want.length && timingSafeEqual(got, want);
}

/** Whether `hash` is the refresh token the grant's last refresh used up, within REFRESH_GRACE_S of that use. */
function inGrace(grant: { previous_refresh_hash?: unknown; previous_refresh_used_at?: unknown }, hash: string, now: Date): boolean {
  if (grant.previous_refresh_hash !== hash || !grant.previous_refresh_used_at) return false;
  return now.getTime() - Date.parse(String(grant.previous_refresh_used_at)) <= REFRESH_GRACE_S * 1000;
}

/**
 * The library's model for one token request (it knows the request's resource and caches the client).
 * `requestedScope` is the request's (normalized) scope parameter: a refresh checks it before using the
 * refresh token up.
 */
export function tokenModel(deps: OAuthDeps, urls: OAuthUrls, requestedScope?: string, codeVerifier?: string, requestedResource?: string) {
  const { db, config } = deps;
  const pepper = config.tokenPepper;
  let loaded: OAuthClient | undefined;
  /**
   * The code's own client presenting it again within RETRY_WINDOW_S of its first use (it holds the PKCE
   * verifier): a parallel or repeated retry, refused without revoking, so that exactly one exchange
   * yields a token. Anyone else presenting a used code, or the client much later, is a replay
   * (docs/decisions.md#concurrent-code-exchange).
   */
  const clientRetry = async (codeHash: string, challenge: unknown): Promise<boolean> => {
    if (typeof challenge !== "string" || !verifierMatches(codeVerifier, challenge)) return false;
    const row = await db("oauth_codes").where({ code_hash: codeHash }).first("used_at");
    return !!row?.used_at && deps.now().getTime() - Date.parse(String(row.used_at)) <= CODE_RETRY_WINDOW_S * 1000;
  };

  return {
    async getClient(clientId: string, clientSecret: string | null | undefined) {
      // Stored clients only: a metadata-document client that never authorized here holds no code or token,
      // and looking it up must not make this server fetch a URL a stranger chose.
      const client = await findStoredClient(db, clientId);
      if (!client || !clientSecretMatches(client, clientSecret)) return null;
      await touchClient(db, client.clientId, deps.now());
      loaded = client;
      return { id: client.clientId, grants: ["authorization_code", "refresh_token"], redirectUris: client.redirectUris };
    },

    async getAuthorizationCode(code: string) {
      const codeHash = secretHash(code, pepper);
      const row = await db("oauth_codes").where({ code_hash: codeHash }).first();
      if (!row) return null;
      const request = JSON.parse(String(row.request)) as CodeRequest;
      if (row.used_at) {
        if (await clientRetry(codeHash, request.code_challenge)) return null;
        // A code presented twice: whoever has it may not be the client. The grant it made goes too.
        await codeReplayed(db, codeHash, deps.now());
        return null;
      }
      // The code's endpoint must be one of this server's, and the one the token request names, if it names one (RFC 8707).
      if (!endpointOfResource(urls, request.resource) || (requestedResource !== undefined && requestedResource !== request.resource)) return null;
      return {
        authorizationCode: code,
        expiresAt: new Date(String(row.expires_at)),
        redirectUri: request.redirect_uri,
        scope: request.scopes,
        client: { id: String(row.client_id) },
        user: { id: String(row.user_id), codeHash, resource: request.resource } satisfies User,
        codeChallenge: request.code_challenge,
        codeChallengeMethod: "S256",
      };
    },

    async revokeAuthorizationCode(code: { authorizationCode: string; codeChallenge?: string }) {
      const codeHash = secretHash(code.authorizationCode, pepper);
      const n = await db("oauth_codes").where({ code_hash: codeHash }).whereNull("used_at").update({ used_at: deps.now().toISOString() });
      // Another exchange of the same code got there first (both read it unused): refused, and a replay
      // unless it is the client's own parallel retry.
      if (n === 0 && !(await clientRetry(codeHash, code.codeChallenge))) await codeReplayed(db, codeHash, deps.now());
      return n > 0;
    },

    async getRefreshToken(refreshToken: string) {
      if (!refreshToken.startsWith(REFRESH_PREFIX)) return null;
      const refreshHash = secretHash(refreshToken, pepper);
      const row = await db("oauth_refresh_tokens as r")
        .join("oauth_grants as g", "g.id", "r.grant_id")
        .where("r.token_hash", refreshHash)
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
          "g.previous_refresh_hash",
          "g.previous_refresh_used_at",
        );
      if (!row) return null;
      const now = deps.now();
      if (row.used_at && !inGrace(row, refreshHash, now)) {
        await revokeGrant(db, String(row.grant_id), now);
        return null;
      }
      if (
        row.revoked_at ||
        String(row.grant_expires_at) <= now.toISOString() ||
        !endpointOfResource(urls, String(row.resource)) ||
        (requestedResource !== undefined && requestedResource !== row.resource)
      )
        return null;
      const scope = JSON.parse(String(row.scopes)) as string[];
      // Before the token is used up (the library checks only afterwards): a wider scope leaves it valid.
      const wider = requestedScope ? requestedScope.split(" ").filter((s) => !scope.includes(s)) : [];
      if (wider.length) throw new OAuth2Server.InvalidScopeError(`Invalid scope: the grant does not hold ${wider.join(", ")}; authorize again to widen it`);
      return {
        refreshToken,
        refreshTokenExpiresAt: new Date(String(row.expires_at)),
        scope,
        client: { id: String(row.client_id) },
        user: { id: String(row.user_id), grantId: String(row.grant_id), refreshHash } satisfies User,
      };
    },

    /**
     * Uses a refresh token up and remembers it as the grant's previous one (for the grace). False when it
     * was already used and is not in its grace (a replay, or a race lost after the grace): the grant goes.
     */
    async revokeToken(token: { refreshToken?: string; user: User }) {
      const now = deps.now();
      const hash = token.user.refreshHash ?? secretHash(token.refreshToken ?? "", pepper);
      const grantId = token.user.grantId!;
      const used = await db.transaction(async (trx) => {
        const n = await trx("oauth_refresh_tokens").where({ token_hash: hash }).whereNull("used_at").update({ used_at: now.toISOString() });
        if (n > 0) await trx("oauth_grants").where({ id: grantId }).update({ previous_refresh_hash: hash, previous_refresh_used_at: now.toISOString() });
        return n > 0;
      });
      if (used) return true;
      const grant = await db("oauth_grants").where({ id: grantId }).first("previous_refresh_hash", "previous_refresh_used_at");
      if (grant && inGrace(grant, hash, now)) return true;
      await revokeGrant(db, grantId, now);
      return false;
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
        await lockUserRow(trx, user.id);
        let grantId = user.grantId;
        if (grantId === undefined) {
          if (user.codeHash) {
            // The code's row is locked until this grant is committed: a replay of the code waits, then
            // revokes the grant; a replay that came first makes this exchange fail (codeReplayed).
            const code = await forUpdate(trx, trx("oauth_codes").where({ code_hash: user.codeHash })).first("replayed_at");
            if (!code || code.replayed_at) throw new OAuth2Server.InvalidGrantError("Invalid grant: the authorization code was presented twice");
          }
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
            resource: user.resource ?? urls.resource,
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
            resource: user.resource ?? urls.resource,
          });
          if (user.codeHash) await trx("oauth_codes").where({ code_hash: user.codeHash }).update({ grant_id: grantId });
          // A new grant replaces the person's earlier grants for this client (a scope step-up): they end now.
          const earlier = trx("oauth_grants").where({ user_id: user.id, client_id: client.id }).whereNot({ id: grantId }).whereNull("revoked_at");
          await trx("mcp_tokens").whereIn("grant_id", earlier.clone().select("id")).whereNull("revoked_at").update({ revoked_at: now.toISOString() });
          await earlier.update({ revoked_at: now.toISOString() });
        } else {
          // A refresh: the grant's one token gets the new secret, expiry and (possibly narrower) scopes. The
          // grant row is locked, so two refreshes of one grant (a retry in its grace) follow each other.
          const grant = await forUpdate(trx, trx("oauth_grants").where({ id: grantId })).first("revoked_at");
          if (!grant || grant.revoked_at) throw new OAuth2Server.InvalidGrantError("Invalid grant: the grant was revoked");
          await trx("mcp_tokens")
            .where({ grant_id: grantId })
            .update({ token_hash: hashToken(token.accessToken, pepper), scopes: JSON.stringify(scopes), expires_at: accessExpires.toISOString() });
          // Any refresh token still unused (one a retry's lost answer carried) is superseded: marked used, so
          // presenting it later revokes the grant. One chain stays alive.
          await trx("oauth_refresh_tokens").where({ grant_id: grantId }).whereNull("used_at").update({ used_at: now.toISOString() });
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
  const mixed = mixedClientAuthentication(req.headers.authorization as string | undefined, req.body);
  if (mixed) return { status: 400, headers: {}, body: { error: "invalid_request", error_description: mixed } };
  // Hosted clients have been seen sending " scope": trimmed and collapsed before anything checks it.
  const body = { ...req.body };
  if (typeof body.scope === "string") body.scope = normalizeScope(body.scope);
  if (body.scope === "") delete body.scope;
  const request = new OAuth2Server.Request({ ...req, body } as never);
  const response = new OAuth2Server.Response({ headers: {} });
  try {
    await server.token(request, response, {
      model: tokenModel(
        deps,
        urls,
        typeof body.scope === "string" ? body.scope : undefined,
        typeof body.code_verifier === "string" ? body.code_verifier : undefined,
        typeof body.resource === "string" ? body.resource : undefined,
      ) as never,
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
