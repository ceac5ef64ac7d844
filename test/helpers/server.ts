/**
 * startTestServer: a real server on a loopback port over a fresh database, with helpers to create
 * users and tokens and to call tools the way a client does (over HTTP, through the whole pipeline).
 */
import type { AddressInfo } from "node:net";
import { createServer, type Server } from "node:http";
import { randomUUID } from "node:crypto";
import type { Knex } from "knex";
import { closeServices, createApp, createServices, type Services } from "../../src/app.js";
import { loadConfig, type Config } from "../../src/config.js";
import { createDb } from "../../src/db/knex.js";
import type { IdSource } from "../../src/db/ids.js";
import { createToken } from "../../src/auth/tokens.js";
import { KNOWN_SCOPES } from "../../src/auth/tokens.js";
import { newId } from "../../src/db/ids.js";
import { migratedTestDatabase, type TestDatabase } from "./database.js";

export interface TestUser {
  id: string;
  email: string;
  /** A token with every scope. */
  token: string;
  tokenWith(scopes: string[]): Promise<string>;
}

export interface RpcAnswer {
  status: number;
  headers: Headers;
  body: any;
}

export interface TestServer {
  url: string;
  mcpUrl: string;
  db: Knex;
  services: Services;
  config: Config;
  database: TestDatabase;
  createUser(options?: { email?: string; timezone?: string; currency?: string }): Promise<TestUser>;
  /** POST one JSON-RPC message; returns status, headers and parsed body. */
  rpc(body: unknown, token?: string, headers?: Record<string, string>): Promise<RpcAnswer>;
  /** Calls a tool directly by name and returns its result, or throws with the JSON-RPC error attached. */
  call<T = any>(tool: string, params: Record<string, unknown>, token: string): Promise<T>;
  /** Calls a tool and returns the JSON-RPC error (fails if the call succeeded). */
  callError(tool: string, params: Record<string, unknown>, token: string): Promise<{ code: number; message: string; data: any }>;
  close(): Promise<void>;
}

export class RpcCallError extends Error {
  constructor(readonly error: { code: number; message: string; data: any }) {
    super(`${error.code} ${error.message}`);
  }
}

export async function startTestServer(env: Record<string, string> = {}, options: { now?: () => Date; ids?: IdSource } = {}): Promise<TestServer> {
  const database = await migratedTestDatabase();
  // Tests make many calls with one token: the MCP and SSE limits are raised unless a test sets them
  // (the rate-limit tests do); the token-creation limit keeps its default.
  const config = loadConfig({
    LOG_LEVEL: "silent",
    RATE_LIMIT_MCP_PER_MINUTE: "1000000",
    RATE_LIMIT_SSE_PER_MINUTE: "1000000",
    ...env,
    DATABASE_URL: database.url,
  });
  const db = createDb(config.databaseUrl);
  const services = await createServices(config, db, { now: options.now, ids: options.ids });
  const server: Server = createServer(createApp(services));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  const mcpUrl = `${url}/api/v1/mcp`;
  let nextId = 1;

  const rpc = async (body: unknown, token?: string, headers: Record<string, string> = {}): Promise<RpcAnswer> => {
    const res = await fetch(mcpUrl, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  };

  const call = async (tool: string, params: Record<string, unknown>, token: string) => {
    const answer = await rpc({ jsonrpc: "2.0", id: nextId++, method: tool, params }, token);
    if (answer.body?.error) throw new RpcCallError(answer.body.error);
    return answer.body.result;
  };

  return {
    url,
    mcpUrl,
    db,
    services,
    config,
    database,
    rpc,
    call,
    async callError(tool, params, token) {
      try {
        await call(tool, params, token);
      } catch (err) {
        if (err instanceof RpcCallError) return err.error;
        throw err;
      }
      throw new Error(`${tool} succeeded but an error was expected`);
    },
    async createUser(opts = {}) {
      // Inserted directly: scrypt at OWASP cost takes ~0.3 s, and most tests need users, not passwords.
      const id = newId("usr");
      const email = opts.email ?? `${id}@example.test`;
      const at = new Date().toISOString();
      await db("users").insert({
        id,
        email,
        email_normalized: email.toLowerCase(),
        password_hash: "scrypt$test$not-a-password",
        timezone: opts.timezone ?? "UTC",
        default_currency: opts.currency ?? "USD",
        created_at: at,
        updated_at: at,
      });
      // Ten years: the server checks expiry on its own clock (src/http/guards.ts), which tests move to other
      // days and years; a test of expiry makes its own short-lived token.
      const tokenWith = async (scopes: string[]) =>
        (await createToken(db, id, { name: `test ${randomUUID().slice(0, 8)}`, scopes, expiresInDays: 3650 }, config.tokenPepper)).token;
      return { id, email, token: await tokenWith([...KNOWN_SCOPES]), tokenWith };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await closeServices(services);
      await db.destroy();
      await database.drop();
    },
  };
}
