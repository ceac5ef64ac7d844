/**
 * Web sessions cannot be forged and end when the server says (docs/security.md, "Web sessions"): a cookie
 * signed with the key an empty TOKEN_PEPPER gave, or naming an expiry of its own, is refused; the session
 * key is generated once and shared through the database (race-safe), SESSION_SECRET overrides it and
 * changing it signs everyone out; sign-out kills a copied cookie; idle and absolute limits are the
 * server's; "sign out everywhere" and a password change end every session of the person.
 */
import { createHmac, randomBytes } from "node:crypto";
import { expect } from "chai";
import { closeServices, createServices } from "../../src/app.js";
import { createUser } from "../../src/auth/users.js";
import { readSession, SESSION_IDLE_SECONDS, SESSION_MAX_SECONDS } from "../../src/auth/web-sessions.js";
import { loadConfig } from "../../src/config.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { WebClient } from "../helpers/web-client.js";

const PASSWORD = "correct horse battery staple";

describe(`web sessions (${engine})`, function () {
  // Every sign-in verifies a scrypt hash at OWASP's cost (128 MiB): slow on a loaded machine.
  this.timeout(240_000);
  let server: TestServer;
  let clock = Date.parse("2026-11-25T10:00:00Z");
  let email: string;
  let userId: string;

  before(async () => {
    server = await startTestServer({}, { now: () => new Date(clock) });
    email = `sessions-${randomBytes(4).toString("hex")}@example.test`;
    userId = (await createUser(server.db, { email, password: PASSWORD })).id;
  });
  after(async () => server?.close());

  async function signedInClient(): Promise<WebClient> {
    const client = new WebClient(server.url);
    const answer = await client.signIn(email, PASSWORD);
    expect(answer.status, answer.text).to.equal(303);
    expect(await client.signedIn()).to.equal(true);
    return client;
  }

  /** A client that only carries the given session cookie (a copy, a forgery). */
  function withCookie(value: string): WebClient {
    const client = new WebClient(server.url);
    client.jar.set("fmcp_session", encodeURIComponent(value));
    return client;
  }

  describe("forged cookies", () => {
    it("refuses a cookie signed with the key an empty TOKEN_PEPPER gave, whatever expiry it names (10 years)", async () => {
      // What the old code signed with: HMAC keyed by HMAC("", "finance-mcp web session").
      const oldKey = createHmac("sha256", "").update("finance-mcp web session").digest();
      const expires = Math.floor(clock / 1000) + 10 * 365 * 24 * 3600;
      const value = `${userId}.${expires}`;
      const forged = `${value}.${createHmac("sha256", oldKey).update(value).digest("base64url")}`;
      expect(await withCookie(forged).signedIn()).to.equal(false);
      // Nor a cookie of today's shape signed with that key.
      const id = randomBytes(32).toString("base64url");
      expect(await withCookie(`${id}.${createHmac("sha256", oldKey).update(`session\n${id}`).digest("base64url")}`).signedIn()).to.equal(false);
    });

    it("refuses a cookie whose id has no session row, even signed with the server's own key", async () => {
      const id = randomBytes(32).toString("base64url");
      const signed = `${id}.${createHmac("sha256", server.services.webKey).update(`session\n${id}`).digest("base64url")}`;
      expect(await withCookie(signed).signedIn()).to.equal(false);
    });

    it("refuses a real session's cookie with its signature changed", async () => {
      const client = await signedInClient();
      const value = decodeURIComponent(client.jar.get("fmcp_session")!);
      const tampered = `${value.slice(0, -1)}${value.endsWith("A") ? "B" : "A"}`;
      expect(await withCookie(tampered).signedIn()).to.equal(false);
      expect(await withCookie(value).signedIn()).to.equal(true);
    });

    it("ignores a malformed cookie header instead of failing", async () => {
      const client = new WebClient(server.url);
      client.jar.set("fmcp_session", "%E0%A4%A");
      const page = await client.get("/account");
      expect(page.status).to.equal(200);
      expect(page.text).to.contain("Sign in");
    });
  });

  describe("the server decides when a session ends", () => {
    it("stores only the id's hash, with the end the server chose", async () => {
      const client = await signedInClient();
      const id = decodeURIComponent(client.jar.get("fmcp_session")!).split(".")[0]!;
      const rows = await server.db("web_sessions").where({ user_id: userId });
      expect(rows.some((r) => r.id_hash === id)).to.equal(false);
      expect(rows.map((r) => r.expires_at)).to.include(new Date(clock + SESSION_MAX_SECONDS * 1000).toISOString());
    });

    it("ends a session idle for longer than the idle timeout, and keeps one in use", async () => {
      const start = clock;
      try {
        const active = await signedInClient();
        const idle = await signedInClient();
        clock = start + (SESSION_IDLE_SECONDS - 120) * 1000;
        expect(await active.signedIn()).to.equal(true);
        clock = start + (SESSION_IDLE_SECONDS + 60) * 1000;
        expect(await idle.signedIn()).to.equal(false);
        expect(await active.signedIn()).to.equal(true);
      } finally {
        clock = start;
      }
    });

    it("ends every session at its absolute end, however much it was used", async () => {
      const start = clock;
      try {
        const client = await signedInClient();
        for (let t = 0; t < SESSION_MAX_SECONDS - 60; t += SESSION_IDLE_SECONDS - 120) {
          clock = start + t * 1000;
          expect(await client.signedIn(), `at ${t} s`).to.equal(true);
        }
        clock = start + SESSION_MAX_SECONDS * 1000;
        expect(await client.signedIn()).to.equal(false);
      } finally {
        clock = start;
      }
    });
  });

  describe("signing out", () => {
    it("sign-out kills the session: a copy of the cookie no longer signs in", async () => {
      const client = await signedInClient();
      const copy = withCookie(decodeURIComponent(client.jar.get("fmcp_session")!));
      expect(await copy.signedIn()).to.equal(true);
      const out = await client.post("/account/sign-out", {});
      expect(out.status).to.equal(303);
      expect(await client.signedIn()).to.equal(false);
      expect(await copy.signedIn()).to.equal(false);
    });

    it("sign out everywhere ends every session of the person, and only theirs", async () => {
      const laptop = await signedInClient();
      const phone = await signedInClient();
      const otherEmail = `other-${randomBytes(4).toString("hex")}@example.test`;
      await createUser(server.db, { email: otherEmail, password: PASSWORD });
      const someoneElse = new WebClient(server.url);
      expect((await someoneElse.signIn(otherEmail, PASSWORD)).status).to.equal(303);

      await laptop.get("/account");
      const out = await laptop.post("/account/sign-out-everywhere", {});
      expect(out.status).to.equal(303);
      expect(await laptop.signedIn()).to.equal(false);
      expect(await phone.signedIn()).to.equal(false);
      expect(await someoneElse.signedIn()).to.equal(true);
      expect(await server.db("web_sessions").where({ user_id: userId }).select("id_hash")).to.deep.equal([]);
    });

    it("a password change ends every other session; the old password stops working, the new one works", async () => {
      const changeEmail = `change-${randomBytes(4).toString("hex")}@example.test`;
      await createUser(server.db, { email: changeEmail, password: PASSWORD });
      const here = new WebClient(server.url);
      const there = new WebClient(server.url);
      expect((await here.signIn(changeEmail, PASSWORD)).status).to.equal(303);
      expect((await there.signIn(changeEmail, PASSWORD)).status).to.equal(303);
      await here.get("/account");

      const wrong = await here.post("/account/password", { current_password: "not the password", new_password: "a brand new passphrase" });
      expect(wrong.status).to.equal(401);
      expect(await there.signedIn()).to.equal(true);
      const short = await here.post("/account/password", { current_password: PASSWORD, new_password: "short" });
      expect(short.status).to.equal(400);
      expect(short.text).to.contain("at least 12 characters");

      const changed = await here.post("/account/password", { current_password: PASSWORD, new_password: "a brand new passphrase" });
      expect(changed.status, changed.text).to.equal(303);
      expect(await there.signedIn()).to.equal(false);
      expect(await here.signedIn()).to.equal(true);
      expect((await new WebClient(server.url).signIn(changeEmail, PASSWORD)).status).to.equal(401);
      expect((await new WebClient(server.url).signIn(changeEmail, "a brand new passphrase")).status).to.equal(303);
    });
  });

  describe("the session key", () => {
    it("is generated once, stored in the database and shared by every process over it, even when they start together", async () => {
      const rows = await server.db("server_secrets").where({ name: "web" });
      expect(rows).to.have.length(1);
      expect(Buffer.from(rows[0].value, "base64url").equals(server.services.webKey)).to.equal(true);
      // Fresh database key: remove it, then start four processes' services at once.
      await server.db("server_secrets").where({ name: "web" }).del();
      const config = loadConfig({ DATABASE_URL: server.database.url, LOG_LEVEL: "silent" });
      const started = await Promise.all([1, 2, 3, 4].map(() => createServices(config, server.db)));
      try {
        const keys = new Set(started.map((s) => s.webKey.toString("hex")));
        expect(keys.size).to.equal(1);
        expect(await server.db("server_secrets").where({ name: "web" })).to.have.length(1);
        expect(started[0]!.webKey.equals(server.services.webKey)).to.equal(false);
      } finally {
        for (const s of started) await closeServices(s);
      }
    });

    it("SESSION_SECRET overrides it, and changing SESSION_SECRET signs everyone out", async () => {
      const first = await startTestServer({ SESSION_SECRET: "a".repeat(32) + "-first" });
      try {
        const owner = `rotate-${randomBytes(4).toString("hex")}@example.test`;
        await createUser(first.db, { email: owner, password: PASSWORD });
        const client = new WebClient(first.url);
        expect((await client.signIn(owner, PASSWORD)).status).to.equal(303);
        expect(await client.signedIn()).to.equal(true);
        const stored = await first.db("server_secrets").where({ name: "web" });
        expect(stored).to.have.length(0);
        // The same database, served with another SESSION_SECRET: the row is there, the signature is not.
        const rotated = await createServices(loadConfig({ DATABASE_URL: first.database.url, LOG_LEVEL: "silent", SESSION_SECRET: "b".repeat(32) }), first.db);
        try {
          expect(rotated.webKey.equals(first.services.webKey)).to.equal(false);
          const cookie = decodeURIComponent(client.jar.get("fmcp_session")!);
          expect(await readSession(first.db, first.services.webKey, cookie, new Date())).to.not.equal(undefined);
          expect(await readSession(first.db, rotated.webKey, cookie, new Date())).to.equal(undefined);
        } finally {
          await closeServices(rotated);
        }
      } finally {
        await first.close();
      }
    });
  });
});
