/**
 * The account page's bank connection in a real browser (headless Chromium), against the SimpleFIN server
 * on loopback: paste a setup token, pick an existing wallet of the account's currency for one account
 * (the custom-currency one is listed with its reason, no choice), sync now, find exactly the bank's
 * posted rows reconciled, then disconnect. The page never shows the Access URL.
 */
import https from "node:https";
import { randomBytes, randomUUID } from "node:crypto";
import { expect } from "chai";
import type { Browser, Page } from "playwright-core";
import { createToken, KNOWN_SCOPES } from "../../src/auth/tokens.js";
import { createUser } from "../../src/auth/users.js";
import { launchBrowser } from "../helpers/browser.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { startSimplefinServer, unixOf, type SimplefinServer } from "../helpers/simplefin-server.js";
import { addDays } from "../../src/calendar/days.js";

const PASSWORD = "correct horse battery staple";
const today = new Date().toISOString().slice(0, 10);

describe(`bank connection page in a browser (${engine})`, function () {
  this.timeout(120_000);
  let browser: Browser;
  let server: TestServer;
  let bridge: SimplefinServer;
  let email: string;
  let token: string;

  before(async function () {
    browser = await launchBrowser(this);
    bridge = await startSimplefinServer([
      {
        id: "chk",
        name: "Everyday Checking",
        currency: "USD",
        balance: "457.25",
        "balance-date": unixOf(today, 0) + 60,
        transactions: [
          { id: "t1", posted: unixOf(addDays(today, -9)), amount: "-42.75", description: "GROCER" },
          { id: "t2", posted: unixOf(addDays(today, -3)), amount: "500.00", description: "PAYROLL" },
        ],
      },
      { id: "miles", name: "Air Miles", currency: "https://bank.example/miles", balance: "900", "balance-date": unixOf(today, 0), transactions: [] },
    ]);
    https.globalAgent.options.ca = bridge.cert;
    server = await startTestServer({ BANK_BRIDGE_ALLOW_PRIVATE: "true" });
    email = `bank-${randomBytes(4).toString("hex")}@example.test`;
    const user = await createUser(server.db, { email, password: PASSWORD });
    token = (await createToken(server.db, user.id, { name: "test", scopes: [...KNOWN_SCOPES], expiresInDays: 1 }, server.config.tokenPepper)).token;
  });
  after(async () => {
    delete https.globalAgent.options.ca;
    await browser?.close();
    await server?.close();
    await bridge?.close();
  });

  async function signedIn(): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${server.url}/account`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Your account" }).waitFor();
    return page;
  }

  it("connects with a pasted setup token, links a picked wallet, syncs, and disconnects", async () => {
    const { wallet } = await server.call(
      "create_wallet",
      { name: "My checking", type: "checking", currency: "USD", opening_balance: "0.00", idempotency_key: randomUUID() },
      token,
    );
    const page = await signedIn();
    await page.getByRole("link", { name: "Connect a bank" }).click();
    await page.getByLabel("SimpleFIN setup token").fill(bridge.setupToken());
    await page.getByRole("button", { name: "Connect" }).click();
    expect(await page.getByRole("status").textContent()).to.match(/^Connected 127\.0\.0\.1:\d+: 2 accounts\./);
    expect(await page.locator("main").textContent()).to.match(/custom one \(https:\/\/bank\.example\/miles\)/);
    await page.getByLabel("Wallet for Everyday Checking").selectOption(wallet.id);
    await page.getByRole("button", { name: "Save" }).click();
    expect(await page.getByRole("status").textContent()).to.match(/^Saved\./);
    await page.getByRole("button", { name: "Sync now" }).click();
    expect(await page.getByRole("status").textContent()).to.match(/^Synced: 2 new transactions\./);
    const listed = await server.call("list_transactions", { wallet_id: wallet.id }, token);
    expect(listed.transactions.map((t: { amount: { value: string } }) => t.amount.value).sort()).to.deep.equal(["-42.75", "500.00"]);
    const balance = (await server.call("list_wallets", {}, token)).wallets.find((w: { id: string }) => w.id === wallet.id).balance.value;
    expect(balance).to.equal("457.25");
    const html = await page.content();
    for (const secret of [bridge.accessUrls[0]!, new URL(bridge.accessUrls[0]!).password]) expect(html.includes(secret)).to.equal(false);
    await page.getByRole("button", { name: "Disconnect (deletes the stored access)" }).click();
    expect(await page.getByRole("status").textContent()).to.match(/^Disconnected/);
    expect((await server.call("list_bank_connections", {}, token)).connections).to.deep.equal([]);
  });
});
