/**
 * The per-token and per-user limits in Redis (REDIS_URL; src/limits/limiter.ts): the same numbers as the
 * database store (test/limits/rate-limits.test.ts), exact with two server processes, and a Redis outage
 * answered as a database outage is: 503 with Retry-After, never a pass. Redis is the one at REDIS_TEST_URL
 * (default redis://127.0.0.1:6379, which .ci/run starts); the outage uses a redis-server of its own on
 * another port, stopped and started again by the test.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { expect } from "chai";
import { engine } from "../helpers/database.js";
import { hasProgram, skipWithout } from "../helpers/external.js";
import { Redis } from "ioredis";
import { startServerProcess, type ServerProcess } from "../helpers/process.js";
import { startTestServer, type RpcAnswer, type TestServer, type TestUser } from "../helpers/server.js";

const REDIS_URL = process.env.REDIS_TEST_URL || "redis://127.0.0.1:6379";
const LIMITS = { RATE_LIMIT_MCP_PER_MINUTE: "120", RATE_LIMIT_SSE_PER_MINUTE: "30", REDIS_URL };

async function whoami(url: string, token: string, id: number): Promise<RpcAnswer> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "whoami" }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

function tally(answers: RpcAnswer[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const a of answers) out[a.status] = (out[a.status] ?? 0) + 1;
  return out;
}

/** Whether the Redis at `url` answers PING within a second. */
async function redisAnswers(url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, connectTimeout: 1000, retryStrategy: () => null });
  client.on("error", () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** A redis-server of this test's own, without persistence. */
async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("redis-server did not start within 10 s")), 10_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("Ready to accept connections")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => reject(new Error(`redis-server exited with ${code}`)));
  });
  return child;
}

async function stopRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
}

describe(`rate limits in Redis (${engine})`, function () {
  this.timeout(120_000);

  describe("one process, and two sharing one Redis", () => {
    let server: TestServer;
    let other: ServerProcess | undefined;
    let user: TestUser;
    before(async function () {
      this.timeout(60_000);
      if (!(await redisAnswers(REDIS_URL))) skipWithout(this, "redis", `no Redis answers at ${REDIS_URL}`);
      server = await startTestServer(LIMITS);
      user = await server.createUser();
      other = await startServerProcess(server.database.url, LIMITS);
    });
    after(async () => {
      await other?.stop();
      await server?.close();
    });

    it("lets exactly 120 of 150 rapid requests through, and writes no counter to the database", async () => {
      const token = await user.tokenWith(["meta:whoami"]);
      const answers = await Promise.all(Array.from({ length: 150 }, (_, i) => whoami(server.mcpUrl, token, i)));
      expect(tally(answers)).to.deep.equal({ 200: 120, 429: 30 });
      for (const a of answers.filter((x) => x.status === 429)) {
        expect(Number(a.headers.get("retry-after"))).to.be.within(1, 60);
        expect(a.body.error.data).to.include({ code: "rate_limited" });
      }
      expect(await server.db("rate_limits").where("key", "like", "mcp:%").count({ n: "*" }))
        .to.have.nested.property("[0].n")
        .that.satisfies((n: unknown) => Number(n) === 0);
    });

    it("lets exactly 120 of 150 through when each process takes half", async () => {
      const token = await user.tokenWith(["meta:whoami"]);
      const answers = await Promise.all(Array.from({ length: 150 }, (_, i) => whoami(i % 2 ? other!.mcpUrl : server.mcpUrl, token, i)));
      expect(tally(answers)).to.deep.equal({ 200: 120, 429: 30 });
      expect(answers.filter((a, i) => i % 2 === 1 && a.status === 200).length).to.be.greaterThan(0);
      expect(answers.filter((a, i) => i % 2 === 0 && a.status === 200).length).to.be.greaterThan(0);
    });
  });

  describe("when Redis is unreachable", () => {
    let server: TestServer;
    let user: TestUser;
    let redis: ChildProcess;
    let port: number;
    before(async function () {
      this.timeout(60_000);
      if (!hasProgram("redis-server")) skipWithout(this, "redis", "redis-server is not installed");
      port = await freePort();
      redis = await startRedis(port);
      server = await startTestServer({ ...LIMITS, REDIS_URL: `redis://127.0.0.1:${port}` });
      user = await server.createUser();
    });
    after(async () => {
      await server?.close();
      if (redis) await stopRedis(redis);
    });

    it("answers 503 with Retry-After, never a pass, and limits again once Redis is back", async () => {
      const token = await user.tokenWith(["meta:whoami"]);
      expect((await whoami(server.mcpUrl, token, 1)).status).to.equal(200);
      await stopRedis(redis);
      const during = await Promise.all(Array.from({ length: 20 }, (_, i) => whoami(server.mcpUrl, token, i)));
      expect(tally(during)).to.deep.equal({ 503: 20 });
      for (const a of during) {
        expect(Number(a.headers.get("retry-after"))).to.be.at.least(1);
        expect(a.body.error.data).to.include({ code: "unavailable", retryable: true });
        expect(JSON.stringify(a.body)).to.not.match(/ECONNREFUSED|ioredis|stack/i);
      }
      redis = await startRedis(port);
      let back: RpcAnswer | undefined;
      // ioredis reconnects with a backoff of at most 2 s: wait for it, then the count starts afresh.
      for (let i = 0; i < 100 && back?.status !== 200; i++) {
        back = await whoami(server.mcpUrl, token, 100 + i);
        if (back.status !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      expect(back?.status).to.equal(200);
      expect(back?.headers.get("ratelimit")).to.match(/^"mcp";r=119;/);
    });
  });
});
