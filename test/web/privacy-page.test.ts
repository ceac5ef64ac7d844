/**
 * GET /privacy (src/web/privacy-page.ts): the shipped text says what is stored, for how long, who can read
 * it, what leaves the server and how to download and delete it, with figures read from the configuration;
 * every page links it from its footer; PRIVACY_POLICY_FILE replaces the text, escaped, and a file the
 * server cannot use stops the start with a message naming the variable.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { ConfigError, loadConfig } from "../../src/config.js";
import { privacyHtml } from "../../src/web/privacy-page.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const HTML = { accept: "text/html" };
const headings = (html: string) => [...html.matchAll(/<h2>([^<]*)<\/h2>/g)].map((m) => m[1]);

describe(`GET /privacy (${engine})`, function () {
  this.timeout(120_000);

  describe("the shipped text", () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ IDEMPOTENCY_RETENTION_HOURS: "36" });
    });
    after(async () => server?.close());

    it("answers a page with the pages' security headers and the five questions a directory reviewer asks", async () => {
      const res = await fetch(`${server.url}/privacy`, { headers: HTML });
      expect(res.status).to.equal(200);
      expect(res.headers.get("content-type")).to.match(/^text\/html/);
      expect(res.headers.get("content-security-policy")).to.include("default-src 'none'");
      const html = await res.text();
      expect(headings(html)).to.deep.equal([
        "Who runs this server",
        "What is stored",
        "How long",
        "Who can read it",
        "What leaves the server",
        "Download and delete",
      ]);
      // The figure comes from the setting, not the text.
      expect(html).to.include("kept 36 hours");
      expect(html).to.include("Download my data").and.include("Delete my account");
    });

    it("is linked from the footer of every page: home, sign-in, the import and leave pages' sign-in, the MCP URL's browser page", async () => {
      for (const path of ["/", "/privacy", "/account", "/account/import", "/account/delete"]) {
        const res = await fetch(`${server.url}${path}`, { headers: HTML, redirect: "follow" });
        const html = await res.text();
        expect(html, path).to.match(/<footer><a href="\/privacy">Privacy<\/a> · <a href="\/terms">Terms<\/a> · <a href="\/support">Support<\/a><\/footer>/);
      }
      const mcp = await fetch(`${server.url}/api/v1/mcp`, { headers: { accept: "text/html" } });
      expect(mcp.status).to.equal(405);
      expect(await mcp.text()).to.include('<a href="/privacy">Privacy</a>');
    });
  });

  describe("an operator's text (PRIVACY_POLICY_FILE)", () => {
    const dir = mkdtempSync(join(tmpdir(), "privacy-"));

    it("replaces the shipped text, headings and paragraphs, escaped and never HTML", async () => {
      const file = join(dir, "policy.txt");
      writeFileSync(file, "# Our notice\r\nData stays in the EU.\r\nHosted by <b>Example</b> & Co.\r\n\r\nSecond paragraph.\n");
      const server = await startTestServer({ PRIVACY_POLICY_FILE: file });
      try {
        const html = await (await fetch(`${server.url}/privacy`, { headers: HTML })).text();
        expect(headings(html)).to.deep.equal(["Our notice"]);
        expect(html).to.include("<p>Data stays in the EU. Hosted by &lt;b&gt;Example&lt;/b&gt; &amp; Co.</p>");
        expect(html).to.include("<p>Second paragraph.</p>");
        expect(html).not.to.include("What leaves the server");
      } finally {
        await server.close();
      }
    });

    it("stops the start naming the variable when the file is missing, too large or not text", () => {
      const big = join(dir, "big.txt");
      writeFileSync(big, "x".repeat(64 * 1024 + 1));
      const binary = join(dir, "binary.txt");
      writeFileSync(binary, Buffer.from([0xff, 0xfe, 0x00, 0xc3]));
      const problems = (path: string) => {
        try {
          loadConfig({ PRIVACY_POLICY_FILE: path });
        } catch (err) {
          expect(err).to.be.instanceOf(ConfigError);
          return (err as ConfigError).problems.join("\n");
        }
        return "";
      };
      expect(problems(join(dir, "absent.txt"))).to.include("PRIVACY_POLICY_FILE must be a readable file");
      expect(problems(big)).to.include("PRIVACY_POLICY_FILE must be a file of at most 65536 bytes");
      expect(problems(binary)).to.include("PRIVACY_POLICY_FILE must be a file of UTF-8 text");
    });
  });

  it("turns text into headings and paragraphs line by line", () => {
    expect(privacyHtml("# A\none\ntwo\n\n\n# B\n\nthree")).to.equal("<h2>A</h2>\n<p>one two</p>\n<h2>B</h2>\n<p>three</p>");
  });
});
