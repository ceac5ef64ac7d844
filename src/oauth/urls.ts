/**
 * The names finance-mcp gives itself as an OAuth authorization server and protected resource.
 *
 * The issuer is PUBLIC_URL when set (behind a TLS proxy). Without it, a request that reached the server
 * under a loopback Host (127.0.0.1, localhost, [::1]; already checked against ALLOWED_HOSTS) names the
 * issuer http://<that host>: plain http only where nobody else can listen. Any other Host without
 * PUBLIC_URL, or OAUTH=off, means no OAuth: no metadata (404), no resource_metadata in challenges, and
 * OAuth-issued tokens refused, so static-token clients are never sent into an OAuth flow that cannot work.
 */
import type { IncomingHttpHeaders } from "node:http";
import { isLoopbackHost, type Config } from "../config.js";

export const MCP_PATH = "/api/v1/mcp";
/** The read-only MCP endpoint: the same server with its read tools only, whatever the token's scopes. */
export const MCP_READ_PATH = "/api/v1/mcp/read";
export const PRM_PATH = "/.well-known/oauth-protected-resource";
export const AS_METADATA_PATH = "/.well-known/oauth-authorization-server";
export const AUTHORIZE_PATH = "/oauth/authorize";
export const CONSENT_PATH = "/oauth/consent";
export const TOKEN_PATH = "/oauth/token";
export const REGISTER_PATH = "/oauth/register";
export const REVOKE_PATH = "/oauth/revoke";

export interface OAuthUrls {
  issuer: string;
  /** The MCP endpoint's canonical URI: the RFC 8707 resource every OAuth token is bound to. */
  resource: string;
  /** Protected Resource Metadata of the MCP endpoint (the path-suffixed form of RFC 9728 §3.1). */
  resourceMetadata: string;
  /** The read-only endpoint's URI: a resource of its own, so a token issued for it is refused by the full one. */
  readResource: string;
  readResourceMetadata: string;
}

/** Which MCP endpoint a request reached: the full one, or the read-only one (MCP_READ_PATH). */
export type McpEndpoint = "full" | "read";

/** The RFC 8707 resource and its metadata URL of one endpoint. */
export function endpointResource(urls: OAuthUrls, endpoint: McpEndpoint): { resource: string; resourceMetadata: string } {
  return endpoint === "read"
    ? { resource: urls.readResource, resourceMetadata: urls.readResourceMetadata }
    : { resource: urls.resource, resourceMetadata: urls.resourceMetadata };
}

/** The endpoint a resource indicator names, or undefined when it names neither of this server's. */
export function endpointOfResource(urls: OAuthUrls, resource: string): McpEndpoint | undefined {
  return resource === urls.resource ? "full" : resource === urls.readResource ? "read" : undefined;
}

/** The server's OAuth URLs as seen by this request, or undefined when OAuth is off for it. */
export function oauthUrls(config: Config, headers: IncomingHttpHeaders): OAuthUrls | undefined {
  if (!config.oauth.enabled) return undefined;
  let origin = config.publicUrl;
  if (!origin) {
    const host = headers.host;
    // A bare host[:port] only (the Host guard has already checked the name against ALLOWED_HOSTS).
    if (!host || !/^[A-Za-z0-9.\-:[\]]+$/.test(host)) return undefined;
    let u: URL;
    try {
      u = new URL(`http://${host}`);
    } catch {
      return undefined;
    }
    if (!isLoopbackHost(u.hostname)) return undefined;
    origin = u.origin;
  }
  return {
    issuer: origin,
    resource: `${origin}${MCP_PATH}`,
    resourceMetadata: `${origin}${PRM_PATH}${MCP_PATH}`,
    readResource: `${origin}${MCP_READ_PATH}`,
    readResourceMetadata: `${origin}${PRM_PATH}${MCP_READ_PATH}`,
  };
}
