/**
 * The owner is never locked out (issue 41), even with TRUST_PROXY unset, where everyone has the proxy's
 * address: a browser that signed in to the account before holds a signed device cookie
 * (src/auth/device-cookie.ts), and the failures of everyone else, which refuse every other browser with
 * that email and address, never refuse it. A forged cookie, or one issued for another account, counts
 * for nothing.
 */
import { expect } from "chai";
import { randomBytes } from "node:crypto";
import { DEVICE_COOKIE } from "../../src/auth/device-cookie.js";
import { createUser } from "../../src/auth/users.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { WebClient } from "../helpers/web-client.js";

const PASSWORD = "a long enough password";

describe(`device cookies: the owner's browser is never locked out (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(async () => server?.close());

  it("lets the browser that signed in before in with the right password while every other browser is refused", async () => {
    const email = `owner-${randomBytes(4).toString("hex")}@example.test`;
    const other = `other-${randomBytes(4).toString("hex")}@example.test`;
    await createUser(server.db, { email, password: PASSWORD });
    await createUser(server.db, { email: other, password: PASSWORD });

    const owner = new WebClient(server.url);
    expect((await owner.signIn(email, PASSWORD)).status).to.equal(303);
    expect(owner.jar.get(DEVICE_COOKIE), "the device cookie").to.be.a("string");
    await owner.post("/account/sign-out", {});
    expect(await owner.signedIn()).to.equal(false);

    // A browser that signed in to another account only: its cookie does not name this email.
    const elsewhere = new WebClient(server.url);
    expect((await elsewhere.signIn(other, PASSWORD)).status).to.equal(303);
    await elsewhere.post("/account/sign-out", {});

    // An attacker's failures, all from the address every client shares (no TRUST_PROXY: the test client's own).
    for (let i = 0; i < 11; i++) await server.services.limits.login.attempt(email, "127.0.0.1");

    const stranger = new WebClient(server.url);
    expect((await stranger.signIn(email, PASSWORD)).status, "a browser without a device cookie").to.equal(429);
    expect((await elsewhere.signIn(email, PASSWORD)).status, "a device cookie of another account").to.equal(429);
    const forged = new WebClient(server.url);
    const [nonce] = owner.jar.get(DEVICE_COOKIE)!.split(".");
    forged.jar.set(DEVICE_COOKIE, `${nonce}.${"A".repeat(43)}`);
    expect((await forged.signIn(email, PASSWORD)).status, "a forged device cookie").to.equal(429);

    const back = await owner.signIn(email, PASSWORD);
    expect(back.status, "the owner's browser").to.equal(303);
    expect(await owner.signedIn()).to.equal(true);
  });
});
