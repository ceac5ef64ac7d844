/**
 * The authorization endpoint's two halves.
 *
 * GET /oauth/authorize (validateAuthorizationRequest + startAuthorization): checks the request of the
 * client, stores it as a pending authorization under an opaque id, and sends the browser to the consent
 * page (GET /oauth/consent?request=<id>, rendered by src/web). The consent page shows
 * describePendingAuthorization(id) to the signed-in person and ends with completeAuthorization(id,
 * userId, scopes | null), whose URL it redirects the browser to: the client's redirect URI with a code
 * (or error=access_denied), its state, and iss (RFC 9207). docs/oauth.md describes this interface.
 *
 * Every request error is shown to the person on a page, never redirected: anyone can register a
 * redirect URI here (dynamic registration, metadata documents), so redirecting errors at once would make
 * this server an open redirector (RFC 9700 §4.11.2). The browser goes back to the client only after the
 * person signed in and decided (completeAuthorization).
 */
import type { Knex } from "knex";
import type { Config } from "../config.js";
import { KNOWN_SCOPES } from "../auth/tokens.js";
import { READ_SCOPES } from "../auth/tool-access.js";
import { ClientMetadataError, findClient, findStoredClient, redirectUriMatches, redirectUriProblem, touchClient, type OAuthClient } from "./clients.js";
import { FetchBusyError } from "./fetch-gate.js";
import { randomString, secretHash } from "./secrets.js";
import { CONSENT_PATH, endpointOfResource, endpointResource, type OAuthUrls } from "./urls.js";
import { tokensCreatedSince } from "./quota.js";
import { instantPlusDays } from "../calendar/days.js";

/** The person has this long to sign in and decide. */
export const PENDING_TTL_MS = 10 * 60_000;
/** An authorization code lives this long, and is used once. */
export const CODE_TTL_MS = 60_000;

export interface OAuthDeps {
  db: Knex;
  config: Config;
  now: () => Date;
}

/** What the pending row holds (JSON in oauth_pending.request). */
interface PendingRequest {
  redirect_uri: string;
  /** Requested scopes; every known scope when the client named none. */
  scopes: string[];
  state: string | null;
  code_challenge: string;
  resource: string;
  issuer: string;
}

/**
 * A request the person is told about on a page: `error` is the RFC 6749 §4.1.2.1 code the client would
 * have received; `status` 400, or 503 with `retryAfterSeconds` when too many documents are being fetched.
 */
export class AuthorizationPageError extends Error {
  constructor(
    message: string,
    readonly error = "invalid_request",
    readonly status: 400 | 503 = 400,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

function responseUrl(redirectUri: string, params: Record<string, string | null>): string {
  const u = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== null) u.searchParams.set(k, v);
  return u.toString();
}

const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** A scope parameter trimmed, with runs of whitespace made one space (hosted clients send " a b"). */
export function normalizeScope(scope: string): string {
  return scope.trim().split(/\s+/).join(" ");
}
const MAX_STATE = 1000;

function single(query: Record<string, unknown>, name: string): string | undefined {
  const v = query[name];
  if (v === undefined) return undefined;
  if (typeof v !== "string") throw new AuthorizationPageError(`${name}: given more than once`);
  return v;
}

/** Seconds a person is asked to wait when too many metadata documents are being fetched. */
const BUSY_RETRY_S = 5;

/**
 * Checks an authorization request (the query of GET /oauth/authorize) and stores it; returns the consent
 * page's URL. Throws AuthorizationPageError (show it). `requester` is the client address's limit key:
 * metadata-document fetches are capped per requester (src/oauth/fetch-gate.ts).
 */
export async function startAuthorization(deps: OAuthDeps, urls: OAuthUrls, query: Record<string, unknown>, requester: string): Promise<string> {
  const now = deps.now();
  const clientId = single(query, "client_id");
  if (!clientId) throw new AuthorizationPageError("client_id is missing: the application that sent you here did not say who it is.");
  let client: OAuthClient | undefined;
  try {
    client = await findClient(deps.db, clientId, { allowPrivate: deps.config.oauth.cimdAllowPrivate, now, requester });
  } catch (err) {
    if (err instanceof ClientMetadataError)
      throw new AuthorizationPageError(`The application's client metadata cannot be used: ${err.message}`, "invalid_client");
    if (err instanceof FetchBusyError)
      throw new AuthorizationPageError(
        `The server is busy fetching applications' descriptions (${err.message}). Try again in ${BUSY_RETRY_S} seconds.`,
        "temporarily_unavailable",
        503,
        BUSY_RETRY_S,
      );
    throw err;
  }
  if (!client)
    throw new AuthorizationPageError("client_id: no such client is registered with this server. The application should register again.", "invalid_client");
  const requested = single(query, "redirect_uri");
  let redirectUri: string;
  if (requested === undefined) {
    if (client.redirectUris.length !== 1) throw new AuthorizationPageError("redirect_uri is missing, and the client registered more than one.");
    redirectUri = client.redirectUris[0]!;
  } else if (redirectUriMatches(client.redirectUris, requested)) {
    redirectUri = requested;
  } else {
    throw new AuthorizationPageError("redirect_uri is not one the client registered, so this server will not send you there.");
  }
  // Checked again: a client stored before today's rules (a host such as "a.example;sandbox") is never sent to.
  const uriProblem = redirectUriProblem(redirectUri);
  if (uriProblem) throw new AuthorizationPageError(`redirect_uri cannot be used: ${uriProblem}. The application should register again.`);

  const state = single(query, "state") ?? null;
  const fail = (error: string, description: string) => new AuthorizationPageError(description, error);
  if (state !== null && state.length > MAX_STATE) throw fail("invalid_request", `state: at most ${MAX_STATE} characters`);
  if (single(query, "response_type") !== "code") throw fail("unsupported_response_type", 'response_type must be "code"');
  const challenge = single(query, "code_challenge");
  if (!challenge) throw fail("invalid_request", "code_challenge is required: PKCE with S256");
  if (single(query, "code_challenge_method") !== "S256") throw fail("invalid_request", 'code_challenge_method must be "S256"');
  if (!CHALLENGE.test(challenge)) throw fail("invalid_request", "code_challenge must be the base64url SHA-256 of the code_verifier (43 characters)");
  const resource = single(query, "resource");
  const endpoint = resource === undefined ? "full" : endpointOfResource(urls, resource);
  if (!endpoint) throw fail("invalid_target", `resource must be one of this server's MCP endpoints, ${urls.resource} or ${urls.readResource}`);
  const scopeParam = single(query, "scope");
  let scopes = [...KNOWN_SCOPES];
  if (scopeParam !== undefined && scopeParam.trim() !== "") {
    const asked = [...new Set(normalizeScope(scopeParam).split(" "))];
    const unknown = asked.filter((s) => !KNOWN_SCOPES.includes(s));
    if (unknown.length) throw fail("invalid_scope", `unknown scope(s) ${unknown.join(", ")}; this server's scopes are listed in its metadata`);
    scopes = asked.sort();
  }
  // The read-only endpoint's token can hold read scopes only: what it asks beyond them is not offered.
  if (endpoint === "read") scopes = scopes.filter((s) => READ_SCOPES.has(s));
  if (scopes.length === 0) throw fail("invalid_scope", `the read-only endpoint ${urls.readResource} grants read scopes only; ask for some of them`);

  await touchClient(deps.db, client.clientId, now);
  const id = randomString(32);
  const request: PendingRequest = {
    redirect_uri: redirectUri,
    scopes,
    state,
    code_challenge: challenge,
    resource: endpointResource(urls, endpoint).resource,
    issuer: urls.issuer,
  };
  // Expired pending requests are dropped as new ones come (no sweeper needed).
  await deps.db("oauth_pending").where("expires_at", "<=", now.toISOString()).delete();
  await deps.db("oauth_pending").insert({
    id,
    client_id: client.clientId,
    request: JSON.stringify(request),
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + PENDING_TTL_MS).toISOString(),
  });
  return `${CONSENT_PATH}?request=${encodeURIComponent(id)}`;
}

/** What the consent page shows about a pending authorization. */
export interface PendingAuthorization {
  id: string;
  clientId: string;
  clientName: string;
  /** "dcr" (registered here) or "cimd" (its client_id is the URL of its metadata document). */
  clientKind: "dcr" | "cimd";
  clientUri: string | null;
  /** Where the browser goes afterwards: what the person should recognise. */
  redirectUri: string;
  redirectHost: string;
  /** What the client asked for; the person may grant fewer. */
  requestedScopes: string[];
  resource: string;
  expiresAt: string;
}

async function loadPending(deps: OAuthDeps, id: string): Promise<{ clientId: string; request: PendingRequest; expiresAt: string } | undefined> {
  if (typeof id !== "string" || id.length === 0 || id.length > 64) return undefined;
  const row = await deps.db("oauth_pending").where({ id }).first();
  if (!row || String(row.expires_at) <= deps.now().toISOString()) return undefined;
  return { clientId: String(row.client_id), request: JSON.parse(String(row.request)) as PendingRequest, expiresAt: String(row.expires_at) };
}

/** The pending authorization `id`, or undefined when it is unknown, used or expired. */
export async function describePendingAuthorization(deps: OAuthDeps, id: string): Promise<PendingAuthorization | undefined> {
  const pending = await loadPending(deps, id);
  if (!pending) return undefined;
  // The stored client only: showing the page never fetches a document (startAuthorization just did).
  const client = await findStoredClient(deps.db, pending.clientId);
  const redirect = new URL(pending.request.redirect_uri);
  return {
    id,
    clientId: pending.clientId,
    clientName: client?.name ?? pending.clientId,
    clientKind: client?.kind ?? "dcr",
    clientUri: client?.clientUri ?? null,
    redirectUri: pending.request.redirect_uri,
    redirectHost: redirect.host || redirect.protocol,
    requestedScopes: pending.request.scopes,
    resource: pending.request.resource,
    expiresAt: pending.expiresAt,
  };
}

/** completeAuthorization was called wrongly (unknown id, scopes not requested): a bug of the caller or a stale page. */
export class PendingAuthorizationError extends Error {}

/**
 * Ends a pending authorization with the signed-in person's decision and returns where to send the
 * browser: the client's redirect URI with `code`, `state` and `iss`, or with `error=access_denied` when
 * `grantedScopes` is null. The pending request is used up either way. Granted scopes must be a non-empty
 * subset of the requested ones. When the person already created RATE_LIMIT_TOKENS_PER_HOUR tokens in the
 * last hour, the client gets error=temporarily_unavailable (the code exchange would be refused anyway).
 */
export async function completeAuthorization(deps: OAuthDeps, id: string, userId: string, grantedScopes: readonly string[] | null): Promise<string> {
  const pending = await loadPending(deps, id);
  if (!pending) throw new PendingAuthorizationError("This authorization request is unknown, already answered or expired: start again from the application.");
  const { request } = pending;
  const back = (params: Record<string, string | null>) => responseUrl(request.redirect_uri, { ...params, state: request.state, iss: request.issuer });
  if (grantedScopes !== null) {
    const bad = grantedScopes.filter((s) => !request.scopes.includes(s));
    if (bad.length) throw new PendingAuthorizationError(`Scopes not requested by the client cannot be granted: ${bad.join(", ")}`);
    if (grantedScopes.length === 0) throw new PendingAuthorizationError("Grant at least one scope, or deny the request.");
  }
  const now = deps.now();
  const used = await deps.db("oauth_pending").where({ id }).delete();
  if (used === 0) throw new PendingAuthorizationError("This authorization request was already answered.");
  if (grantedScopes === null) return back({ error: "access_denied", error_description: "The person declined the request." });
  const perHour = deps.config.rateLimits.tokensPerHour;
  if ((await tokensCreatedSince(deps.db, userId, now)) >= perHour) {
    return back({
      error: "temporarily_unavailable",
      error_description: `At most ${perHour} tokens may be created per hour for this account; try again later.`,
    });
  }
  const code = randomString(32);
  // Codes are kept a day after they expire (a replay within it still revokes its grant), then dropped.
  await deps.db("oauth_codes").where("expires_at", "<", instantPlusDays(now, -1).toISOString()).delete();
  await deps.db("oauth_codes").insert({
    code_hash: secretHash(code, deps.config.tokenPepper),
    client_id: pending.clientId,
    user_id: userId,
    request: JSON.stringify({
      redirect_uri: request.redirect_uri,
      scopes: [...new Set(grantedScopes)].sort(),
      code_challenge: request.code_challenge,
      resource: request.resource,
    }),
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + CODE_TTL_MS).toISOString(),
  });
  return back({ code });
}
