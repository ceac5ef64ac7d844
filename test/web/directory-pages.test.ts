/**
 * What a directory asks of a listed server besides /privacy (issue 52 item 5; src/web/directory-pages.ts):
 * /terms and /support pages linked from every page's footer, and DIRECTORY_VERIFICATION_TOKEN served as
 * plain text at ChatGPT's domain-check path, /.well-known/openai-apps-challenge (404 while unset).
 */
import { expect } from "chai";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { loadConfig } from "../../src/config.js";

const HTML = { accept: "text/html" };

describe(`directory pages: terms, support, domain verification (${engine})`, () => {
  let server: TestServer;
  let bare: TestServer;
  before(async () => {
    server = await startTestServer({ DIRECTORY_VERIFICATION_TOKEN: "oa-challenge-1234567890abcdef", SUPPORT_CONTACT: "help@finance.example.com" });
    bare = await startTestServer();
  });
  after(async () => {
    await server?.close();
    await bare?.close();
  });

  it("serves the token as plain text at /.well-known/openai-apps-challenge, and 404 when none is set", async () => {
    const res = await fetch(`${server.url}/.well-known/openai-apps-challenge`);
    expect(res.status).to.equal(200);
    expect(res.headers.get("content-type")).to.match(/^text\/plain/);
    expect(await res.text()).to.equal("oa-challenge-1234567890abcdef");
    expect((await fetch(`${bare.url}/.well-known/openai-apps-challenge`)).status).to.equal(404);
    expect(() => loadConfig({ DIRECTORY_VERIFICATION_TOKEN: "has a space" })).to.throw(/DIRECTORY_VERIFICATION_TOKEN must be/);
  });

  it("/terms and /support are pages with the pages' security headers; /support names the operator's contact when set", async () => {
    for (const path of ["/terms", "/support"]) {
      const res = await fetch(`${server.url}${path}`, { headers: HTML });
      expect(res.status, path).to.equal(200);
      expect(res.headers.get("content-security-policy"), path).to.include("script-src 'nonce-");
    }
    const terms = await (await fetch(`${server.url}/terms`, { headers: HTML })).text();
    expect(terms).to.include("Terms of use").and.include("does not move money").and.include("MIT");
    expect(await (await fetch(`${server.url}/support`, { headers: HTML })).text()).to.include("help@finance.example.com");
    expect(await (await fetch(`${bare.url}/support`, { headers: HTML })).text()).to.include("ask whoever runs it");
  });

  it("every page's footer links privacy, terms and support", async () => {
    for (const path of ["/", "/privacy", "/terms", "/support", "/account"]) {
      const html = await (await fetch(`${server.url}${path}`, { headers: HTML })).text();
      for (const link of ['href="/privacy"', 'href="/terms"', 'href="/support"']) expect(html, `${path} ${link}`).to.include(link);
    }
  });
});
