/**
 * How a client authenticates at the token and revocation endpoints (RFC 6749 §2.3): HTTP Basic
 * (client_secret_basic), client_id and client_secret in the form (client_secret_post), or client_id
 * alone (a public client, "none"). A request may use one method only (§2.3: "MUST NOT use more than one
 * authentication method in each request"): Basic together with a client_secret in the form, or with a
 * form client_id naming another client, is refused before anything is looked up.
 */

/** The client id and secret of an `Authorization: Basic` header (both form-urlencoded, §2.3.1). */
export function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? "");
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return undefined;
  try {
    return { id: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, " ")), secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, " ")) };
  } catch {
    return undefined;
  }
}

/** Why the request mixes authentication methods, or undefined when it uses at most one. */
export function mixedClientAuthentication(authorization: string | undefined, body: Record<string, unknown>): string | undefined {
  if (!/^Basic\s/i.test(authorization ?? "")) return undefined;
  if (body.client_secret !== undefined) return "use one client authentication method: HTTP Basic or client_secret in the body, not both";
  const basic = basicCredentials(authorization);
  if (body.client_id !== undefined && basic && body.client_id !== basic.id) return "client_id in the body names another client than the Authorization header";
  return undefined;
}
