/**
 * Client ID Metadata Documents (docs/oauth.md): the server fetches a URL a stranger chose, so the fetch is
 * refused when the document is too large, too slow, redirects, sits on a private or loopback address
 * (unless OAUTH_CIMD_ALLOW_PRIVATE=true, for tests), or does not describe the URL it was fetched from;
 * a good document is cached. Real HTTPS servers on loopback, no mocks.
 */
import { createHash, randomBytes } from "node:crypto";
import https from "node:https";
import { expect } from "chai";
import { isPublicAddress } from "../../src/oauth/cimd.js";
import { engine } from "../helpers/database.js";
import { hasProgram, skipWithout } from "../helpers/external.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { docServer, selfSignedCert, type DocServer } from "./helpers.js";

const REDIRECT = "http://127.0.0.1:40002/cb";

async function authorize(server: TestServer, clientId: string): Promise<{ status: number; text: string; location: string | null }> {
  const challenge = createHash("sha256").update(randomBytes(32).toString("base64url")).digest("base64url");
  const u = new URL(`${server.url}/oauth/authorize`);
  for (const [k, v] of Object.entries({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
  }))
    u.searchParams.set(k, v);
  const res = await fetch(u, { redirect: "manual" });
  return { status: res.status, text: await res.text(), location: res.headers.get("location") };
}

const goodDoc = (clientId: string) => JSON.stringify({ client_id: clientId, client_name: "Doc client", redirect_uris: [REDIRECT] });

describe(`Client ID Metadata Documents (${engine})`, () => {
  let server: TestServer;
  let docs: DocServer;
  let tls: { key: string; cert: string };
  before(async function () {
    // The client metadata documents are served over TLS with a throwaway certificate that openssl makes.
    if (!hasProgram("openssl", ["version"])) skipWithout(this, "openssl", "no openssl on PATH");
    server = await startTestServer({ OAUTH_CIMD_ALLOW_PRIVATE: "true" });
    tls = selfSignedCert();
    https.globalAgent.options.ca = tls.cert;
    docs = await docServer((req, res, base) => {
      const id = `${base}${req.url}`;
      const path = req.url ?? "";
      if (path.startsWith("/good")) {
        res.setHeader("content-type", "application/json");
        res.setHeader("cache-control", "max-age=600");
        return void res.end(goodDoc(id));
      }
      if (path.startsWith("/large")) {
        res.setHeader("content-type", "application/json");
        // No Content-Length: the limit must hold while streaming.
        res.write(`{"client_id":${JSON.stringify(id)},"redirect_uris":[${JSON.stringify(REDIRECT)}],"pad":"`);
        res.write("x".repeat(6000));
        return void res.end('"}');
      }
      if (path.startsWith("/slow")) {
        const timer = setTimeout(() => {
          res.setHeader("content-type", "application/json");
          res.end(goodDoc(id));
        }, 8000);
        res.on("close", () => clearTimeout(timer));
        return;
      }
      if (path.startsWith("/redirect")) {
        res.statusCode = 302;
        res.setHeader("location", `${base}/good/elsewhere.json`);
        return void res.end();
      }
      if (path.startsWith("/mismatch")) {
        res.setHeader("content-type", "application/json");
        return void res.end(goodDoc(`${base}/good/other.json`));
      }
      if (path.startsWith("/secret")) {
        res.setHeader("content-type", "application/json");
        return void res.end(
          JSON.stringify({ client_id: id, redirect_uris: [REDIRECT], client_secret: "s3cret", token_endpoint_auth_method: "client_secret_basic" }),
        );
      }
      if (path.startsWith("/html")) {
        res.setHeader("content-type", "text/html");
        return void res.end("<html></html>");
      }
      res.statusCode = 404;
      res.end();
    }, tls);
  });
  after(async () => {
    delete https.globalAgent.options.ca;
    await docs?.close();
    await server?.close();
  });

  it("accepts a good document and caches it (fetched once)", async () => {
    const id = `${docs.url}/good/client.json`;
    const before = docs.hits;
    const first = await authorize(server, id);
    expect(first.status, first.text).to.equal(302);
    expect(first.location).to.match(/^\/oauth\/consent\?request=/);
    expect((await authorize(server, id)).status).to.equal(302);
    expect(docs.hits - before).to.equal(1);
  });

  const refusals: Array<[string, string, RegExp]> = [
    ["larger than 5 KB", "/large/client.json", /larger than 5120 bytes/],
    ["redirecting", "/redirect/client.json", /redirects/],
    ["for another client_id", "/mismatch/client.json", /client_id is not the URL/],
    ["holding a client secret", "/secret/client.json", /client secret/],
    ["not JSON", "/html/client.json", /application\/json/],
    ["missing", "/missing/client.json", /HTTP 404/],
  ];
  for (const [label, path, message] of refusals) {
    it(`refuses a document ${label}`, async () => {
      const answer = await authorize(server, `${docs.url}${path}`);
      expect(answer.status).to.equal(400);
      expect(answer.location).to.equal(null);
      expect(answer.text).to.match(message);
    });
  }

  it("refuses a document that takes longer than 2 seconds (a slow host holds a fetch slot no longer)", async function () {
    this.timeout(15_000);
    const answer = await authorize(server, `${docs.url}/slow/client.json`);
    expect(answer.status).to.equal(400);
    expect(answer.text).to.match(/did not arrive within 2000 ms/);
  });

  it("refuses client_id URLs that cannot name a document", async () => {
    for (const [id, message] of [
      [`${docs.url}/`, /must have a path/],
      [`${docs.url}/good/x.json#frag`, /fragment/],
      [`https://user:pw@127.0.0.1/good/x.json`, /credentials/],
    ] as const) {
      const answer = await authorize(server, id);
      expect(answer.status, id).to.equal(400);
      expect(answer.text, id).to.match(message);
    }
  });

  describe("without OAUTH_CIMD_ALLOW_PRIVATE", () => {
    let strict: TestServer;
    before(async () => {
      strict = await startTestServer();
    });
    after(async () => strict.close());

    it("refuses loopback and private addresses, by literal IP or by name, without connecting", async () => {
      const port = new URL(docs.url).port;
      const before = docs.hits;
      for (const id of [
        `https://127.0.0.1:${port}/good/a.json`,
        `https://localhost:${port}/good/b.json`,
        `https://[::1]:${port}/good/c.json`,
        "https://10.1.2.3/good/d.json",
        "https://169.254.169.254/latest/meta-data.json",
      ]) {
        const answer = await authorize(strict, id);
        expect(answer.status, id).to.equal(400);
        expect(answer.text, id).to.match(/private or reserved address/);
      }
      expect(docs.hits).to.equal(before);
    });

    it("refuses plain http", async () => {
      const answer = await authorize(strict, "http://client.example/meta.json");
      expect(answer.status).to.equal(400);
      expect(answer.text).to.match(/must use https/);
    });
  });

  it("knows which addresses are public", () => {
    for (const a of [
      "127.0.0.1",
      "10.0.0.1",
      "172.16.5.4",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "::1",
      "fe80::1",
      "fd00::1",
      "::ffff:127.0.0.1",
      "::ffff:10.0.0.1",
      "::ffff:7f00:1",
      "224.0.0.1",
      // IPv4-compatible (::/96), IPv4-mapped (::ffff:0:0/96) and SIIT IPv4-translated (::ffff:0:0:0/96)
      // addresses reach IPv4 hosts: none is public, whatever IPv4 address it holds.
      "::7f00:1",
      "::127.0.0.1",
      "::a00:1",
      "::ffff:8.8.8.8",
      "::ffff:0:7f00:1",
      "::ffff:0:808:808",
      // Outside the global unicast space 2000::/3 (issue 41: the first was treated as public).
      "::ffff:ffff:7f00:1",
      "::1:ffff:7f00:1",
      "100:ffff::7f00:1",
      "4000::1",
      "3fff::1",
    ]) {
      expect(isPublicAddress(a), a).to.equal(false);
    }
    for (const a of ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "2a00:1450:4001::200e"]) expect(isPublicAddress(a), a).to.equal(true);
  });
});
