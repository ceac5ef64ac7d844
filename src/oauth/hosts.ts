/**
 * What may stand as the host of a redirect URI or a client_id URL: a DNS name (letters, digits and
 * hyphens in labels of 1 to 63, 253 in all; WHATWG URL parsing has already lower-cased it and turned
 * international names into xn-- labels) or an IP address. The URL parser lets through characters such as
 * `;` and `,` in the host of an https URL; such a host could end a Content-Security-Policy directive and
 * start another where the consent page names the redirect's origin (form-action), so it is refused here.
 */
import { isIP } from "node:net";

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** Why `hostname` (URL.hostname) is not a DNS name or an IP address, or undefined when it is one. */
export function hostProblem(hostname: string): string | undefined {
  if (hostname.startsWith("[") && hostname.endsWith("]")) return isIP(hostname.slice(1, -1)) === 6 ? undefined : `the host ${hostname} is not an IPv6 address`;
  if (isIP(hostname) === 4) return undefined;
  if (hostname.length === 0 || hostname.length > 253) return "the host must be a DNS name of 1 to 253 characters or an IP address";
  if (!hostname.split(".").every((label) => LABEL.test(label)))
    return `the host ${JSON.stringify(hostname)} is not a DNS name (letters, digits and hyphens between dots) or an IP address`;
  return undefined;
}
