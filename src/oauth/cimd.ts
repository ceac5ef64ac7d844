/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, MCP 2025-11-25): a client
 * id that is an HTTPS URL names a JSON document describing the client. Fetching a URL a stranger chose is
 * a server-side request forgery risk, so the fetch is narrow:
 * - https only (http too when OAUTH_CIMD_ALLOW_PRIVATE=true, for tests), no credentials or fragment in the URL;
 * - the host must resolve to public addresses only: loopback, private, link-local, CGNAT, multicast,
 *   unspecified and other special ranges are refused (unless OAUTH_CIMD_ALLOW_PRIVATE=true). The check
 *   runs in the socket's own DNS lookup, so the address connected to is the address checked (no rebinding);
 * - no redirects, at most MAX_BYTES, the whole exchange within TIMEOUT_MS;
 * - the document must be a JSON object whose client_id is the URL itself, with redirect_uris, and no
 *   client secret (such a client is public: token_endpoint_auth_method "none").
 * The caller caches the result (src/oauth/clients.ts).
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";
import { BlockList, isIP } from "node:net";
import { hostProblem } from "./hosts.js";

export const CIMD_MAX_BYTES = 5 * 1024;
/** The whole fetch: a document of at most 5 KB from a working server arrives in well under a second, and a slow host holds a fetch slot (fetch-gate.ts) no longer than this. */
export const CIMD_TIMEOUT_MS = 2000;
export const CIMD_MAX_URL = 2048;

export class CimdError extends Error {}

/**
 * Addresses a client metadata document may never be fetched from (IANA special-purpose registries). One
 * list per family: node's BlockList matches an IPv4 address against IPv4-mapped IPv6 rules (and the
 * reverse), so with ::ffff:0:0/96 in one shared list every IPv4 address would be blocked.
 */
const blocked4 = new BlockList();
const blocked6 = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  blocked4.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of [
  // IPv4-compatible (deprecated, includes :: and ::1), IPv4-mapped and SIIT IPv4-translated addresses
  // reach IPv4 hosts, private ones included, on stacks that route them: none is a public IPv6 address.
  ["::", 96],
  ["::ffff:0:0", 96],
  ["::ffff:0:0:0", 96],
  ["64:ff9b::", 96],
  ["64:ff9b:1::", 48],
  ["100::", 64],
  ["2001::", 23],
  ["2001:db8::", 32],
  ["2002::", 16],
  ["3fff::", 20],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const)
  blocked6.addSubnet(net, prefix, "ipv6");

/**
 * IANA's global unicast space, 2000::/3: no other IPv6 address is public. Listing what is refused can
 * miss a form (::ffff:ffff:7f00:1, in the reserved ::/8, passed every rule above); allowing only this
 * range cannot.
 */
const globalUnicast6 = new BlockList();
globalUnicast6.addSubnet("2000::", 3, "ipv6");

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6) return globalUnicast6.check(address, "ipv6") && !blocked6.check(address, "ipv6");
  return !blocked4.check(address, "ipv4");
}

/** Why `clientId` cannot be a metadata document URL, or undefined when it can. */
export function cimdUrlProblem(clientId: string, allowPrivate: boolean): string | undefined {
  if (clientId.length > CIMD_MAX_URL) return `the client_id URL is longer than ${CIMD_MAX_URL} characters`;
  let u: URL;
  try {
    u = new URL(clientId);
  } catch {
    return "the client_id is not a URL";
  }
  if (u.protocol !== "https:" && !(allowPrivate && u.protocol === "http:")) return "a client_id URL must use https";
  if (u.username || u.password) return "a client_id URL must not hold credentials";
  const host = hostProblem(u.hostname);
  if (host) return `client_id URL: ${host}`;
  if (u.hash || clientId.includes("#")) return "a client_id URL must not have a fragment";
  if (u.pathname === "/" || u.pathname === "") return "a client_id URL must have a path";
  if (u.href !== clientId) return "the client_id URL must be in normalized form";
  return undefined;
}

export interface CimdDocument {
  document: Record<string, unknown>;
  /** Seconds the document may be cached, from Cache-Control max-age (undefined: none given). */
  maxAge?: number;
}

/** Fetches and checks the document at `clientId`; throws CimdError saying why it cannot be used. */
export async function fetchClientMetadata(clientId: string, options: { allowPrivate: boolean; timeoutMs?: number; maxBytes?: number }): Promise<CimdDocument> {
  const problem = cimdUrlProblem(clientId, options.allowPrivate);
  if (problem) throw new CimdError(problem);
  const url = new URL(clientId);
  const timeoutMs = options.timeoutMs ?? CIMD_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? CIMD_MAX_BYTES;

  const lookup = (
    hostname: string,
    opts: object,
    callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    dnsLookup(hostname, { ...opts, all: true }, (err, addresses) => {
      if (err) return callback(err, "", 0);
      const list = addresses as LookupAddress[];
      if (!options.allowPrivate && (list.length === 0 || list.some((a) => !isPublicAddress(a.address)))) {
        return callback(Object.assign(new CimdError(`the client_id host ${hostname} resolves to a private or reserved address`), { code: "EPRIVATE" }), "", 0);
      }
      if ((opts as { all?: boolean }).all) return callback(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };

  const body = await new Promise<{ status: number; type: string; cacheControl: string; text: string }>((resolve, reject) => {
    const get = url.protocol === "https:" ? https.get : http.get;
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(err);
    };
    const timer = setTimeout(() => fail(new CimdError(`the client metadata document did not arrive within ${timeoutMs} ms`)), timeoutMs);
    // A literal IP address skips DNS: check it here.
    if (isIP(url.hostname.replace(/^\[|\]$/g, "")) && !options.allowPrivate && !isPublicAddress(url.hostname.replace(/^\[|\]$/g, ""))) {
      settled = true;
      clearTimeout(timer);
      return reject(new CimdError(`the client_id host ${url.hostname} is a private or reserved address`));
    }
    const req = get(url, { lookup: lookup as never, headers: { accept: "application/json" } }, (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400) return fail(new CimdError(`the client metadata document redirects (HTTP ${status}); redirects are not followed`));
      if (status !== 200) return fail(new CimdError(`fetching the client metadata document answered HTTP ${status}`));
      const declared = Number(res.headers["content-length"] ?? "0");
      if (declared > maxBytes) return fail(new CimdError(`the client metadata document is larger than ${maxBytes} bytes`));
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) return fail(new CimdError(`the client metadata document is larger than ${maxBytes} bytes`));
        chunks.push(chunk);
      });
      res.on("end", () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({
          status,
          type: String(res.headers["content-type"] ?? ""),
          cacheControl: String(res.headers["cache-control"] ?? ""),
          text: Buffer.concat(chunks).toString("utf8"),
        });
      });
      res.on("error", (err) => fail(err));
    });
    req.on("error", (err) =>
      fail(
        err instanceof CimdError
          ? err
          : new CimdError(`the client metadata document could not be fetched (${(err as NodeJS.ErrnoException).code ?? err.message})`),
      ),
    );
  });

  if (!/^application\/([a-z0-9.+-]*\+)?json\b/i.test(body.type)) throw new CimdError("the client metadata document is not served as application/json");
  let document: unknown;
  try {
    document = JSON.parse(body.text);
  } catch {
    throw new CimdError("the client metadata document is not valid JSON");
  }
  if (document === null || typeof document !== "object" || Array.isArray(document)) throw new CimdError("the client metadata document is not a JSON object");
  const doc = document as Record<string, unknown>;
  if (doc.client_id !== clientId) throw new CimdError("the client metadata document's client_id is not the URL it was fetched from");
  if (doc.client_secret !== undefined || doc.client_secret_expires_at !== undefined)
    throw new CimdError("a client metadata document must not hold a client secret");
  const method = doc.token_endpoint_auth_method ?? "none";
  if (method !== "none")
    throw new CimdError(`token_endpoint_auth_method ${JSON.stringify(method)} is not supported for metadata-document clients (only "none")`);
  const maxAge = /(?:^|,)\s*max-age=(\d{1,9})\s*(?:,|$)/i.exec(body.cacheControl);
  const noStore = /no-store|no-cache/i.test(body.cacheControl);
  return { document: doc, maxAge: noStore ? 0 : maxAge ? Number(maxAge[1]) : undefined };
}
