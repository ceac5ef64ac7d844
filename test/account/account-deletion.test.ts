/**
 * "Download my data" and "Delete my account" over HTTP, each on SQLite and Postgres, with two people who
 * both have rows in every table a person can have rows in: the download is the CLI's export of the
 * signed-in person only; the deletion page shows the counts per kind; a wrong password, a missing box, a
 * missing or foreign CSRF field, another site's form and another person's session delete nothing; a
 * failure midway rolls everything back; the deletion removes every row of the person and nothing else
 * (the whole database compared before and after), signs them out everywhere, ends their tokens, OAuth
 * grant and calendar feed, logs nothing that names them, and frees the email for a new account.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { createToken } from "../../src/auth/tokens.js";
import { createUser } from "../../src/auth/users.js";
import { countAccountRows } from "../../src/account/delete.js";
import { emailKey } from "../../src/limits/login.js";
import { liveAccountTables, rowsOf } from "../../src/account/tables.js";
import { readSchemaTables } from "../../src/db/schema-tables.js";
import { exportAccount } from "../../src/portability/export.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { WebClient } from "../helpers/web-client.js";
import { makePerson, PASSWORD, refresh, type Person } from "./people.js";

type Snapshot = Map<string, string[]>;
const json = (row: unknown) => JSON.stringify(row, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
/** Tables whose rows change with any sign-in or authorization, whoever's: left out of the before/after comparison. */
const VOLATILE = new Set(["rate_limits", "oauth_pending"]);

/** Every row of every table, as sorted JSON texts. */
async function snapshot(server: TestServer): Promise<Snapshot> {
  const out: Snapshot = new Map();
  for (const t of await readSchemaTables(server.db)) {
    if (VOLATILE.has(t.name) || t.name.startsWith("kb_fts")) continue;
    out.set(t.name, ((await server.db(t.name).select("*")) as unknown[]).map(json).sort());
  }
  return out;
}

/** The rows of the person per table (the users row included), as JSON texts. */
async function rowsOfPerson(server: TestServer, userId: string): Promise<Snapshot> {
  const tables = await liveAccountTables(server.db);
  const out: Snapshot = new Map([["users", ((await server.db("users").where({ id: userId }).select("*")) as unknown[]).map(json)]]);
  for (const t of tables) out.set(t.table, ((await rowsOf(server.db, tables, t, userId).select("*")) as unknown[]).map(json));
  return out;
}

const minus = (all: string[], gone: string[] = []) => {
  const left = [...all];
  for (const g of gone) left.splice(left.indexOf(g), 1);
  return left;
};

const countsOf = async (server: TestServer, userId: string) => Object.fromEntries((await countAccountRows(server.db, userId)).map((c) => [c.table, c.rows]));

describe(`download my data, delete my account (${engine})`, function () {
  this.timeout(180_000);
  let server: TestServer;
  let alex: Person;
  let blake: Person;
  const logged: string[] = [];

  before(async () => {
    server = await startTestServer();
    alex = await makePerson(server);
    blake = await makePerson(server);
    // Every line the server logs from here on, to check that the deletion's lines name nobody.
    const log = server.services.log;
    for (const level of ["info", "error"] as const) {
      const original = log[level].bind(log);
      log[level] = (event, fields) => {
        logged.push(json({ event, ...fields }));
        original(event, fields);
      };
    }
  });
  after(async () => server?.close());

  it("has rows of the person in every table a person can have rows in (so that the checks below check something)", async () => {
    const counts = await countsOf(server, alex.id);
    // audit_capture holds a row only while a write runs, account_erasure only while an account is deleted.
    const empty = Object.entries(counts).filter(([table, n]) => n === 0 && table !== "audit_capture" && table !== "account_erasure");
    expect(empty).to.deep.equal([]);
  });

  it("downloads the signed-in person's export, the CLI's, as a file; only with the form's CSRF field and a session", async () => {
    await alex.web.get("/account");
    const answer = await alex.web.post("/account/export", {});
    expect(answer.status).to.equal(200);
    expect(answer.headers.get("content-type")).to.match(/^application\/json/);
    expect(answer.headers.get("content-disposition")).to.match(/^attachment; filename="finance-mcp-export-\d{4}-\d{2}-\d{2}\.json"$/);
    expect(answer.headers.get("cache-control")).to.equal("no-store");
    const file = JSON.parse(answer.text);
    const cli = JSON.parse(json(await exportAccount(server.db, alex.id)));
    expect({ ...file, exported_at: null }).to.deep.equal({ ...cli, exported_at: null });
    expect(file.user.email).to.equal(alex.email);
    expect(file.transactions.length).to.be.greaterThan(50);
    expect(answer.text).not.to.contain(blake.email);
    expect(answer.text).not.to.contain(blake.id);

    const theirs = JSON.parse((await blake.web.post("/account/export", {})).text);
    expect(theirs.user.email).to.equal(blake.email);
    expect(await alex.web.post("/account/export", { csrf: "forged" })).to.have.property("status", 403);
    const nobody = new WebClient(server.url);
    await nobody.get("/account");
    expect((await nobody.post("/account/export", {})).status).to.equal(401);
  });

  it("shows how many rows of each kind will be deleted before asking for the password", async () => {
    const page = await alex.web.get("/account/delete");
    expect(page.status).to.equal(200);
    const counts = await countAccountRows(server.db, alex.id);
    for (const c of counts.filter((x) => x.shown)) expect(page.text, c.label).to.contain(`<tr><td>${c.label}</td><td>${c.rows}</td></tr>`);
    const kept = counts.filter((x) => !x.shown).reduce((n, x) => n + x.rows, 0);
    expect(page.text).to.match(new RegExp(`<tr><td>records the service keeps for your account \\([^<]*\\)</td><td>${kept}</td></tr>`));
    expect(page.text).to.contain('name="password" type="password"');
    expect((await alex.web.get("/account")).text).to.contain('<a href="/account/delete">Delete my account</a>');
    expect((await new WebClient(server.url).get("/account/delete")).location).to.equal("/account");
  });

  it("deletes nothing on a wrong password, a missing confirmation, a missing or forged CSRF field, or a form from another site", async () => {
    const before = await countsOf(server, alex.id);
    await alex.web.get("/account/delete");
    const wrong = await alex.web.post("/account/delete", { password: "not the password at all", confirm: "yes" });
    expect(wrong.status).to.equal(401);
    expect(wrong.text).to.contain("The password is wrong: nothing was deleted.");
    const unticked = await alex.web.post("/account/delete", { password: PASSWORD });
    expect(unticked.status).to.equal(400);
    expect(unticked.text).to.contain("Tick the box to confirm: nothing was deleted.");
    expect((await alex.web.post("/account/delete", { csrf: "", password: PASSWORD, confirm: "yes" })).status).to.equal(403);
    expect((await alex.web.post("/account/delete", { csrf: blake.web.csrf, password: PASSWORD, confirm: "yes" })).status).to.equal(403);
    const crossSite = await alex.web.post("/account/delete", { password: PASSWORD, confirm: "yes" }, { origin: "https://evil.example" });
    expect(crossSite.status).to.equal(403);
    expect(await countsOf(server, alex.id)).to.deep.equal(before);
    expect(await alex.web.signedIn()).to.equal(true);
  });

  it("deletes only the session's person: another person's session with the first one's password deletes nobody", async () => {
    const other = await createUser(server.db, { email: `other-${randomUUID()}@example.test`, password: "another long password" });
    const theirs = new WebClient(server.url);
    expect((await theirs.signIn(other.email, "another long password")).status).to.equal(303);
    const alexBefore = await countsOf(server, alex.id);
    await theirs.get("/account/delete");
    const refused = await theirs.post("/account/delete", { password: PASSWORD, confirm: "yes" });
    expect(refused.status).to.equal(401);
    expect(await countsOf(server, alex.id)).to.deep.equal(alexBefore);
    expect(await server.db("users").where({ id: other.id }).first("id")).to.deep.equal({ id: other.id });
  });

  it("rolls everything back when the deletion fails midway (the user row, deleted last, refuses)", async () => {
    const before = await snapshot(server);
    const name = "test_forced_failure_users_delete";
    if (engine === "postgres") {
      await server.db.raw(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'forced failure'; END $$`);
      await server.db.raw(`CREATE TRIGGER ${name} BEFORE DELETE ON users FOR EACH ROW EXECUTE FUNCTION ${name}()`);
    } else {
      await server.db.raw(`CREATE TRIGGER ${name} BEFORE DELETE ON users BEGIN SELECT RAISE(ABORT, 'forced failure'); END`);
    }
    try {
      await alex.web.get("/account/delete");
      const failed = await alex.web.post("/account/delete", { password: PASSWORD, confirm: "yes" });
      expect(failed.status).to.equal(500);
      expect(failed.text).not.to.contain("forced failure");
    } finally {
      await server.db.raw(`DROP TRIGGER IF EXISTS ${name}${engine === "postgres" ? " ON users" : ""}`);
      if (engine === "postgres") await server.db.raw(`DROP FUNCTION IF EXISTS ${name}()`);
    }
    const after = await snapshot(server);
    // The session's last use may have been written by the page views above; every other row is as it was.
    for (const [table, rows] of before) if (table !== "web_sessions") expect(after.get(table), table).to.deep.equal(rows);
    expect(await alex.web.signedIn()).to.equal(true);
  });

  it("deletes every row of the person and no other, signs them out everywhere, and ends their tokens, grant and feed", async () => {
    const secondBrowser = new WebClient(server.url);
    expect((await secondBrowser.signIn(alex.email, PASSWORD)).status).to.equal(303);
    expect((await server.rpc({ jsonrpc: "2.0", id: 1, method: "whoami", params: {} }, alex.oauth.accessToken)).status).to.equal(200);
    const blakeWallets = await server.call("list_wallets", {}, blake.token);
    await alex.web.get("/account/delete");
    const before = await snapshot(server);
    const theirs = await rowsOfPerson(server, alex.id);
    const logFrom = logged.length;
    // The rate-limit counters that name the person (their tokens' counts, their failed-login count).
    const tokenIds: string[] = await server.db("mcp_tokens").where({ user_id: alex.id }).pluck("id");
    const blakeTokenIds: string[] = await server.db("mcp_tokens").where({ user_id: blake.id }).pluck("id");
    await fetch(`${server.url}/api/v1/mcp-tokens`, {
      method: "POST",
      headers: { authorization: `Basic ${Buffer.from(`${alex.email}:wrong password`).toString("base64")}` },
    });
    const namesPerson = (key: string, ids: string[], person: Person) =>
      ids.some((id) => key.includes(id)) || key.includes(person.id) || key === `login_email:${emailKey(person.email)}`;
    const limitKeys = async () => (await server.db("rate_limits").pluck("key")) as string[];
    expect((await limitKeys()).filter((k) => namesPerson(k, tokenIds, alex)).length).to.be.at.least(2);

    const done = await alex.web.post("/account/delete", { password: PASSWORD, confirm: "yes" });
    expect(done.status).to.equal(200);
    expect(done.text).to.contain("Your account and all its data have been deleted.");
    expect(done.headers.getSetCookie().some((c) => /^fmcp_session=; .*Max-Age=0/.test(c))).to.equal(true);

    // Every row of the person is gone, and every other row of the database is exactly as it was.
    const after = await snapshot(server);
    for (const [table, rows] of before) expect(after.get(table), table).to.deep.equal(minus(rows, theirs.get(table)));
    // Nothing anywhere still names the person (a table that keeps their id under another column would).
    for (const [table, rows] of after) {
      for (const row of rows) {
        expect(row, table).not.to.contain(alex.id);
        expect(row.toLowerCase(), table).not.to.contain(alex.email.toLowerCase());
      }
    }
    for (const line of logged.slice(logFrom)) {
      expect(line).not.to.contain(alex.id);
      expect(line).not.to.contain(alex.email);
    }
    expect(logged.slice(logFrom).some((l) => l.includes('"event":"web_account_deleted"'))).to.equal(true);
    expect((await limitKeys()).filter((k) => namesPerson(k, tokenIds, alex))).to.deep.equal([]);
    expect((await limitKeys()).filter((k) => namesPerson(k, blakeTokenIds, blake)).length).to.be.at.least(1);

    expect(await alex.web.signedIn()).to.equal(false);
    expect(await secondBrowser.signedIn()).to.equal(false);
    expect((await server.rpc({ jsonrpc: "2.0", id: 2, method: "whoami", params: {} }, alex.token)).status).to.equal(401);
    expect((await server.rpc({ jsonrpc: "2.0", id: 3, method: "whoami", params: {} }, alex.oauth.accessToken)).status).to.equal(401);
    const refreshed = await refresh(server, alex.oauth);
    expect(refreshed.status).to.equal(400);
    expect(refreshed.body.error).to.equal("invalid_grant");
    expect((await fetch(`${server.url}/api/v1/calendar/${alex.calendarSecret}.ics`)).status).to.equal(404);

    // The other person is untouched and still served.
    expect(await server.call("list_wallets", {}, blake.token)).to.deep.equal(blakeWallets);
    expect((await refresh(server, blake.oauth)).status).to.equal(200);
    expect(await blake.web.signedIn()).to.equal(true);
  });

  it("deletes once when the form is sent twice at the same time: the second answer says the session ended", async () => {
    const email = `twice-${randomUUID()}@example.test`;
    await createUser(server.db, { email, password: PASSWORD });
    const web = new WebClient(server.url);
    expect((await web.signIn(email, PASSWORD)).status).to.equal(303);
    await web.get("/account/delete");
    const answers = await Promise.all([1, 2].map(() => web.post("/account/delete", { password: PASSWORD, confirm: "yes" })));
    expect(answers.map((a) => a.status).sort()).to.deep.equal([200, 401]);
    expect(await server.db("users").where({ email }).first("id")).to.equal(undefined);
  });

  it("frees the email: it can be registered again, to an empty account", async () => {
    const again = await createUser(server.db, { email: alex.email, password: "a brand new password" });
    expect(again.id).not.to.equal(alex.id);
    const { token } = await createToken(server.db, again.id, { name: "new", scopes: ["read:wallets"], expiresInDays: 1 }, server.config.tokenPepper);
    expect((await server.call("list_wallets", {}, token)).wallets).to.deep.equal([]);
    const web = new WebClient(server.url);
    expect((await web.signIn(alex.email, "a brand new password")).status).to.equal(303);
    expect(await web.signedIn()).to.equal(true);
  });
});
