/**
 * Token revocation (RFC 7009): a client hands back its access token (fmcp_…) or refresh token (fmcr_…).
 * Either ends the whole grant: the access token stops working on the next request on every process and
 * no refresh token of the grant works again. The answer is 200 whatever the token was (unknown,
 * already revoked, another client's: then nothing happens), so it confirms nothing to a guesser; only
 * bad client credentials are refused (401 invalid_client), and a request mixing two client
 * authentication methods (400 invalid_request).
 */
import { hashToken } from "../auth/token-format.js";
import { basicCredentials, mixedClientAuthentication } from "./client-auth.js";
import { clientSecretMatches, findStoredClient, touchClient } from "./clients.js";
import type { OAuthDeps } from "./authorize.js";
import { secretHash } from "./secrets.js";
import { REFRESH_PREFIX, revokeGrant } from "./token.js";

export type RevokeOutcome = { status: 200 } | { status: 400 | 401; error: string; description: string };

export async function revokeRequest(deps: OAuthDeps, body: Record<string, unknown>, authorization: string | undefined): Promise<RevokeOutcome> {
  const token = body.token;
  if (typeof token !== "string" || token === "") return { status: 400, error: "invalid_request", description: "token is missing" };
  const mixed = mixedClientAuthentication(authorization, body);
  if (mixed) return { status: 400, error: "invalid_request", description: mixed };
  const basic = basicCredentials(authorization);
  const clientId = basic?.id ?? (typeof body.client_id === "string" ? body.client_id : undefined);
  const secret = basic?.secret ?? (typeof body.client_secret === "string" ? body.client_secret : undefined);
  if (!clientId) return { status: 401, error: "invalid_client", description: "client_id is missing" };
  // Stored clients only: a metadata-document client that never authorized here holds no token, and
  // looking it up must not make this server fetch a URL a stranger chose.
  const client = await findStoredClient(deps.db, clientId);
  if (!client || !clientSecretMatches(client, secret))
    return { status: 401, error: "invalid_client", description: "the client is unknown or its credentials are wrong" };
  await touchClient(deps.db, client.clientId, deps.now());

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
