/**
 * Secrets never reach logs or error bodies: every log event of a server is captured while it creates
 * tokens with HTTP Basic, is called with valid, invalid and revoked tokens, and fails logins; neither a
 * token, nor a password, nor a token hash appears in any of them.
 */
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import type { Knex } from "knex";
import { closeServices, createApp, createServices, type Services } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { createDb } from "../../src/db/knex.js";
import { generateToken } from "../../src/auth/token-format.js";
import type { Logger } from "../../src/log.js";
import { migratedTestDatabase, engine, type TestDatabase } from "../helpers/database.js";
import { insertLoginUser, tokensApi } from "./basic.js";

const PASSWORD = "my very secret password";

describe(`secrets in logs and errors (${engine})`, () => {
  let database: TestDatabase;
  let db: Knex;
  let services: Services;
  let server: Server;
  let url: string;
  const events: string[] = [];

  before(async () => {
    database = await migratedTestDatabase();
    db = createDb(database.url);
    const log: Logger = {
      info: (event, fields) => void events.push(JSON.stringify({ level: "info", event, ...fields })),
      error: (event, fields) => void events.push(JSON.stringify({ level: "error", event, ...fields })),
    };
    services = await createServices(loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: "info" }), db, { log });
    server = createServer(createApp(services));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await closeServices(services);
    await db.destroy();
    await database.drop();
  });

  const rpc = async (token: string, method = "whoami") => {
    const res = await fetch(`${url}/api/v1/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: {} }),
    });
    return { status: res.status, text: await res.text() };
  };

  it("logs token creation and revocation by id only, and no request ever logs or echoes a secret", async () => {
    const user = await insertLoginUser(db, PASSWORD);
    const created = await tokensApi(url, "POST", { auth: user, body: { name: "logged", scopes: ["meta:whoami", "read:wallets"] } });
    expect(created.status).to.equal(201);
    const token: string = created.body.token;
    const secrets = [token, token.slice(5, 30), createHash("sha256").update(token).digest("hex"), PASSWORD];

    const bodies: string[] = [];
    bodies.push((await rpc(token)).text);
    bodies.push((await rpc(token, "list_budgets")).text); // insufficient scope
    const unknown = generateToken();
    const wrongChecksum = `${token.slice(0, -2)}zz`;
    for (const bad of [unknown, wrongChecksum]) {
      const answer = await rpc(bad);
      expect(answer.status).to.equal(401);
      expect(answer.text).not.to.include(bad);
      expect(answer.text).not.to.include(bad.slice(5, 30));
      bodies.push(answer.text);
    }
    bodies.push(JSON.stringify((await tokensApi(url, "GET", { auth: { email: user.email, password: `${PASSWORD}!` } })).body));
    bodies.push(JSON.stringify((await tokensApi(url, "GET", { auth: user })).body));
    const revoked = await tokensApi(url, "DELETE", { auth: user, path: `/${created.body.token_id}` });
    bodies.push(JSON.stringify(revoked.body));
    bodies.push((await rpc(token)).text);

    for (const text of [...bodies, ...events]) for (const s of secrets) expect(text).not.to.include(s);
    for (const text of events) expect(text).not.to.include(`${PASSWORD}!`);
    expect(events.some((e) => e.includes('"token_created"') && e.includes(created.body.token_id))).to.equal(true);
    expect(events.some((e) => e.includes('"token_revoked"') && e.includes(created.body.token_id))).to.equal(true);
  });
});
