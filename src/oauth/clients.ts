/**
 * OAuth clients: registered by Dynamic Client Registration (RFC 7591, POST /oauth/register) or named by a
 * Client ID Metadata Document URL (src/oauth/cimd.ts, cached in oauth_clients). Both end as one shape.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { Knex } from "knex";
import { isLoopbackHost } from "../config.js";
import { CimdError, cimdUrlProblem, fetchClientMetadata } from "./cimd.js";
import { cimdFetchGate } from "./fetch-gate.js";
import { hostProblem } from "./hosts.js";
import { randomString } from "./secrets.js";
import { instantPlusDays } from "../calendar/days.js";

export type AuthMethod = "none" | "client_secret_basic" | "client_secret_post";

export interface OAuthClient {
  clientId: string;
  kind: "dcr" | "cimd";
  name: string;
  redirectUris: string[];
  authMethod: AuthMethod;
  secretHash: string | null;
  clientUri: string | null;
}

/** A registration or metadata document that cannot be used: `error` is the RFC 7591 error code. */
export class ClientMetadataError extends Error {
  constructor(
    message: string,
    readonly error: "invalid_client_metadata" | "invalid_redirect_uri" = "invalid_client_metadata",
  ) {
    super(message);
  }
}

const MAX_REDIRECT_URIS = 10;
const MAX_URI = 2000;
const MAX_NAME = 100;
/**
 * Single-label private-use schemes of widely used MCP clients, accepted besides reverse-DNS ones
 * (docs/decisions.md#oauth-under-attack, "Redirect URI schemes"): Cursor registers cursor://anysphere.cursor-mcp/oauth/callback.
 */
const APP_SCHEMES = new Set(["cursor:", "vscode:", "vscode-insiders:"]);
/** A reverse-DNS private-use scheme (RFC 8252 §7.1): com.example.app, at least two labels. */
const REVERSE_DNS_SCHEME = /^[a-z][a-z0-9-]*(\.[a-z0-9-]+)+:$/;
/** CIMD documents are fetched again after this long at most, and kept at least MIN. */
const CIMD_CACHE_MAX_S = 24 * 3600;
const CIMD_CACHE_DEFAULT_S = 3600;
const CIMD_CACHE_MIN_S = 60;
/** A client row nobody used for this long (and with no live refresh token) is deleted. */
export const CLIENT_IDLE_DAYS = 30;
/** last_used_at is written at most this often per client (a refresh an hour would otherwise write each time). */
const TOUCH_EVERY_MS = 3_600_000;

/**
 * A redirect URI a client may register: https anywhere; http only on loopback (RFC 8252 §7.3); a
 * private-use scheme for native apps in reverse-DNS form (com.example.app:/cb, RFC 8252 §7.1) or one of
 * APP_SCHEMES. No userinfo, no fragment (RFC 6749 §3.1.2), and a host that is a DNS name or an IP address.
 */
export function redirectUriProblem(uri: unknown): string | undefined {
  if (typeof uri !== "string" || uri.length === 0 || uri.length > MAX_URI) return `each redirect URI must be a string of 1 to ${MAX_URI} characters`;
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return `${JSON.stringify(uri)} is not an absolute URI`;
  }
  if (uri.includes("#")) return `${JSON.stringify(uri)} has a fragment`;
  if (u.username || u.password || /^[^:]+:\/\/[^/?]*@/.test(uri)) return `${JSON.stringify(uri)} holds a user name or password`;
  if (u.protocol === "http:") {
    if (!isLoopbackHost(u.hostname)) return `${JSON.stringify(uri)} uses http on a host that is not loopback; use https`;
  } else if (u.protocol !== "https:" && !APP_SCHEMES.has(u.protocol) && !REVERSE_DNS_SCHEME.test(u.protocol)) {
    return `${JSON.stringify(uri)}: the scheme must be https, http on a loopback host, or an app's reverse-DNS scheme (com.example.app:/callback)`;
  }
  if (u.protocol === "https:" || u.protocol === "http:" || u.host !== "") {
    const host = hostProblem(u.hostname);
    if (host) return `${JSON.stringify(uri)}: ${host}`;
  }
  return undefined;
}

function isHttpsUrlWithHost(uri: string): boolean {
  try {
    const u = new URL(uri);
    return u.protocol === "https:" && !u.username && !u.password && hostProblem(u.hostname) === undefined;
  } catch {
    return false;
  }
}

/** Bidirectional-text controls (which can make "evil.example" read as "elpmaxe.live") and other controls. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const BIDI_AND_CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** A client name as people are shown it: without bidi or control characters, spaces collapsed, at most MAX_NAME. */
export function cleanClientName(name: string): string {
  return name.replace(BIDI_AND_CONTROLS, " ").replace(/\s+/g, " ").trim().slice(0, MAX_NAME);
}

/**
 * Exact string comparison (OAuth 2.1 §4.1.1), except that a loopback http redirect URI matches on any
 * port (RFC 8252 §7.3): native clients listen on whatever port is free.
 */
export function redirectUriMatches(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  let r: URL;
  try {
    r = new URL(requested);
  } catch {
    return false;
  }
  if (r.protocol !== "http:" || !isLoopbackHost(r.hostname)) return false;
  return registered.some((candidate) => {
    try {
      const c = new URL(candidate);
      if (c.protocol !== "http:" || c.hostname !== r.hostname) return false;
      c.port = r.port;
      return c.href === r.href;
    } catch {
      return false;
    }
  });
}

function checkRedirectUris(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0)
    throw new ClientMetadataError("redirect_uris: expected a non-empty array of redirect URIs", "invalid_redirect_uri");
  if (value.length > MAX_REDIRECT_URIS) throw new ClientMetadataError(`redirect_uris: at most ${MAX_REDIRECT_URIS}`, "invalid_redirect_uri");
  for (const uri of value) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new ClientMetadataError(`redirect_uris: ${problem}`, "invalid_redirect_uri");
  }
  return [...new Set(value as string[])];
}

/** The client metadata both registrations share: name, redirect URIs, grant and response types. */
function checkCommon(doc: Record<string, unknown>): { name: string; redirectUris: string[]; clientUri: string | null } {
  const redirectUris = checkRedirectUris(doc.redirect_uris);
  const grantTypes = doc.grant_types ?? ["authorization_code"];
  if (!Array.isArray(grantTypes) || !grantTypes.every((g) => g === "authorization_code" || g === "refresh_token")) {
    throw new ClientMetadataError('grant_types: only "authorization_code" and "refresh_token" are supported');
  }
  const responseTypes = doc.response_types ?? ["code"];
  if (!Array.isArray(responseTypes) || !responseTypes.every((r) => r === "code")) throw new ClientMetadataError('response_types: only "code" is supported');
  const rawName = doc.client_name;
  const name = typeof rawName === "string" ? cleanClientName(rawName) : "";
  if (rawName !== undefined && name === "") throw new ClientMetadataError("client_name: expected a non-empty string");
  let clientUri: string | null = null;
  if (doc.client_uri !== undefined) {
    if (typeof doc.client_uri !== "string" || !/^https:\/\//.test(doc.client_uri) || doc.client_uri.length > MAX_URI || !isHttpsUrlWithHost(doc.client_uri))
      throw new ClientMetadataError("client_uri: expected an https URL with a DNS name or IP address as its host, and no user name");
    clientUri = doc.client_uri;
  }
  return { name, redirectUris, clientUri };
}

export const hashSecret = (secret: string) => createHash("sha256").update(secret).digest("hex");

function toClient(row: Record<string, unknown>): OAuthClient {
  const m = JSON.parse(String(row.metadata)) as { name: string; redirect_uris: string[]; auth_method: AuthMethod; client_uri: string | null };
  return {
    clientId: String(row.client_id),
    kind: row.kind === "cimd" ? "cimd" : "dcr",
    // Cleaned again: rows stored before names were cleaned.
    name: cleanClientName(m.name) || String(row.client_id),
    redirectUris: m.redirect_uris,
    authMethod: m.auth_method,
    secretHash: row.secret_hash == null ? null : String(row.secret_hash),
    clientUri: m.client_uri,
  };
}

const storedMetadata = (c: { name: string; redirectUris: string[]; authMethod: AuthMethod; clientUri: string | null }) =>
  JSON.stringify({ name: c.name, redirect_uris: c.redirectUris, auth_method: c.authMethod, client_uri: c.clientUri });

/** RFC 7591 registration: the stored client and, for a confidential one, its secret (shown this once). */
export async function registerClient(
  db: Knex,
  body: unknown,
  now: Date,
): Promise<{ client: OAuthClient; secret: string | null; response: Record<string, unknown> }> {
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw new ClientMetadataError("the registration must be a JSON object of client metadata");
  const doc = body as Record<string, unknown>;
  const common = checkCommon(doc);
  const method = doc.token_endpoint_auth_method ?? "client_secret_basic";
  if (method !== "none" && method !== "client_secret_basic" && method !== "client_secret_post") {
    throw new ClientMetadataError('token_endpoint_auth_method: one of "none", "client_secret_basic", "client_secret_post"');
  }
  const clientId = `fmcp-client-${randomString(16)}`;
  const secret = method === "none" ? null : randomString(32);
  const client: OAuthClient = {
    clientId,
    kind: "dcr",
    ...common,
    name: common.name || "Unnamed client",
    authMethod: method,
    secretHash: secret ? hashSecret(secret) : null,
  };
  await deleteIdleClients(db, now);
  await db("oauth_clients").insert({
    id: `ocl_${randomString(20)}`,
    client_id: clientId,
    kind: "dcr",
    secret_hash: client.secretHash,
    metadata: storedMetadata(client),
    created_at: now.toISOString(),
  });
  const issuedAt = Math.floor(now.getTime() / 1000);
  const response: Record<string, unknown> = {
    client_id: clientId,
    client_id_issued_at: issuedAt,
    ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
    client_name: client.name,
    redirect_uris: client.redirectUris,
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: method,
    ...(client.clientUri ? { client_uri: client.clientUri } : {}),
  };
  return { client, secret, response };
}

export function isMetadataDocumentId(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

/**
 * The client stored under `clientId` (registered, or a metadata document fetched before), whatever the
 * age of the cached document. Never fetches: the token and revocation endpoints and the consent page
 * use this, so a metadata-document client that never went through /oauth/authorize is unknown there.
 */
export async function findStoredClient(db: Knex, clientId: string): Promise<OAuthClient | undefined> {
  if (typeof clientId !== "string" || clientId.length > 2048) return undefined;
  const row = await db("oauth_clients").where({ client_id: clientId }).first();
  return row ? toClient(row) : undefined;
}

/**
 * The client a client_id names at /oauth/authorize: a registered one, or the metadata document at that
 * URL (cached; fetched again once its cache time is over). Fetches go through the process's gate
 * (`requester` is the client address's limit key). Undefined when there is no such client; throws
 * ClientMetadataError when a document cannot be used, FetchBusyError when too many fetches run.
 */
export async function findClient(
  db: Knex,
  clientId: string,
  options: { allowPrivate: boolean; now: Date; requester: string },
): Promise<OAuthClient | undefined> {
  if (clientId.length > 2048) return undefined;
  const row = await db("oauth_clients").where({ client_id: clientId }).first();
  if (!isMetadataDocumentId(clientId)) return row ? toClient(row) : undefined;
  if (row && row.refresh_after && String(row.refresh_after) > options.now.toISOString()) return toClient(row);
  const problem = cimdUrlProblem(clientId, options.allowPrivate);
  if (problem) throw new ClientMetadataError(`client_id: ${problem}`);
  let fetched;
  try {
    fetched = await cimdFetchGate.run(clientId, options.requester, () => fetchClientMetadata(clientId, { allowPrivate: options.allowPrivate }));
  } catch (err) {
    if (err instanceof CimdError) throw new ClientMetadataError(`client_id: ${err.message}`);
    throw err;
  }
  const common = checkCommon(fetched.document);
  const client: OAuthClient = { clientId, kind: "cimd", ...common, name: common.name || new URL(clientId).host, authMethod: "none", secretHash: null };
  const seconds = Math.min(CIMD_CACHE_MAX_S, Math.max(CIMD_CACHE_MIN_S, fetched.maxAge ?? CIMD_CACHE_DEFAULT_S));
  const refreshAfter = new Date(options.now.getTime() + seconds * 1000).toISOString();
  const values = { kind: "cimd", secret_hash: null, metadata: storedMetadata(client), refresh_after: refreshAfter };
  if (!row) await deleteIdleClients(db, options.now);
  await db("oauth_clients")
    .insert({ id: `ocl_${randomString(20)}`, client_id: clientId, created_at: options.now.toISOString(), ...values })
    .onConflict("client_id")
    .merge(values);
  return client;
}

/** Notes that the client was used now (at most once an hour per client: a refresh would otherwise write each time). */
export async function touchClient(db: Knex, clientId: string, now: Date): Promise<void> {
  const before = new Date(now.getTime() - TOUCH_EVERY_MS).toISOString();
  await db("oauth_clients")
    .where({ client_id: clientId })
    .where((q) => q.whereNull("last_used_at").orWhere("last_used_at", "<", before))
    .update({ last_used_at: now.toISOString() });
}

/**
 * Deletes the clients nobody used (authorized, exchanged, refreshed, revoked; registered, for one never
 * used) for CLIENT_IDLE_DAYS and that hold no refresh token that could still be used. Runs as new
 * clients come (registration, a first metadata document), so no sweeper is needed.
 */
export async function deleteIdleClients(db: Knex, now: Date): Promise<number> {
  const cutoff = instantPlusDays(now, -CLIENT_IDLE_DAYS).toISOString();
  return db("oauth_clients")
    .where((q) => q.where("last_used_at", "<", cutoff).orWhere((q2) => q2.whereNull("last_used_at").where("created_at", "<", cutoff)))
    .whereNotExists(
      db("oauth_grants as g")
        .join("oauth_refresh_tokens as r", "r.grant_id", "g.id")
        .whereRaw("g.client_id = oauth_clients.client_id")
        .whereNull("g.revoked_at")
        .whereNull("r.used_at")
        .where("r.expires_at", ">", now.toISOString())
        .select(db.raw("1")),
    )
    .delete();
}

/** A confidential client's secret checked in constant time; a public client needs none. */
export function clientSecretMatches(client: OAuthClient, secret: string | undefined | null): boolean {
  if (!client.secretHash) return true;
  if (!secret) return false;
  return timingSafeEqual(Buffer.from(hashSecret(secret)), Buffer.from(client.secretHash));
}
