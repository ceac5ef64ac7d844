/**
 * TRUST_PROXY (docs/security.md, "Deploying behind a proxy"): checked at start with express's semantics
 * (a hop count or proxy addresses, never "trust everything"), a warning at start when PUBLIC_URL is https
 * without it, and behind a proxy every per-address limit counts each client on its own: the OAuth limit
 * and the login throttle key on the forwarded address, and a client cannot choose it by prepending its own.
 */
import { expect } from "chai";
import express from "express";
import { closeServices, createServices } from "../../src/app.js";
import { ConfigError, configWarnings, loadConfig } from "../../src/config.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { WebClient } from "../helpers/web-client.js";

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
}

describe("TRUST_PROXY in the configuration", () => {
  it("takes a hop count or a list of proxy addresses and networks", () => {
    expect(loadConfig({}).trustProxy).to.equal(false);
    expect(loadConfig({ TRUST_PROXY: "1" }).trustProxy).to.equal(1);
    expect(loadConfig({ TRUST_PROXY: "10.0.0.0/8, loopback,2001:db8::/32, 192.0.2.7" }).trustProxy).to.deep.equal([
      "10.0.0.0/8",
      "loopback",
      "2001:db8::/32",
      "192.0.2.7",
    ]);
  });

  it("refuses at start what express would misread or what trusts every client: true, 0, bad addresses and prefixes", () => {
    for (const bad of ["true", "0", "11", "-1", "proxy.example", "10.0.0.0/33", "2001:db8::/129", "10.0.0.1/8/2", "loopback,nonsense"]) {
      const problems = problemsOf({ TRUST_PROXY: bad });
      expect(problems, bad).to.have.length(1);
      expect(problems[0]).to.match(/^TRUST_PROXY must be a hop count from 1 to 10 .* got /);
    }
  });

  it("refuses a list that trusts every client however it is split (half or more of a family), with one clean line, and express accepts every list it takes", () => {
    for (const [bad, family] of [
      ["0.0.0.0/0", "IPv4"],
      ["0.0.0.0/1,128.0.0.0/1", "IPv4"],
      ["128.0.0.0/1", "IPv4"],
      ["0.0.0.0/2, 64.0.0.0/2, 128.0.0.0/2, 192.0.0.0/3, 10.0.0.1", "IPv4"],
      ["::ffff:0:0/96", "IPv4"],
      ["::ffff:0.0.0.0/97,128.0.0.0/1", "IPv4"],
      ["::/0", "IPv4"],
      ["8000::/1", "IPv6"],
      ["2000::/1,::/1", "IPv4"],
      ["1.2.3.4/0", "IPv4"],
    ] as const) {
      const problems = problemsOf({ TRUST_PROXY: bad });
      expect(problems, bad).to.deep.equal([
        `TRUST_PROXY must list only your proxies: ${JSON.stringify(bad)} covers half or more of all ${family} addresses, so nearly any client could name its own address in X-Forwarded-For and escape every per-address limit`,
      ]);
    }
    const app = express();
    for (const good of [
      "10.0.0.0/8,172.16.0.0/12,192.168.0.0/16",
      "0.0.0.0/2,64.0.0.0/3",
      "2400:cb00::/32,2a06:98c0::/29,uniquelocal",
      "::ffff:10.0.0.0/104",
      "fe80::1",
    ]) {
      const trust = loadConfig({ TRUST_PROXY: good }).trustProxy;
      expect(trust, good).to.be.an("array");
      expect(() => app.set("trust proxy", trust), good).not.to.throw();
    }
  });

  it("warns when PUBLIC_URL is https and TRUST_PROXY is unset, and only then", () => {
    expect(configWarnings(loadConfig({ PUBLIC_URL: "https://finance.example.com" }))).to.have.length(1);
    expect(configWarnings(loadConfig({ PUBLIC_URL: "https://finance.example.com" }))[0]).to.contain("TRUST_PROXY");
    expect(configWarnings(loadConfig({ PUBLIC_URL: "https://finance.example.com", TRUST_PROXY: "1" }))).to.deep.equal([]);
    expect(configWarnings(loadConfig({ PUBLIC_URL: "http://127.0.0.1:8080" }))).to.deep.equal([]);
    expect(configWarnings(loadConfig({}))).to.deep.equal([]);
  });
});

describe(`behind a proxy (${engine})`, function () {
  this.timeout(60_000);

  const register = (server: TestServer, forwardedFor?: string) =>
    fetch(`${server.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(forwardedFor ? { "x-forwarded-for": forwardedFor } : {}) },
      body: JSON.stringify({ client_name: "Proxy Test", redirect_uris: ["http://127.0.0.1:9/cb"], token_endpoint_auth_method: "none" }),
    }).then(async (r) => {
      await r.body?.cancel();
      return r.status;
    });

  it("logs the warning at start", async () => {
    const server = await startTestServer();
    const lines: Array<{ event: string; fields?: Record<string, unknown> }> = [];
    const log = { info: () => undefined, error: (event: string, fields?: Record<string, unknown>) => void lines.push({ event, fields }) };
    try {
      const config = loadConfig({ DATABASE_URL: server.database.url, PUBLIC_URL: "https://finance.example.com" });
      const services = await createServices(config, server.db, { log });
      await closeServices(services);
      expect(lines.map((l) => l.event)).to.deep.equal(["config_warning"]);
      expect(String(lines[0]!.fields!.warning)).to.contain("TRUST_PROXY");
    } finally {
      await server.close();
    }
  });

  it("with TRUST_PROXY=1, the OAuth per-address limit counts each forwarded client on its own, and a prepended address changes nothing", async () => {
    const server = await startTestServer({ TRUST_PROXY: "1", RATE_LIMIT_OAUTH_PER_HOUR: "2" });
    try {
      expect(await register(server, "203.0.113.1")).to.equal(201);
      expect(await register(server, "203.0.113.1")).to.equal(201);
      expect(await register(server, "203.0.113.1")).to.equal(429);
      // The client writes its own X-Forwarded-For; the proxy appends the address it saw: the last one counts.
      expect(await register(server, "198.51.100.77, 203.0.113.1")).to.equal(429);
      // Another client behind the same proxy is not affected.
      expect(await register(server, "203.0.113.2")).to.equal(201);
    } finally {
      await server.close();
    }
  });

  it("without TRUST_PROXY, X-Forwarded-For is ignored: a client cannot escape the limit by naming another address", async () => {
    const server = await startTestServer({ RATE_LIMIT_OAUTH_PER_HOUR: "2" });
    try {
      expect(await register(server, "203.0.113.1")).to.equal(201);
      expect(await register(server, "203.0.113.2")).to.equal(201);
      expect(await register(server, "203.0.113.3")).to.equal(429);
    } finally {
      await server.close();
    }
  });

  it("the login throttle counts the forwarded client address, not the proxy's", async () => {
    const server = await startTestServer({ TRUST_PROXY: "loopback" });
    try {
      const client = new WebClient(server.url);
      const answer = await client.signIn("nobody@example.test", "not a password at all", { "x-forwarded-for": "198.51.100.9" });
      expect(answer.status).to.equal(401);
      const keys = (await server.db("rate_limits").select("key")).map((r: { key: string }) => r.key);
      expect(keys).to.include("login_address:198.51.100.9");
      expect(keys.filter((k) => k.startsWith("login_address:"))).to.deep.equal(["login_address:198.51.100.9"]);
    } finally {
      await server.close();
    }
  });
});
