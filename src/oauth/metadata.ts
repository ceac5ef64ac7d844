/**
 * The two discovery documents: Protected Resource Metadata (RFC 9728) for the MCP endpoint, and
 * Authorization Server Metadata (RFC 8414) for the issuer. Both are public, built per request from the
 * issuer the request names (src/oauth/urls.ts).
 */
import { KNOWN_SCOPES } from "../auth/tokens.js";
import { READ_SCOPES } from "../auth/tool-access.js";
import { AUTHORIZE_PATH, endpointResource, REGISTER_PATH, REVOKE_PATH, TOKEN_PATH, type McpEndpoint, type OAuthUrls } from "./urls.js";

/** The metadata of one endpoint: the read-only one names its own resource and the read scopes only. */
export function protectedResourceMetadata(urls: OAuthUrls, endpoint: McpEndpoint = "full"): Record<string, unknown> {
  return {
    resource: endpointResource(urls, endpoint).resource,
    authorization_servers: [urls.issuer],
    scopes_supported: endpoint === "read" ? KNOWN_SCOPES.filter((s) => READ_SCOPES.has(s)) : KNOWN_SCOPES,
    bearer_methods_supported: ["header"],
    resource_name: endpoint === "read" ? "finance-mcp (read-only)" : "finance-mcp",
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
