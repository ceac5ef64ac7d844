/**
 * Token revocation (RFC 7009): a client hands back its access token (fmcp_…) or refresh token (fmcr_…).
 * Either ends the whole grant: the access token stops working on the next request on every process and
 * no refresh token of the grant works again. The answer is 200 whatever the token was (unknown,
 * already revoked, another client's: then nothing happens), so it confirms nothing to a guesser; only
 * bad client credentials are refused (401 invalid_client).
 */
import { hashToken } from "../auth/token-format.js";
import { clientSecretMatches, ClientMetadataError, findClient } from "./clients.js";
import type { OAuthDeps } from "./authorize.js";
import { secretHash } from "./secrets.js";
import { REFRESH_PREFIX, revokeGrant } from "./token.js";

function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? "");
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return undefined;
  try {
    // RFC 6749 §2.3.1: both parts are form-urlencoded before being joined.
    return { id: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, " ")), secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, " ")) };
  } catch {
    return undefined;
  }
}

export type RevokeOutcome = { status: 200 } | { status: 400 | 401; error: string; description: string };

export async function revokeRequest(deps: OAuthDeps, body: Record<string, unknown>, authorization: string | undefined): Promise<RevokeOutcome> {
  const token = body.token;
  if (typeof token !== "string" || token === "") return { status: 400, error: "invalid_request", description: "token is missing" };
  const basic = basicCredentials(authorization);
  const clientId = basic?.id ?? (typeof body.client_id === "string" ? body.client_id : undefined);
  const secret = basic?.secret ?? (typeof body.client_secret === "string" ? body.client_secret : undefined);
  if (!clientId) return { status: 401, error: "invalid_client", description: "client_id is missing" };
  let client;
  try {
    client = await findClient(deps.db, clientId, { allowPrivate: deps.config.oauth.cimdAllowPrivate, now: deps.now() });
  } catch (err) {
    if (!(err instanceof ClientMetadataError)) throw err;
  }
  if (!client || !clientSecretMatches(client, secret))
    return { status: 401, error: "invalid_client", description: "the client is unknown or its credentials are wrong" };

  const pepper = deps.config.tokenPepper;
  let grantId: string | undefined;
  if (token.startsWith(REFRESH_PREFIX)) {
    const row = await deps
      .db("oauth_refresh_tokens")
      .where({ token_hash: secretHash(token, pepper) })
      .first("grant_id");
    grantId = row?.grant_id;
  } else if (token.length <= 100) {
    const row = await deps
      .db("mcp_tokens")
      .where({ token_hash: hashToken(token, pepper) })
      .first("grant_id");
    grantId = row?.grant_id ?? undefined;
  }
  if (grantId) {
    const grant = await deps.db("oauth_grants").where({ id: grantId }).first("client_id");
    if (grant && grant.client_id === client.clientId) await revokeGrant(deps.db, grantId, deps.now());
  }
  return { status: 200 };
}
