/**
 * Request logs of a real server process: every line of a request carries its request id (taken from
 * X-Request-Id or traceparent when sent), the tool and the user id, and never a secret or an argument
 * value. LOG_FORMAT=pretty prints readable lines.
 */
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect } from "chai";
import { createDb } from "../../src/db/knex.js";
import { migratedTestDatabase, engine, type TestDatabase } from "../helpers/database.js";
import { callOver, insertUserWithToken } from "../helpers/direct-user.js";
import { startServerProcess, type ServerProcess } from "../helpers/process.js";

describe(`request logs (${engine})`, function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let server: ServerProcess;
  let user: { id: string; token: string };
  let walletId: string;
  const db = () => createDb(database.url);

  before(async () => {
    database = await migratedTestDatabase();
    const d = db();
    user = await insertUserWithToken(d);
    await d.destroy();
    server = await startServerProcess(database.url, {}, { logs: true });
    const w = await callOver(server.mcpUrl, user.token, "create_wallet", { name: "Logs", type: "cash", currency: "USD", idempotency_key: randomUUID() });
    walletId = w.body.result.wallet.id;
  });
  after(async () => {
    await server.stop();
    await database.drop();
  });

  const linesOf = async (requestId: string) => {
    // The request line is written when the response has ended: give it a moment to reach the pipe.
    for (let i = 0; i < 40; i++) {
      const found = server.logs.map((l) => JSON.parse(l)).filter((l) => l.request_id === requestId);
      if (found.some((l) => l.event === "request")) return found;
      await new Promise((r) => setTimeout(r, 25));
    }
    return [];
  };

  it("takes X-Request-Id, echoes it, and logs the request with tool and user id but no argument value", async () => {
    const secretish = `argument-value-${randomUUID()}`;
    const r = await callOver(
      server.mcpUrl,
      user.token,
      "create_transaction",
      { wallet_id: walletId, amount: "4.20", direction: "expense", payee: secretish, description: secretish, idempotency_key: randomUUID() },
      { "x-request-id": "req-abc-123" },
    );
    expect(r.status).to.equal(200);
    expect(r.headers.get("x-request-id")).to.equal("req-abc-123");
    const lines = await linesOf("req-abc-123");
    expect(lines).to.have.length.greaterThan(0);
    for (const line of lines) expect(line).to.include({ request_id: "req-abc-123", tool: "create_transaction", user_id: user.id });
    expect(lines.find((l) => l.event === "request")).to.include({ method: "POST", path: "/api/v1/mcp", status: 200 });
    const all = server.logs.join("\n");
    expect(all).not.to.include(secretish);
    expect(all).not.to.include(user.token);
    expect(all).not.to.include("4.20");

    // The same id is on the write's audit row.
    const d = db();
    try {
      const row = await d("audit_log").where({ user_id: user.id, tool: "create_transaction" }).orderBy("id", "desc").first();
      expect(row.request_id).to.equal("req-abc-123");
    } finally {
      await d.destroy();
    }
  });

  it("takes the trace id of a traceparent, through MCP tools/call too", async () => {
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const res = await fetch(server.mcpUrl, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${user.token}`,
        traceparent: `00-${traceId}-00f067aa0ba902b7-01`,
        "mcp-protocol-version": "2025-06-18",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "list_wallets", arguments: {} } }),
    });
    expect(res.status).to.equal(200);
    expect(res.headers.get("x-request-id")).to.equal(traceId);
    const [line] = (await linesOf(traceId)).filter((l) => l.event === "request");
    expect(line).to.include({ tool: "list_wallets", user_id: user.id, status: 200 });
  });

  it("replaces an unusable X-Request-Id by a fresh one, and logs no user for a request without a valid token", async () => {
    const r = await callOver(server.mcpUrl, "fmcp_not_a_token", "whoami", {}, { "x-request-id": "has spaces and ; semicolons" });
    expect(r.status).to.equal(401);
    const id = r.headers.get("x-request-id")!;
    expect(id).to.match(/^[0-9a-f-]{36}$/);
    const [line] = (await linesOf(id)).filter((l) => l.event === "request");
    expect(line).to.include({ status: 401 });
    expect(line).not.to.have.property("user_id");
    expect(server.logs.join("\n")).not.to.include("fmcp_not_a_token");
  });

  it("never logs a calendar feed's secret, whatever the path's case, nor a secret-shaped part of a wrong path", async () => {
    const secret = `cal_${"Zq9".repeat(10)}x_`;
    for (const [i, path] of [`/API/V1/Calendar/${secret}.ics`, `/api/v1//calendar/${secret}.ics`, `/nowhere/${secret}`].entries()) {
      const res = await fetch(`${server.url}${path}`, { headers: { "x-request-id": `calendar-${i}` } });
      await res.arrayBuffer();
      const [line] = (await linesOf(`calendar-${i}`)).filter((l) => l.event === "request");
      expect(line, path).to.have.property("path");
      expect(line.path, path).to.include("(secret)");
    }
    expect(server.logs.join("\n")).not.to.include(secret.slice(4));
  });

  it("never logs a calendar feed's secret sent percent-encoded: in part, in whole, twice, or beside a malformed escape", async () => {
    const body = "Zq9".repeat(10) + "x_";
    const secret = `cal_${body}`;
    const every = (text: string) => [...text].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, "0")}`).join("");
    const paths = [
      `/api/v1/calendar/%63al_${body}.ics`,
      `/api/v1/calendar/${every(secret)}.ics`,
      `/api/v1/calendar/%2563al_${body.replace(/Z/g, "%255A")}.ics`,
      `/api/v1/calendar/%FF%63%61l_${body}.ics`,
      `/nowhere/x${every(secret)}`,
    ];
    for (const [i, path] of paths.entries()) {
      const res = await fetch(`${server.url}${path}`, { headers: { "x-request-id": `calendar-encoded-${i}` } });
      await res.arrayBuffer();
      const [line] = (await linesOf(`calendar-encoded-${i}`)).filter((l) => l.event === "request");
      expect(line, path).to.have.property("path");
      expect(line.path, path).to.include("(secret)");
      expect(String(line.path), path).not.to.match(/q9|%5A|%71/i);
    }
    expect(server.logs.join("\n")).not.to.include(body);
    // The first path reaches the feed route as a secret (a well-formed unknown one: 404, like a revoked one).
    expect((await fetch(`${server.url}${paths[0]}`)).status).to.equal(404);
  });

  it("writes the request line in JSON as pino writes its lines: the same keys in the same order, undefined left out", async () => {
    const script = `import { createLogger } from ${JSON.stringify(fileURLToPath(new URL("../../src/log.ts", import.meta.url)))};
      import { pino } from "pino";
      const log = createLogger("info", "json");
      log.beginRequest({ request_id: "r-1", user_id: "usr_1", tool: undefined });
      log.info("request", { request_id: "r-1", method: "POST", path: "/api/v1/mcp", status: 200, ms: 1.5 });
      log.endRequest({ request_id: "r-1" });
      log.info("request", { request_id: "r-1", method: "GET", path: "/x\\"q", status: 404, ms: 0.1 });
      const p = pino({ base: undefined, messageKey: "event" }, pino.destination({ dest: 2, sync: true }));
      p.info({ request_id: "p-1", user_id: "usr_1", tool: undefined, method: "POST", path: "/api/v1/mcp", status: 200, ms: 1.5 }, "request");`;
    const { stderr } = await promisify(execFile)(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { timeout: 30_000 });
    const lines = stderr.trim().split("\n");
    expect(lines).to.have.length(3);
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    // pino's own line (written synchronously) may come first: each is found by its fields.
    const theirs = parsed.find((l) => l.request_id === "p-1")!;
    const ours = parsed.find((l) => l.request_id === "r-1" && l.status === 200)!;
    const second = parsed.find((l) => l.status === 404)!;
    const without = (o: Record<string, unknown>) => ({ ...o, time: 0, request_id: "" });
    expect(Object.keys(ours!)).to.deep.equal(["level", "time", "request_id", "user_id", "method", "path", "status", "ms", "event"]);
    expect(without(ours!)).to.deep.equal(without(theirs!));
    expect(second).to.include({ level: 30, path: '/x"q', status: 404, event: "request" });
    expect(second).not.to.have.property("user_id");
  });

  it("LOG_FORMAT=pretty prints readable lines, not JSON", async () => {
    const script = `import { createLogger } from ${JSON.stringify(fileURLToPath(new URL("../../src/log.ts", import.meta.url)))};
      const log = createLogger("info", "pretty");
      log.beginRequest({ request_id: "r-1", tool: "whoami", user_id: "usr_1" });
      log.info("request", { request_id: "r-1", status: 200 });
      log.info("token_created", { request_id: "r-1", token: "fmcp_secret" });`;
    const { stderr } = await promisify(execFile)(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { timeout: 30_000 });
    expect(stderr)
      .to.match(/INFO.*request/)
      .and.to.match(/INFO.*token_created/);
    expect(stderr).to.include("r-1").and.to.include("whoami").and.to.include("usr_1");
    expect(stderr).not.to.include("fmcp_secret");
    expect(() => JSON.parse(stderr.split("\n")[0]!)).to.throw();
  });
});
