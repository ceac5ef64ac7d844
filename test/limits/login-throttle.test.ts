/**
 * The login throttle of the tokens endpoint on its real store (rate_limits on SQLite or Postgres), with
 * small numbers: slowed then refused per email and address together, slowed (never refused) per email and
 * per client address, counted atomically before the password check, reset per email by a success,
 * and keyed without storing emails. Someone else's wrong guesses never lock the owner out.
 */
import { expect } from "chai";
import type { Knex } from "knex";
import { loadConfig } from "../../src/config.js";
import { createDb } from "../../src/db/knex.js";
import { createRateLimits } from "../../src/limits/limiter.js";
import { addressKey, emailKey, LOGIN_POLICIES, pairKey, type LoginPolicies } from "../../src/limits/login.js";
import type { RateLimits } from "../../src/limits/types.js";
import { migratedTestDatabase, engine, type TestDatabase } from "../helpers/database.js";

const small: LoginPolicies = {
  email: { slowAfter: 2, refuseAfter: 4, windowSeconds: 3600, blockSeconds: 900, delayStepMs: 100, maxDelayMs: 150 },
  account: { slowAfter: 6, refuseAfter: Infinity, windowSeconds: 3600, blockSeconds: 0, delayStepMs: 100, maxDelayMs: 300 },
  address: { slowAfter: 5, refuseAfter: Infinity, windowSeconds: 3600, blockSeconds: 0, delayStepMs: 1000, maxDelayMs: 5000 },
};

describe(`login throttle (${engine})`, () => {
  let database: TestDatabase;
  let db: Knex;
  let limits: RateLimits;
  before(async () => {
    database = await migratedTestDatabase();
    db = createDb(database.url);
    limits = createRateLimits(db, loadConfig({ DATABASE_URL: database.url }), { loginPolicies: small });
  });
  after(async () => {
    await limits.close();
    await db.destroy();
    await database.drop();
  });

  it("documents the production numbers", () => {
    expect(LOGIN_POLICIES.email).to.include({ slowAfter: 3, refuseAfter: 10, blockSeconds: 900 });
    expect(LOGIN_POLICIES.account).to.include({ slowAfter: 10, refuseAfter: Infinity, maxDelayMs: 5000 });
    expect(LOGIN_POLICIES.address).to.include({ slowAfter: 20, refuseAfter: Infinity, maxDelayMs: 5000 });
  });

  it("per email and address: free, then slowed with a growing (capped) delay, then refused for the block duration", async () => {
    const verdicts = [];
    for (let i = 0; i < 5; i++) verdicts.push(await limits.login.attempt("Someone@Example.test", "198.51.100.7"));
    expect(verdicts.slice(0, 4)).to.deep.equal([
      { refused: false, delayMs: 0 },
      { refused: false, delayMs: 0 },
      { refused: false, delayMs: 100 },
      { refused: false, delayMs: 150 },
    ]);
    expect(verdicts[4]).to.deep.equal({ refused: true, retryAfterSeconds: 900 });
    // The email is normalised: another spelling is the same account.
    expect((await limits.login.attempt("someone@example.TEST ", "198.51.100.7")).refused).to.equal(true);
  });

  it("someone else's wrong guesses never refuse the owner: from another address the login goes through, at worst slowed", async () => {
    // An attacker guesses from one address until refused, then from many more.
    for (let i = 0; i < 6; i++) await limits.login.attempt("victim@example.test", "203.0.113.66");
    expect((await limits.login.attempt("victim@example.test", "203.0.113.66")).refused).to.equal(true);
    for (let i = 0; i < 4; i++) await limits.login.attempt("victim@example.test", `198.18.1.${i}`);
    // The owner, from their own address: not refused; slowed by the email's count, within its cap.
    const owner = await limits.login.attempt("victim@example.test", "192.0.2.200");
    expect(owner.refused).to.equal(false);
    expect(owner).to.have.property("delayMs").that.is.within(100, small.account.maxDelayMs);
    // The owner's success resets the email's delay; the attacker's pair stays refused.
    await limits.login.succeeded("victim@example.test", "192.0.2.200");
    expect(await limits.login.attempt("victim@example.test", "192.0.2.200")).to.deep.equal({ refused: false, delayMs: 0 });
    expect((await limits.login.attempt("victim@example.test", "203.0.113.66")).refused).to.equal(true);
  });

  it("a known device (a valid device cookie) is counted on its own: everyone's failures from one shared address never refuse it, its own do", async () => {
    // Behind a proxy with TRUST_PROXY unset every client has the proxy's address.
    const proxy = "10.9.8.7";
    for (let i = 0; i < 6; i++) await limits.login.attempt("owner@example.test", proxy);
    expect((await limits.login.attempt("owner@example.test", proxy)).refused, "a browser without the cookie").to.equal(true);
    const owner = await limits.login.attempt("owner@example.test", proxy, "ownerDeviceNonce000000");
    expect(owner.refused, "the owner's browser").to.equal(false);
    await limits.login.succeeded("owner@example.test", proxy, "ownerDeviceNonce000000");
    // A stolen device cookie guessed with is locked on its own, not the owner's other browsers.
    for (let i = 0; i < 5; i++) await limits.login.attempt("owner@example.test", proxy, "stolenDeviceNonce00000");
    expect((await limits.login.attempt("owner@example.test", proxy, "stolenDeviceNonce00000")).refused).to.equal(true);
    expect((await limits.login.attempt("owner@example.test", proxy, "ownerDeviceNonce000000")).refused).to.equal(false);
  });

  it("a success restarts the email's count", async () => {
    for (let i = 0; i < 3; i++) await limits.login.attempt("reset@example.test", "203.0.113.1");
    await limits.login.succeeded("reset@example.test", "203.0.113.1");
    expect(await limits.login.attempt("reset@example.test", "203.0.113.1")).to.deep.equal({ refused: false, delayMs: 0 });
  });

  it("per address: many emails from one address are slowed, never refused", async () => {
    const verdicts = [];
    for (let i = 0; i < 9; i++) verdicts.push(await limits.login.attempt(`spray${i}@example.test`, "192.0.2.50"));
    expect(verdicts.slice(0, 5).every((v) => !v.refused && v.delayMs === 0)).to.equal(true);
    expect(verdicts.slice(5, 9)).to.deep.equal([
      { refused: false, delayMs: 1000 },
      { refused: false, delayMs: 2000 },
      { refused: false, delayMs: 3000 },
      { refused: false, delayMs: 4000 },
    ]);
    // Another address is not affected.
    expect(await limits.login.attempt("spray0@example.test", "192.0.2.51")).to.deep.equal({ refused: false, delayMs: 0 });
  });

  it("100 failed logins with made-up emails from a shared address refuse no one there: the owner gets in, at worst slowed", async () => {
    // Many people behind one address (a NAT, or a proxy whose TRUST_PROXY is unset); someone sprays
    // made-up emails. The production numbers (the verdicts carry the delays; nothing sleeps here).
    const production = createRateLimits(db, loadConfig({ DATABASE_URL: database.url }));
    for (let i = 0; i < 100; i++) {
      const v = await production.login.attempt(`made-up-${i}@example.test`, "198.51.100.200");
      expect(v.refused, `attempt ${i + 1}`).to.equal(false);
    }
    const owner = await production.login.attempt("owner@example.test", "198.51.100.200");
    expect(owner).to.deep.equal({ refused: false, delayMs: LOGIN_POLICIES.address.maxDelayMs });
  });

  it("counts parallel attempts atomically: no more than refuseAfter get through", async () => {
    const verdicts = await Promise.all(Array.from({ length: 12 }, () => limits.login.attempt("burst@example.test", "198.18.0.1")));
    expect(verdicts.filter((v) => !v.refused)).to.have.length(small.email.refuseAfter);
  });

  it("stores neither emails nor raw IPv6 host addresses in its keys", async () => {
    await limits.login.attempt("private.person@example.test", "2001:db8:1:2:3:4:5:6");
    const keys = (await db("rate_limits").select("key")).map((r) => String(r.key));
    expect(keys.some((k) => k.includes("private.person"))).to.equal(false);
    expect(keys).to.include(`login_email:${emailKey("private.person@example.test")}`);
    expect(keys).to.include(`login_pair:${pairKey("private.person@example.test", "2001:db8:1:2:3:4:5:6")}`);
    expect(keys).to.include("login_address:2001:db8:1:2::/64");
  });

  it("groups IPv6 addresses by /64 and unwraps IPv4-mapped ones", () => {
    expect(addressKey("2001:db8::1")).to.equal("2001:db8:0:0::/64");
    expect(addressKey("2001:db8:0:0:ffff::1")).to.equal("2001:db8:0:0::/64");
    expect(addressKey("::1")).to.equal("0:0:0:0::/64");
    expect(addressKey("::ffff:192.0.2.1")).to.equal("192.0.2.1");
    expect(addressKey("192.0.2.1")).to.equal("192.0.2.1");
  });
});
