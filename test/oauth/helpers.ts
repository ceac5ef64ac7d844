/**
 * Test helpers for the OAuth flows: an in-memory OAuthClientProvider for the MCP SDK (1.x), the consent
 * step driven over HTTP (GET /oauth/authorize, then completeAuthorization, which the consent page calls),
 * and small HTTPS / HTTP servers that serve client metadata documents.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { completeAuthorization } from "../../src/oauth/authorize.js";
import type { TestServer } from "../helpers/server.js";

export const REDIRECT_URL = "http://127.0.0.1:33418/callback";

export class MemoryProvider implements OAuthClientProvider {
  clientInfo?: OAuthClientInformationMixed;
  savedTokens?: OAuthTokens;
  verifier = "";
  authorizationUrl?: URL;
  readonly stateValue = `state-${Math.random().toString(36).slice(2)}`;

  constructor(readonly options: { clientMetadataUrl?: string; redirectUrl?: string; name?: string } = {}) {}

  get redirectUrl() {
    return this.options.redirectUrl ?? REDIRECT_URL;
  }
  get clientMetadataUrl() {
    return this.options.clientMetadataUrl;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.options.name ?? "SDK test client",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state() {
    return this.stateValue;
  }
  clientInformation() {
    return this.clientInfo;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.clientInfo = info;
  }
  tokens() {
    return this.savedTokens;
  }
  saveTokens(tokens: OAuthTokens) {
    this.savedTokens = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** Follows an authorization URL to the consent hand-over; returns the pending request's id. */
export async function pendingIdFor(authorizationUrl: URL | string): Promise<string> {
  const res = await fetch(authorizationUrl, { redirect: "manual" });
  const location = res.headers.get("location");
  if (res.status !== 302 || !location) throw new Error(`authorize answered ${res.status}: ${await res.text()}`);
  const u = new URL(location, authorizationUrl);
  if (u.pathname !== "/oauth/consent") throw new Error(`authorize redirected to ${location}`);
  return u.searchParams.get("request")!;
}

/** The person approves (scopes) or denies (null): the URL the browser would be sent back to. */
export async function consent(server: TestServer, authorizationUrl: URL | string, userId: string, scopes: string[] | null): Promise<URL> {
  const id = await pendingIdFor(authorizationUrl);
  return new URL(await completeAuthorization(server.services, id, userId, scopes));
}

/** A throwaway self-signed certificate for 127.0.0.1 / localhost. */
export function selfSignedCert(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), "fmcp-cert-"));
  try {
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=127.0.0.1",
        "-addext",
        "subjectAltName=IP:127.0.0.1,DNS:localhost",
        "-keyout",
        join(dir, "key.pem"),
        "-out",
        join(dir, "cert.pem"),
      ],
      { stdio: "ignore" },
    );
    return { key: readFileSync(join(dir, "key.pem"), "utf8"), cert: readFileSync(join(dir, "cert.pem"), "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface DocServer {
  url: string;
  hits: number;
  close(): Promise<void>;
}

/** Serves `handler` over https (with `tls`) or http on 127.0.0.1. */
export async function docServer(
  handler: (req: IncomingMessage, res: ServerResponse, base: string) => void,
  tls?: { key: string; cert: string },
): Promise<DocServer> {
  const state = { hits: 0, base: "" };
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    state.hits++;
    handler(req, res, state.base);
  };
  const server = tls ? createHttpsServer(tls, onRequest) : createHttpServer(onRequest);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.base = `${tls ? "https" : "http"}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: state.base,
    get hits() {
      return state.hits;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
