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
  return { issuer: origin, resource: `${origin}${MCP_PATH}`, resourceMetadata: `${origin}${PRM_PATH}${MCP_PATH}` };
}
