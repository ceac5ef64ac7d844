/**
 * A SimpleFIN client (simplefin.org/protocol.html, 1.0-draft.7): decode a setup token into its claim URL,
 * claim the Access URL once, read the Account Set. No bank-specific code: every bridge speaks this.
 *
 * The exchange is narrow, as a person handing over read access to their bank would demand:
 * - https only, certificates verified by Node's TLS (its roots plus NODE_EXTRA_CA_CERTS); no redirects;
 * - the bridge's host must resolve to public addresses only, checked in the socket's own DNS lookup (no
 *   rebinding; the same ranges as client metadata documents, src/oauth/cimd.ts), unless
 *   BANK_BRIDGE_ALLOW_PRIVATE=true (tests, a bridge on a home server);
 * - every request within a timeout (AbortSignal) and a size cap;
 * - the Access URL's credentials go in the Authorization header only; no error, log line or answer ever
 *   holds the Access URL or its credentials (errors name the bridge's host alone).
 * node:https rather than fetch: fetch gives no hook into the connection's DNS lookup.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import https from "node:https";
import { isIP } from "node:net";
import { isPublicAddress } from "../oauth/cimd.js";

export const BRIDGE_TIMEOUT_MS = 30_000;
/** An Account Set of 90 days of a few accounts is well under a megabyte; a hostile bridge stops here. */
export const BRIDGE_MAX_BYTES = 20 * 1024 * 1024;

export type BankErrorCode = "bad_token" | "claim_refused" | "access_revoked" | "bridge_unavailable" | "bridge_answer";

/** A failure talking to a bridge, in words for the person; never holds a URL's credentials. */
export class BankError extends Error {
  constructor(
    readonly code: BankErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface BridgeOptions {
  allowPrivate: boolean;
  timeoutMs?: number;
  maxBytes?: number;
}

export interface SfinTransaction {
  id: string;
  posted: number;
  amount: string;
  description: string;
  pending: boolean;
  payee: string | null;
  transactedAt: number | null;
}

export interface SfinAccount {
  id: string;
  name: string;
  orgName: string | null;
  currency: string;
  balance: string;
  balanceDate: number;
  transactions: SfinTransaction[];
}

export interface AccountSet {
  errors: string[];
  accounts: SfinAccount[];
}

/** The claim URL inside a setup token (Base64, standard or URL-safe alphabet), refused unless https. */
export function decodeSetupToken(token: string): URL {
  const trimmed = token.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed) || trimmed.length > 4096)
    throw new BankError("bad_token", "the setup token is not Base64 text; paste the token exactly as the bridge shows it");
  const text = Buffer.from(trimmed.replace(/-/g, "+").replace(/_/g, "/"), "base64").toString("utf8");
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new BankError("bad_token", "the setup token does not hold a claim URL; paste the token exactly as the bridge shows it");
  }
  if (url.protocol !== "https:") throw new BankError("bad_token", "the setup token's claim URL is not https; only https bridges are accepted");
  if (url.username || url.password) throw new BankError("bad_token", "the setup token's claim URL holds credentials, which a claim URL never does");
  return url;
}

/** The Access URL's parts: where to read, and the Basic-auth credentials kept apart from it. */
export function splitAccessUrl(accessUrl: string): { base: URL; authorization: string; host: string } {
  let url: URL;
  try {
    url = new URL(accessUrl.trim());
  } catch {
    throw new BankError("bridge_answer", "the bridge's claim answer is not an Access URL");
  }
  if (url.protocol !== "https:") throw new BankError("bridge_answer", "the bridge's Access URL is not https; only https bridges are accepted");
  if (!url.username) throw new BankError("bridge_answer", "the bridge's Access URL holds no credentials");
  const authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString("base64")}`;
  url.username = "";
  url.password = "";
  return { base: url, authorization, host: url.host };
}

/** POSTs the claim URL (no body) and answers the Access URL. A 403 says the token was used, or stolen. */
export async function claimAccessUrl(claimUrl: URL, options: BridgeOptions): Promise<string> {
  const res = await request(claimUrl, { method: "POST" }, options);
  if (res.status === 403)
    throw new BankError(
      "claim_refused",
      `the bridge ${claimUrl.host} refused the setup token (HTTP 403): it was already claimed. If you did not claim it yourself, someone else may have, and your bank data may be compromised: disable that connection at the bridge and make a new setup token.`,
    );
  if (res.status !== 200) throw new BankError("bridge_unavailable", `the bridge ${claimUrl.host} answered HTTP ${res.status} to the claim; try again later`);
  const access = res.text.trim();
  splitAccessUrl(access);
  return access;
}

/**
 * GET {Access URL}/accounts: start-date inclusive, end-date exclusive (Unix seconds), pending=1 to include
 * pending transactions. Answers the Account Set as read, each field checked; a 403 is revoked access.
 */
export async function readAccounts(accessUrl: string, window: { start: number; end: number; pending: boolean }, options: BridgeOptions): Promise<AccountSet> {
  const { base, authorization, host } = splitAccessUrl(accessUrl);
  const url = new URL(`${base.pathname.replace(/\/$/, "")}/accounts`, base);
  url.searchParams.set("start-date", String(window.start));
  url.searchParams.set("end-date", String(window.end));
  if (window.pending) url.searchParams.set("pending", "1");
  const res = await request(url, { method: "GET", authorization }, options);
  if (res.status === 403)
    throw new BankError(
      "access_revoked",
      `the bridge ${host} refused access (HTTP 403): the access was revoked or expired. Connect the bank again with a new setup token.`,
    );
  if (res.status !== 200) throw new BankError("bridge_unavailable", `the bridge ${host} answered HTTP ${res.status}; the next sync tries again`);
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    throw new BankError("bridge_answer", `the bridge ${host} answered something that is not JSON; nothing was read`);
  }
  return accountSetOf(body, host);
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
const DECIMAL = /^[+-]?\d{1,15}(\.\d{1,8})?$/;

/** The Account Set as the protocol defines it; anything else is refused as a whole (nothing half-read). */
function accountSetOf(body: unknown, host: string): AccountSet {
  const bad = (what: string) => new BankError("bridge_answer", `the bridge ${host} answered an Account Set whose ${what}; nothing was read`);
  if (!isObject(body) || !Array.isArray(body.accounts)) throw bad("accounts are missing");
  const errors = Array.isArray(body.errors) ? body.errors.filter((e): e is string => typeof e === "string") : [];
  const accounts = body.accounts.map((a, i): SfinAccount => {
    if (!isObject(a) || typeof a.id !== "string" || a.id === "") throw bad(`account ${i + 1} has no id`);
    if (typeof a.currency !== "string" || a.currency === "") throw bad(`account ${i + 1} has no currency`);
    if (typeof a.balance !== "string" || !DECIMAL.test(a.balance.trim())) throw bad(`account ${i + 1} has no numeric balance`);
    if (typeof a["balance-date"] !== "number" || !Number.isFinite(a["balance-date"])) throw bad(`account ${i + 1} has no balance-date`);
    const txs = a.transactions === undefined ? [] : a.transactions;
    if (!Array.isArray(txs)) throw bad(`account ${i + 1}'s transactions are not a list`);
    const org = isObject(a.org) ? a.org : {};
    return {
      id: a.id,
      name: typeof a.name === "string" && a.name.trim() !== "" ? a.name.trim() : a.id,
      orgName: typeof org.name === "string" ? org.name : typeof org.domain === "string" ? org.domain : null,
      currency: a.currency.trim(),
      balance: a.balance.trim().replace(/^\+/, ""),
      balanceDate: a["balance-date"],
      transactions: txs.map((t, j): SfinTransaction => {
        const where = `account ${i + 1}'s transaction ${j + 1}`;
        if (!isObject(t) || typeof t.id !== "string" || t.id === "") throw bad(`${where} has no id`);
        if (typeof t.amount !== "string" || !DECIMAL.test(t.amount.trim())) throw bad(`${where} has no numeric amount`);
        if (typeof t.posted !== "number" || !Number.isFinite(t.posted)) throw bad(`${where} has no posted time`);
        return {
          id: t.id,
          posted: t.posted,
          amount: t.amount.trim().replace(/^\+/, ""),
          description: typeof t.description === "string" ? t.description : "",
          pending: t.pending === true || t.posted === 0,
          payee: typeof t.payee === "string" && t.payee.trim() !== "" ? t.payee : null,
          transactedAt: typeof t.transacted_at === "number" ? t.transacted_at : null,
        };
      }),
    };
  });
  return { errors, accounts };
}

interface Answer {
  status: number;
  text: string;
}

/** One https exchange within the timeout and the size cap, to a public address unless allowed. */
function request(url: URL, how: { method: "GET" | "POST"; authorization?: string }, options: BridgeOptions): Promise<Answer> {
  const host = url.host;
  if (url.protocol !== "https:") return Promise.reject(new BankError("bad_token", `the bridge ${host} is not https; only https bridges are accepted`));
  const literal = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(literal) && !options.allowPrivate && !isPublicAddress(literal))
    return Promise.reject(new BankError("bad_token", `the bridge ${host} is a private or loopback address (BANK_BRIDGE_ALLOW_PRIVATE=true allows it)`));
  const timeoutMs = options.timeoutMs ?? BRIDGE_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? BRIDGE_MAX_BYTES;
  const lookup = (
    hostname: string,
    opts: object,
    callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    dnsLookup(hostname, { ...opts, all: true }, (err, addresses) => {
      if (err) return callback(err, "", 0);
      const list = addresses as LookupAddress[];
      if (!options.allowPrivate && (list.length === 0 || list.some((a) => !isPublicAddress(a.address))))
        return callback(Object.assign(new Error("private address"), { code: "EPRIVATE" }), "", 0);
      if ((opts as { all?: boolean }).all) return callback(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
  return new Promise<Answer>((resolve, reject) => {
    const signal = AbortSignal.timeout(timeoutMs);
    const headers: Record<string, string> = { accept: "application/json, text/plain", "user-agent": "finance-mcp (SimpleFIN client)" };
    if (how.authorization) headers.authorization = how.authorization;
    if (how.method === "POST") headers["content-length"] = "0";
    const req = https.request(url, { method: how.method, headers, lookup: lookup as never, signal }, (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        req.destroy();
        return reject(new BankError("bridge_answer", `the bridge ${host} redirects (HTTP ${status}); redirects are not followed`));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          req.destroy();
          return reject(new BankError("bridge_answer", `the bridge ${host} answered more than ${maxBytes} bytes; nothing was read`));
        }
        chunks.push(chunk);
      });
      res.on("end", () => resolve({ status, text: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", () => reject(new BankError("bridge_unavailable", `the bridge ${host} broke off its answer; the next sync tries again`)));
    });
    req.on("error", (err: NodeJS.ErrnoException) => {
      if (signal.aborted)
        return reject(
          new BankError("bridge_unavailable", `the bridge ${host} did not answer within ${Math.round(timeoutMs / 1000)} s; the next sync tries again`),
        );
      if (err.code === "EPRIVATE")
        return reject(new BankError("bad_token", `the bridge ${host} resolves to a private or loopback address (BANK_BRIDGE_ALLOW_PRIVATE=true allows it)`));
      // A TLS failure says which check failed; the message holds no URL.
      const tls = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/.test(err.code ?? "");
      reject(
        new BankError(
          "bridge_unavailable",
          tls ? `the bridge ${host}'s certificate is not trusted (${err.code})` : `the bridge ${host} could not be reached (${err.code ?? "network error"})`,
        ),
      );
    });
    req.end();
  });
}
