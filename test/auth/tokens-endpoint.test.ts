/**
 * POST/GET/DELETE /api/v1/mcp-tokens with HTTP Basic: creation, wrong credentials, bad bodies, the hourly
 * creation limit, revocation, the login throttle and the Host/Origin guard.
 */
import { createHash } from "node:crypto";
import { expect } from "chai";
import { createUser } from "../../src/auth/users.js";
import { createToken, createTokenWithinQuota, TokenQuotaError } from "../../src/auth/tokens.js";
import { dummyPasswordHash } from "../../src/auth/passwords.js";
import { createRateLimits } from "../../src/limits/limiter.js";
import type { LoginVerdict } from "../../src/limits/types.js";
import { scopes as registryScopes } from "../../generated/registry.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { basic, insertLoginUser, tokensApi } from "./basic.js";

const PASSWORD = "correct horse battery staple";

describe(`tokens endpoint (${engine})`, () => {
  let server: TestServer;
  let real: { id: string; email: string };

  before(async () => {
    server = await startTestServer();
    // The one user created the real way: scrypt at OWASP's parameters (~0.5 s per hash or check).
    real = await createUser(server.db, { email: "Real.User@Example.test", password: PASSWORD, timezone: "Europe/Berlin", currency: "EUR" });
  });
  after(async () => server.close());

  const whoami = (token: string) => server.rpc({ jsonrpc: "2.0", id: 1, method: "whoami" }, token);

  /**
   * The server's own login throttle, its verdicts recorded as it gives them: what a login was made to
   * wait is read from the decision, not timed (a loaded machine makes every wall-clock bound flaky).
   */
  async function withVerdicts<T>(body: (verdicts: LoginVerdict[]) => Promise<T>): Promise<T> {
    const login = server.services.limits.login;
    const attempt = login.attempt;
    const verdicts: LoginVerdict[] = [];
    login.attempt = async (email, address) => {
      const verdict = await attempt.call(login, email, address);
      verdicts.push(verdict);
      return verdict;
    };
    try {
      return await body(verdicts);
    } finally {
      login.attempt = attempt;
    }
  }

  describe("POST creates a token", () => {
    it("answers 201 with the secret once, for a user created with createUser (email case-insensitive)", async () => {
      const answer = await tokensApi(server.url, "POST", {
        auth: { email: "real.user@EXAMPLE.test", password: PASSWORD },
        body: { name: "laptop claude", scopes: ["read:wallets", "meta:whoami", "read:wallets"] },
      });
      expect(answer.status).to.equal(201);
      expect(answer.headers.get("cache-control")).to.equal("no-store");
      const b = answer.body;
      expect(Object.keys(b).sort()).to.deep.equal(["created_at", "expires_at", "name", "scopes", "token", "token_id", "user_id"]);
      expect(b.token).to.match(/^fmcp_[0-9A-Za-z]{38}$/);
      expect(b.token_id).to.match(/^tok_/);
      expect(b.user_id).to.equal(real.id);
      expect(b.name).to.equal("laptop claude");
      expect(b.scopes).to.deep.equal(["meta:whoami", "read:wallets"]);
      expect(Date.parse(b.expires_at) - Date.parse(b.created_at)).to.equal(90 * 86_400_000);

      const me = await whoami(b.token);
      expect(me.status).to.equal(200);
      expect(me.body.result).to.include({
        user_id: real.id,
        token_id: b.token_id,
        token_name: "laptop claude",
        timezone: "Europe/Berlin",
        default_currency: "EUR",
      });

      // Only the hash is stored: no column of the row holds the secret.
      const row = await server.db("mcp_tokens").where({ id: b.token_id }).first();
      expect(row.token_hash).to.equal(createHash("sha256").update(b.token).digest("hex"));
      expect(JSON.stringify(row, (_k, v) => (typeof v === "bigint" ? String(v) : v))).not.to.include(b.token.slice(5));
    });

    it("honours expires_in_days", async () => {
      const user = await insertLoginUser(server.db, PASSWORD);
      const answer = await tokensApi(server.url, "POST", { auth: user, body: { name: "short", scopes: ["meta:whoami"], expires_in_days: 1 } });
      expect(answer.status).to.equal(201);
      expect(Date.parse(answer.body.expires_at) - Date.parse(answer.body.created_at)).to.equal(86_400_000);
    });
  });

  describe("wrong credentials", () => {
    it("answers 401 with a Basic challenge for a wrong password", async () => {
      const answer = await tokensApi(server.url, "POST", {
        auth: { email: real.email, password: "not the password" },
        body: { name: "x", scopes: ["meta:whoami"] },
      });
      expect(answer.status).to.equal(401);
      expect(answer.headers.get("www-authenticate")).to.match(/^Basic realm="finance-mcp"/);
      expect(answer.body.error.data.code).to.equal("unauthorized");
      expect(JSON.stringify(answer.body)).not.to.include("not the password");
      expect(await server.db("mcp_tokens").where({ user_id: real.id, name: "x" }).first()).to.equal(undefined);
    });

    it("answers an unknown email exactly like a wrong password (checked against a dummy hash)", async () => {
      const unknown = await tokensApi(server.url, "POST", {
        auth: { email: "nobody@example.test", password: "whatever it is" },
        body: { name: "x", scopes: ["meta:whoami"] },
      });
      const wrong = await tokensApi(server.url, "POST", {
        auth: { email: real.email, password: "whatever it is" },
        body: { name: "x", scopes: ["meta:whoami"] },
      });
      expect(unknown.status).to.equal(401);
      expect(unknown.body).to.deep.equal(wrong.body);
      expect(unknown.headers.get("www-authenticate")).to.equal(wrong.headers.get("www-authenticate"));
      // The unknown email is checked against a hash of the same scrypt cost as a real one (N, r, p).
      const stored = (await server.db("users").where({ id: real.id }).first()).password_hash as string;
      expect((await dummyPasswordHash()).split("$").slice(0, 4)).to.deep.equal(stored.split("$").slice(0, 4));
    });

    for (const [label, header] of [
      ["no Authorization header", undefined],
      ["a Bearer token instead of Basic", "Bearer fmcp_abc"],
      ["Basic without a colon", `Basic ${Buffer.from("just-an-email").toString("base64")}`],
      ["Basic that is not base64", "Basic ***"],
    ] as const) {
      it(`answers 401 for ${label}`, async () => {
        const answer = await tokensApi(server.url, "GET", header ? { auth: header } : {});
        expect(answer.status).to.equal(401);
        expect(answer.headers.get("www-authenticate")).to.match(/^Basic realm="finance-mcp"/);
        expect(answer.body.error.data.code).to.equal("unauthorized");
      });
    }
  });

  describe("bad bodies", () => {
    let user: { email: string; password: string };
    before(async () => (user = await insertLoginUser(server.db, PASSWORD)));

    const cases: Array<[string, unknown, string, number?]> = [
      ["no name", { scopes: ["meta:whoami"] }, "name"],
      ["an empty name", { name: "  ", scopes: ["meta:whoami"] }, "name"],
      ["a name of 101 characters", { name: "n".repeat(101), scopes: ["meta:whoami"] }, "name"],
      ["no scopes", { name: "x" }, "scopes"],
      ["empty scopes", { name: "x", scopes: [] }, "scopes"],
      ["scopes as a string", { name: "x", scopes: "read:wallets" }, "scopes"],
      ["expires_in_days 0", { name: "x", scopes: ["meta:whoami"], expires_in_days: 0 }, "expires_in_days"],
      ["expires_in_days 366", { name: "x", scopes: ["meta:whoami"], expires_in_days: 366 }, "expires_in_days"],
      ["expires_in_days as a string", { name: "x", scopes: ["meta:whoami"], expires_in_days: "7" }, "expires_in_days"],
      ["an unknown field (mass assignment)", { name: "x", scopes: ["meta:whoami"], user_id: "usr_someone_else" }, "user_id"],
      ["an array body", "[1]", "(body)"],
      ["invalid JSON", "{name:", "(body)"],
    ];
    for (const [label, body, field] of cases) {
      it(`answers 400 naming ${field} for ${label}`, async () => {
        const answer = await tokensApi(server.url, "POST", { auth: user, body });
        expect(answer.status).to.equal(400);
        expect(answer.body.error.code).to.equal(-32602);
        expect(answer.body.error.data).to.include({ code: "invalid_params", field });
        expect(answer.body.error.message).to.be.a("string").and.not.equal("");
      });
    }

    it("answers 415 when the body is not sent as application/json", async () => {
      const answer = await tokensApi(server.url, "POST", {
        auth: user,
        body: JSON.stringify({ name: "x", scopes: ["meta:whoami"] }),
        headers: { "content-type": "text/plain" },
      });
      expect(answer.status).to.equal(415);
      expect(answer.body.error.data.code).to.equal("invalid_params");
    });

    it("answers an unknown scope with 400 listing the valid scopes", async () => {
      const answer = await tokensApi(server.url, "POST", { auth: user, body: { name: "x", scopes: ["read:wallets", "admin:everything", "read:wallet"] } });
      expect(answer.status).to.equal(400);
      expect(answer.body.error.data.field).to.equal("scopes");
      expect(answer.body.error.data.valid_scopes).to.deep.equal([...registryScopes]);
      expect(answer.body.error.data.unknown_scopes).to.deep.equal(["admin:everything", "read:wallet"]);
      for (const s of registryScopes) expect(answer.body.error.message).to.include(s);
    });
  });

  describe("GET and DELETE", () => {
    it("lists the user's tokens without secrets or hashes", async () => {
      const user = await insertLoginUser(server.db, PASSWORD);
      const created = await tokensApi(server.url, "POST", { auth: user, body: { name: "one", scopes: ["meta:whoami"] } });
      const other = await insertLoginUser(server.db, PASSWORD);
      await tokensApi(server.url, "POST", { auth: other, body: { name: "not mine", scopes: ["meta:whoami"] } });

      const answer = await tokensApi(server.url, "GET", { auth: user });
      expect(answer.status).to.equal(200);
      expect(answer.headers.get("cache-control")).to.equal("no-store");
      expect(answer.body.tokens).to.have.length(1);
      const [t] = answer.body.tokens;
      expect(Object.keys(t).sort()).to.deep.equal(["created_at", "expires_at", "last_used_at", "name", "revoked_at", "scopes", "status", "token_id"]);
      expect(t).to.include({ token_id: created.body.token_id, name: "one", status: "active", revoked_at: null });
      const hash = createHash("sha256").update(created.body.token).digest("hex");
      const text = JSON.stringify(answer.body);
      expect(text).not.to.include(created.body.token);
      expect(text).not.to.include(hash);
    });

    it("revokes a token, effective on the very next request", async () => {
      const user = await insertLoginUser(server.db, PASSWORD);
      const created = await tokensApi(server.url, "POST", { auth: user, body: { name: "to revoke", scopes: ["meta:whoami"] } });
      expect((await whoami(created.body.token)).status).to.equal(200);

      const revoked = await tokensApi(server.url, "DELETE", { auth: user, path: `/${created.body.token_id}` });
      expect(revoked.status).to.equal(200);
      expect(revoked.body).to.include({ token_id: created.body.token_id, status: "revoked" });
      expect(revoked.body.revoked_at).to.be.a("string");

      const after = await whoami(created.body.token);
      expect(after.status).to.equal(401);
      expect(after.headers.get("www-authenticate")).to.equal(
        `Bearer realm="finance-mcp", error="invalid_token", resource_metadata="${server.url}/.well-known/oauth-protected-resource/api/v1/mcp"`,
      );
      expect(after.body.error.data.code).to.equal("unauthorized");

      // Revoking again is harmless; the list shows it revoked.
      expect((await tokensApi(server.url, "DELETE", { auth: user, path: `/${created.body.token_id}` })).status).to.equal(200);
      const list = await tokensApi(server.url, "GET", { auth: user });
      expect(list.body.tokens[0].status).to.equal("revoked");
    });

    it("answers 404 for another user's token id, exactly as for an unknown id, and leaves the token working", async () => {
      const owner = await insertLoginUser(server.db, PASSWORD);
      const intruder = await insertLoginUser(server.db, PASSWORD);
      const created = await tokensApi(server.url, "POST", { auth: owner, body: { name: "mine", scopes: ["meta:whoami"] } });

      const theirs = await tokensApi(server.url, "DELETE", { auth: intruder, path: `/${created.body.token_id}` });
      const unknown = await tokensApi(server.url, "DELETE", { auth: intruder, path: "/tok_doesnotexist0000000000" });
      expect(theirs.status).to.equal(404);
      expect(theirs.body.error.data).to.include({ code: "not_found", field: "token_id" });
      expect(unknown.status).to.equal(404);
      expect(theirs.body.error.message.replace(created.body.token_id, "ID")).to.equal(unknown.body.error.message.replace("tok_doesnotexist0000000000", "ID"));
      expect((await whoami(created.body.token)).status).to.equal(200);
      const row = await server.db("mcp_tokens").where({ id: created.body.token_id }).first();
      expect(row.revoked_at).to.equal(null);
    });
  });

  describe("the creation limit: 10 per hour per user", () => {
    it("creates 10, then answers the 11th with 429, Retry-After and the RateLimit headers", async () => {
      const user = await insertLoginUser(server.db, PASSWORD);
      for (let i = 1; i <= 10; i++) {
        const answer = await tokensApi(server.url, "POST", { auth: user, body: { name: `t${i}`, scopes: ["meta:whoami"] } });
        expect(answer.status, `creation ${i}`).to.equal(201);
        expect(answer.headers.get("ratelimit-policy")).to.equal('"tokens";q=10;w=3600');
        expect(answer.headers.get("ratelimit")).to.match(new RegExp(`^"tokens";r=${10 - i};t=\\d+$`));
      }
      const eleventh = await tokensApi(server.url, "POST", { auth: user, body: { name: "t11", scopes: ["meta:whoami"] } });
      expect(eleventh.status).to.equal(429);
      const retryAfter = Number(eleventh.headers.get("retry-after"));
      expect(retryAfter).to.be.within(1, 3600);
      expect(eleventh.headers.get("ratelimit-policy")).to.equal('"tokens";q=10;w=3600');
      expect(eleventh.headers.get("ratelimit")).to.match(/^"tokens";r=0;t=\d+$/);
      expect(eleventh.body.error.code).to.equal(-32008);
      expect(eleventh.body.error.data).to.include({ code: "rate_limited", retryable: true, retry_after_seconds: retryAfter });
      const n = await server.db("mcp_tokens").where({ user_id: user.id }).count<{ n: unknown }[]>({ n: "*" });
      expect(Number(n[0]!.n)).to.equal(10);
    });

    it("counts over a rolling hour, not the limiter's fixed window", async () => {
      const user = await insertLoginUser(server.db, PASSWORD);
      const fiftyMinutesAgo = new Date(Date.now() - 50 * 60_000);
      for (let i = 0; i < 10; i++)
        await createToken(server.db, user.id, { name: `old${i}`, scopes: ["meta:whoami"], expiresInDays: 1 }, server.config.tokenPepper, fiftyMinutesAgo);
      const refused = await tokensApi(server.url, "POST", { auth: user, body: { name: "new", scopes: ["meta:whoami"] } });
      expect(refused.status).to.equal(429);
      expect(Number(refused.headers.get("retry-after"))).to.be.within(590, 600);
      expect(refused.body.error.data.retry_after_seconds).to.equal(Number(refused.headers.get("retry-after")));

      const other = await insertLoginUser(server.db, PASSWORD);
      const longAgo = new Date(Date.now() - 61 * 60_000);
      for (let i = 0; i < 10; i++)
        await createToken(server.db, other.id, { name: `old${i}`, scopes: ["meta:whoami"], expiresInDays: 1 }, server.config.tokenPepper, longAgo);
      expect((await tokensApi(server.url, "POST", { auth: other, body: { name: "new", scopes: ["meta:whoami"] } })).status).to.equal(201);
    });

    it("lets exactly 10 of 12 parallel creations through (the count runs in the creating transaction)", async () => {
      // Called directly: parallel logins of one email would be slowed by the login throttle, which counts
      // attempts in flight.
      const user = await insertLoginUser(server.db, PASSWORD);
      const results = await Promise.allSettled(
        Array.from({ length: 12 }, (_, i) =>
          createTokenWithinQuota(server.db, user.id, { name: `p${i}`, scopes: ["meta:whoami"], expiresInDays: 1 }, server.config.tokenPepper, 10),
        ),
      );
      expect(results.filter((r) => r.status === "fulfilled")).to.have.length(10);
      const refused = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
      expect(refused).to.have.length(2);
      for (const r of refused) expect(r.reason).to.be.instanceOf(TokenQuotaError);
    });
  });

  describe("the login throttle", () => {
    it("slows failed logins per email and address from the 4th attempt, then refuses that pair for 15 minutes", async () => {
      const user = await insertLoginUser(server.db, PASSWORD);
      // Three earlier failures for this email from this test's address, counted by another limiter
      // instance over the same table (as another server process would).
      const elsewhere = createRateLimits(server.db, server.config);
      try {
        for (let i = 0; i < 3; i++) expect(await elsewhere.login.attempt(user.email, "127.0.0.1")).to.deep.equal({ refused: false, delayMs: 0 });

        await withVerdicts(async (verdicts) => {
          const slowed = await tokensApi(server.url, "GET", { auth: { email: user.email, password: "wrong password" } });
          expect(slowed.status).to.equal(401);
          expect(verdicts).to.deep.equal([{ refused: false, delayMs: 1000 }]);

          for (let i = 0; i < 6; i++) await elsewhere.login.attempt(user.email, "127.0.0.1"); // 10 attempts in all
          // Refused from this address even with the right password, without checking it.
          const refused = await tokensApi(server.url, "GET", { auth: user });
          expect(refused.status).to.equal(429);
          expect(verdicts[1]).to.include({ refused: true });
          expect(Number(refused.headers.get("retry-after"))).to.be.within(890, 900);
          expect(refused.body.error.data).to.include({ code: "rate_limited", retry_after_seconds: Number(refused.headers.get("retry-after")) });

          // Other emails from the same address are not affected.
          const other = await insertLoginUser(server.db, PASSWORD);
          const fine = await tokensApi(server.url, "GET", { auth: other });
          expect(fine.status).to.equal(200);
          expect(verdicts[2]).to.deep.equal({ refused: false, delayMs: 0 });
        });
      } finally {
        await elsewhere.close();
      }
    });

    it("never refuses the right password because someone else guessed wrong from another address", async () => {
      const user = await insertLoginUser(server.db, PASSWORD);
      const attacker = createRateLimits(server.db, server.config);
      try {
        // Enough guesses from another address to lock that address's pair, and more from others.
        for (let i = 0; i < 11; i++) await attacker.login.attempt(user.email, "192.0.2.66");
        expect((await attacker.login.attempt(user.email, "192.0.2.66")).refused).to.equal(true);
        await withVerdicts(async (verdicts) => {
          // The owner, from their own address: let in, only slowed (the email's 13th attempt in the
          // hour: 3 beyond the 10 it allows unslowed, a second each).
          const owner = await tokensApi(server.url, "GET", { auth: user });
          expect(owner.status).to.equal(200);
          expect(verdicts).to.deep.equal([{ refused: false, delayMs: 3000 }]);
          // Their success resets the email's count: the next login is not slowed.
          expect((await tokensApi(server.url, "GET", { auth: user })).status).to.equal(200);
          expect(verdicts[1]).to.deep.equal({ refused: false, delayMs: 0 });
        });
      } finally {
        await attacker.close();
      }
    });

    it("restarts an email's count after a successful login", async () => {
      const user = await insertLoginUser(server.db, PASSWORD);
      const elsewhere = createRateLimits(server.db, server.config);
      try {
        for (let i = 0; i < 3; i++) await elsewhere.login.attempt(user.email, "127.0.0.1");
        await withVerdicts(async (verdicts) => {
          const slowedButRight = await tokensApi(server.url, "GET", { auth: user });
          expect(slowedButRight.status).to.equal(200);
          const next = await tokensApi(server.url, "GET", { auth: { email: user.email, password: "wrong password" } });
          expect(next.status).to.equal(401);
          expect(verdicts).to.deep.equal([
            { refused: false, delayMs: 1000 },
            { refused: false, delayMs: 0 },
          ]);
        });
      } finally {
        await elsewhere.close();
      }
    });
  });

  describe("the Host/Origin guard", () => {
    it("refuses a foreign Origin before looking at the credentials", async () => {
      await withVerdicts(async (verdicts) => {
        const answer = await tokensApi(server.url, "POST", {
          auth: basic(real.email, PASSWORD),
          body: { name: "x", scopes: ["meta:whoami"] },
          headers: { origin: "https://evil.example" },
        });
        expect(answer.status).to.equal(403);
        expect(answer.body.error.data.code).to.equal("forbidden_origin");
        expect(verdicts, "the credentials were never put to the login throttle").to.deep.equal([]);
      });
    });
  });
});
