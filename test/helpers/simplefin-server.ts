/**
 * A SimpleFIN server on loopback, built from the protocol document (simplefin.org/protocol.html,
 * 1.0-draft.7; facts in /work/shared/reference/bank-connections-simplefin-2026-11.md): https with a
 * throwaway certificate (as the OAuth tests), a setup token that is the Base64 of a claim URL, POST to
 * the claim URL answers the Access URL once (then 403), and GET {Access URL}/accounts with the URL's
 * Basic-auth credentials answers an Account Set filtered by start-date (inclusive), end-date (exclusive)
 * and pending=1. Fault switches make it slow, answer 5xx or 403 (revoked), send malformed JSON, repeat
 * or reorder transactions, or change an amount it already sent.
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { selfSignedCert } from "../oauth/helpers.js";

export interface SfinTransaction {
  id: string;
  posted: number;
  amount: string;
  description: string;
  pending?: boolean;
  payee?: string;
  transacted_at?: number;
}

export interface SfinAccount {
  id: string;
  name: string;
  currency: string;
  balance: string;
  "available-balance"?: string;
  "balance-date": number;
  transactions: SfinTransaction[];
  org?: { domain?: string; name?: string; "sfin-url": string };
}

export interface SfinFaults {
  /** Milliseconds before every answer. */
  slowMs?: number;
  /** Answer /accounts with this status (500, 502, 503 …) and a short text. */
  status?: number;
  /** /accounts answers 403: the person revoked the access. */
  revoked?: boolean;
  /** /accounts answers a body that is not JSON (cut in the middle). */
  malformed?: boolean;
  /** Every transaction is sent twice. */
  repeat?: boolean;
  /** Transactions are sent newest first. */
  reorder?: boolean;
  /** The bridge's own errors (the `errors` array), shown to the person sanitised. */
  errors?: string[];
}

export interface SfinRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  authorized: boolean;
}

export interface SimplefinServer {
  /** https://127.0.0.1:PORT */
  origin: string;
  cert: string;
  accounts: SfinAccount[];
  faults: SfinFaults;
  requests: SfinRequest[];
  /** The Access URLs claimed so far (with their credentials): what must never leak. */
  accessUrls: string[];
  /** A new setup token (Base64 of a fresh claim URL). */
  setupToken(): string;
  close(): Promise<void>;
}

/** Unix seconds of the start of an ISO day (UTC). */
export const unixOf = (isoDay: string, hour = 12): number => Date.parse(`${isoDay}T00:00:00Z`) / 1000 + hour * 3600;

export async function startSimplefinServer(accounts: SfinAccount[] = []): Promise<SimplefinServer> {
  const tls = selfSignedCert();
  const claims = new Map<string, boolean>();
  const credentials = new Map<string, true>();
  const state: SimplefinServer = {
    origin: "",
    cert: tls.cert,
    accounts,
    faults: {},
    requests: [],
    accessUrls: [],
    setupToken() {
      const token = randomBytes(12).toString("hex");
      claims.set(token, false);
      return Buffer.from(`${state.origin}/simplefin/claim/${token}`).toString("base64");
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };

  const send = (res: ServerResponse, status: number, body: string, type = "application/json") => {
    const go = () => {
      res.writeHead(status, { "content-type": type });
      res.end(body);
    };
    if (state.faults.slowMs) setTimeout(go, state.faults.slowMs);
    else go();
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", state.origin);
    const auth = /^Basic (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    const authorized = auth !== undefined && credentials.has(Buffer.from(auth, "base64").toString("utf8"));
    state.requests.push({ method: req.method ?? "", path: url.pathname, query: Object.fromEntries(url.searchParams), authorized });
    const claim = /^\/simplefin\/claim\/([0-9a-f]+)$/.exec(url.pathname);
    if (req.method === "POST" && claim) {
      const used = claims.get(claim[1]!);
      if (used !== false) return send(res, 403, "Forbidden", "text/plain");
      claims.set(claim[1]!, true);
      const user = randomBytes(8).toString("hex");
      const pass = randomBytes(16).toString("hex");
      credentials.set(`${user}:${pass}`, true);
      const access = `https://${user}:${pass}@${new URL(state.origin).host}/simplefin`;
      state.accessUrls.push(access);
      return send(res, 200, access, "text/plain");
    }
    if (req.method === "GET" && url.pathname === "/simplefin/info") return send(res, 200, JSON.stringify({ versions: ["1.0"] }));
    if (req.method === "GET" && url.pathname === "/simplefin/accounts") {
      if (!authorized || state.faults.revoked) return send(res, 403, "Forbidden", "text/plain");
      if (state.faults.status) return send(res, state.faults.status, "upstream unavailable", "text/plain");
      const start = Number(url.searchParams.get("start-date") ?? "0");
      const end = url.searchParams.has("end-date") ? Number(url.searchParams.get("end-date")) : Infinity;
      const pending = url.searchParams.get("pending") === "1";
      const body = {
        errors: state.faults.errors ?? [],
        accounts: state.accounts.map((a) => {
          let txs = a.transactions.filter((t) => (t.pending ? pending : t.posted >= start && t.posted < end));
          if (state.faults.repeat) txs = txs.flatMap((t) => [t, { ...t }]);
          if (state.faults.reorder) txs = [...txs].reverse();
          return { org: a.org ?? { domain: "bank.example", name: "Example Bank", "sfin-url": `${state.origin}/simplefin` }, ...a, transactions: txs };
        }),
      };
      const text = JSON.stringify(body);
      return send(res, 200, state.faults.malformed ? text.slice(0, Math.floor(text.length / 2)) : text);
    }
    send(res, 404, "Not Found", "text/plain");
  };

  const server: Server = createServer({ key: tls.key, cert: tls.cert }, handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}
