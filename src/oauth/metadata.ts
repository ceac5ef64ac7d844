/**
 * The two discovery documents: Protected Resource Metadata (RFC 9728) for the MCP endpoint, and
 * Authorization Server Metadata (RFC 8414) for the issuer. Both are public, built per request from the
 * issuer the request names (src/oauth/urls.ts).
 */
import { KNOWN_SCOPES } from "../auth/tokens.js";
import { AUTHORIZE_PATH, REGISTER_PATH, REVOKE_PATH, TOKEN_PATH, type OAuthUrls } from "./urls.js";

export function protectedResourceMetadata(urls: OAuthUrls): Record<string, unknown> {
  return {
    resource: urls.resource,
    authorization_servers: [urls.issuer],
    scopes_supported: KNOWN_SCOPES,
    bearer_methods_supported: ["header"],
    resource_name: "finance-mcp",
  };
}

const CLIENT_AUTH = ["none", "client_secret_basic", "client_secret_post"];

export function authorizationServerMetadata(urls: OAuthUrls): Record<string, unknown> {
  return {
    issuer: urls.issuer,
    authorization_endpoint: `${urls.issuer}${AUTHORIZE_PATH}`,
    token_endpoint: `${urls.issuer}${TOKEN_PATH}`,
    registration_endpoint: `${urls.issuer}${REGISTER_PATH}`,
    revocation_endpoint: `${urls.issuer}${REVOKE_PATH}`,
    scopes_supported: KNOWN_SCOPES,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: CLIENT_AUTH,
    revocation_endpoint_auth_methods_supported: CLIENT_AUTH,
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
  };
}
