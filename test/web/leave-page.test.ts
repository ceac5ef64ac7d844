/**
 * "Download my data" and "Delete my account" in a real browser (headless Chromium): the download is a
 * file holding the signed-in person's export; the deletion page lists what will go, refuses a wrong
 * password (nothing deleted), deletes on the right one, signs the browser out and ends the person's
 * token, while another person's account and token go on working.
 */
import { readFileSync } from "node:fs";
import { randomBytes, randomUUID } from "node:crypto";
import { expect } from "chai";
import type { Browser, Page } from "playwright-core";
import { createToken, KNOWN_SCOPES } from "../../src/auth/tokens.js";
import { createUser } from "../../src/auth/users.js";
import { launchBrowser } from "../helpers/browser.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const PASSWORD = "correct horse battery staple";

describe(`download my data and delete my account in a browser (${engine})`, function () {
  this.timeout(120_000);
  let browser: Browser;
  let server: TestServer;
  const people: { id: string; email: string; token: string }[] = [];

  before(async function () {
    browser = await launchBrowser(this);
    server = await startTestServer();
    for (const name of ["sam", "kim"]) {
      const email = `${name}-${randomBytes(4).toString("hex")}@example.test`;
      const user = await createUser(server.db, { email, password: PASSWORD });
      const { token } = await createToken(server.db, user.id, { name: "all", scopes: [...KNOWN_SCOPES], expiresInDays: 1 }, server.config.tokenPepper);
      const { wallet } = await server.call("create_wallet", { name: `${name}'s cash`, type: "cash", currency: "USD", idempotency_key: randomUUID() }, token);
      await server.call(
        "create_transaction",
        { wallet_id: wallet.id, date: "2026-11-20", amount: "9.99", direction: "expense", payee: `${name}'s shop`, idempotency_key: randomUUID() },
        token,
      );
      people.push({ id: user.id, email, token });
    }
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  async function signedIn(email: string): Promise<Page> {
    const page = await (await browser.newContext({ acceptDownloads: true })).newPage();
    await page.goto(`${server.url}/account`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Your account" }).waitFor();
    return page;
  }

  it("downloads the signed-in person's data as a JSON file", async () => {
    const [sam, kim] = people as [(typeof people)[0], (typeof people)[0]];
    const page = await signedIn(sam.email);
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download my data" }).click()]);
    expect(download.suggestedFilename()).to.match(/^finance-mcp-export-\d{4}-\d{2}-\d{2}\.json$/);
    const file = JSON.parse(readFileSync((await download.path())!, "utf8"));
    expect(file.format).to.equal("finance-mcp-export");
    expect(file.user.email).to.equal(sam.email);
    expect(file.wallets.map((w: { name: string }) => w.name)).to.deep.equal(["sam's cash"]);
    expect(file.transactions.map((t: { payee: string }) => t.payee)).to.deep.equal(["sam's shop"]);
    expect(JSON.stringify(file)).not.to.contain(kim.id);
    // The page is still there after the download.
    await page.getByRole("heading", { name: "Your account" }).waitFor();
  });

  it("shows what will be deleted, refuses a wrong password, then deletes the account and signs the browser out", async () => {
    const [sam, kim] = people as [(typeof people)[0], (typeof people)[0]];
    const page = await signedIn(sam.email);
    await page.getByRole("link", { name: "Delete my account" }).click();
    await page.getByRole("heading", { name: "Delete your account" }).waitFor();
    const table = page.getByRole("table", { name: "What will be deleted" });
    expect(await table.getByRole("row", { name: /^wallets 1$/ }).count()).to.equal(1);
    expect(await table.getByRole("row", { name: /^transactions 1$/ }).count()).to.equal(1);
    expect(await table.getByRole("row", { name: /^tokens \(active, expired and revoked\) 1$/ }).count()).to.equal(1);

    await page.getByLabel("Your password").fill("not my password at all");
    await page.getByLabel("I understand that my account and all its data will be deleted for good").check();
    await page.getByRole("button", { name: "Delete my account" }).click();
    expect(await page.getByRole("alert").textContent()).to.equal("The password is wrong: nothing was deleted.");
    expect((await server.call("list_wallets", {}, sam.token)).wallets).to.have.length(1);

    await page.getByLabel("Your password").fill(PASSWORD);
    await page.getByLabel("I understand that my account and all its data will be deleted for good").check();
    await page.getByRole("button", { name: "Delete my account" }).click();
    expect(await page.getByRole("status").textContent()).to.contain("Your account and all its data have been deleted.");
    expect(
      await page
        .getByRole("table", { name: "What was deleted" })
        .getByRole("row", { name: /^transactions 1$/ })
        .count(),
    ).to.equal(1);

    await page.goto(`${server.url}/account`);
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    expect((await server.rpc({ jsonrpc: "2.0", id: 1, method: "whoami", params: {} }, sam.token)).status).to.equal(401);
    expect(await server.db("users").where({ id: sam.id }).first("id")).to.equal(undefined);

    // The other person is untouched.
    expect((await server.call("list_wallets", {}, kim.token)).wallets.map((w: { name: string }) => w.name)).to.deep.equal(["kim's cash"]);
    const theirs = await signedIn(kim.email);
    await theirs.getByRole("link", { name: "Delete my account" }).click();
    expect(
      await theirs
        .getByRole("table", { name: "What will be deleted" })
        .getByRole("row", { name: /^wallets 1$/ })
        .count(),
    ).to.equal(1);
  });
});
