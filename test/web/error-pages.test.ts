/**
 * Every answer of the web pages carries their security headers, error answers included (docs/security.md,
 * "Web sessions"): a form too large for the parser, a stale form (CSRF), a refused Host, an expired
 * consent request and a crash all come with the CSP (no framing), X-Frame-Options, no-store and nosniff.
 */
import { createHmac, randomBytes } from "node:crypto";
import { request } from "node:http";
import { expect } from "chai";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { WebClient, type WebAnswer } from "../helpers/web-client.js";

function expectPageHeaders(answer: WebAnswer, what: string) {
  expect(answer.headers.get("x-frame-options"), what).to.equal("DENY");
  expect(answer.headers.get("content-security-policy"), what).to.contain("frame-ancestors 'none'").and.contain("default-src 'none'");
  expect(answer.headers.get("cache-control"), what).to.equal("no-store");
  expect(answer.headers.get("x-content-type-options"), what).to.equal("nosniff");
  expect(answer.headers.get("referrer-policy"), what).to.equal("same-origin");
}

describe(`web error pages (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server?.close());

  it("a form the parser refuses (too large): 413 with the pages' headers, as a page", async () => {
    const client = new WebClient(server.url);
    await client.get("/account");
    const answer = await client.post("/account/sign-in", { email: "a@example.test", password: "x".repeat(20_000) });
    expect(answer.status).to.equal(413);
    expect(answer.headers.get("content-type")).to.match(/^text\/html/);
    expect(answer.text).to.not.contain("PayloadTooLargeError");
    expectPageHeaders(answer, "413");
  });

  it("a stale form (no or a wrong CSRF field): 403 with the pages' headers", async () => {
    const client = new WebClient(server.url);
    await client.get("/account");
    const answer = await client.post("/account/sign-in", { csrf: "forged", email: "a@example.test", password: "x" });
    expect(answer.status).to.equal(403);
    expectPageHeaders(answer, "csrf");
  });

  it("a refused Host: 403 with the pages' headers", async () => {
    const url = new URL(`${server.url}/account`);
    // fetch cannot set Host: node:http can.
    const answer = await new Promise<{ status: number; headers: Headers }>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: "/account", headers: { host: "evil.example" } }, (res) => {
        res.resume();
        const headers = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === "string") headers.set(k, v);
        resolve({ status: res.statusCode ?? 0, headers });
      });
      req.on("error", reject);
      req.end();
    });
    expect(answer.status).to.equal(403);
    expectPageHeaders({ ...answer, text: "", location: null }, "host");
  });

  it("an unknown consent request: 400 with the pages' headers", async () => {
    const answer = await new WebClient(server.url).get("/oauth/consent?request=nope");
    expect(answer.status).to.equal(400);
    expectPageHeaders(answer, "consent");
  });

  it("a crash: 500, a page that says nothing of the cause, with the pages' headers", async () => {
    const broken = await startTestServer();
    try {
      await broken.db.schema.dropTable("web_sessions");
      const client = new WebClient(broken.url);
      const id = randomBytes(32).toString("base64url");
      client.jar.set("fmcp_session", `${id}.${createHmac("sha256", broken.services.webKey).update(`session\n${id}`).digest("base64url")}`);
      const answer = await client.get("/account");
      expect(answer.status).to.equal(500);
      expect(answer.text).to.contain("Something went wrong").and.not.contain("web_sessions");
      expectPageHeaders(answer, "500");
    } finally {
      await broken.close();
    }
  });
});
