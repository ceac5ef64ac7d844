/**
 * The account page's statement import in a real browser (headless Chromium): pick a file, see the
 * preview (counts, reconciliation, rows, a possible duplicate marked with a box), confirm with the box
 * ticked, and find the rows in the ledger; a second import of the same file adds nothing; a file that is
 * not a statement is named, nothing written.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import type { Browser, Page } from "playwright-core";
import { createToken, KNOWN_SCOPES } from "../../src/auth/tokens.js";
import { createUser } from "../../src/auth/users.js";
import { launchBrowser } from "../helpers/browser.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const PASSWORD = "correct horse battery staple";
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/statements/${name}`, import.meta.url));

describe(`statement import page in a browser (${engine})`, function () {
  this.timeout(120_000);
  let browser: Browser;
  let server: TestServer;
  let email: string;
  let token: string;

  before(async function () {
    browser = await launchBrowser(this);
    server = await startTestServer();
    email = `import-${randomBytes(4).toString("hex")}@example.test`;
    const user = await createUser(server.db, { email, password: PASSWORD });
    token = (await createToken(server.db, user.id, { name: "test", scopes: [...KNOWN_SCOPES], expiresInDays: 1 }, server.config.tokenPepper)).token;
  });
  after(async () => {
    await browser?.close();
    await server?.close();
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

  it("previews a picked statement with the duplicates marked, imports it on confirm, and a re-import adds nothing", async () => {
    const { wallet } = await server.call("create_wallet", { name: "Checking", type: "checking", currency: "USD", idempotency_key: randomUUID() }, token);
    const typed = await server.call(
      "create_transaction",
      { wallet_id: wallet.id, date: "2026-11-21", amount: "42.75", direction: "expense", payee: "Trader Joe's", idempotency_key: randomUUID() },
      token,
    );
    const page = await signedIn();
    await page.getByRole("link", { name: "Import a bank statement" }).click();
    await page.getByLabel("Wallet").selectOption(wallet.id);
    await page.getByLabel("Statement file").setInputFiles(fixture("checking-us.csv"));
    await page.getByRole("button", { name: "Preview" }).click();
    expect(await page.getByRole("status").textContent()).to.equal("4 new, 0 already imported, 1 possible duplicates, 0 invalid, of 5 rows.");
    const possible = page.locator("tr.possible");
    expect(await possible.locator("td").nth(5).textContent()).to.equal(`possible duplicate of ${typed.transaction.id}`);
    expect((await server.call("list_transactions", { wallet_id: wallet.id }, token)).transactions).to.have.length(1);

    await page.getByLabel("Import row 2 anyway").check();
    await page.getByRole("button", { name: "Confirm import" }).click();
    // Imported anyway, the row would count twice against the statement's balance: the page asks the person to
    // confirm the balance it leads to, keeping the ticked row (issue 48).
    await page.getByRole("heading", { name: "Import preview" }).waitFor();
    expect(await page.getByLabel("Import row 2 anyway").isChecked()).to.equal(true);
    expect((await server.call("list_transactions", { wallet_id: wallet.id }, token)).transactions).to.have.length(1);
    await page.getByLabel("Import anyway: the wallet's balance will be 1910.91 USD").check();
    await page.getByRole("button", { name: "Confirm import" }).click();
    // The button's script reads the statement back from IndexedDB before it submits: wait for the answer's page.
    await page.getByRole("heading", { name: "Statement imported" }).waitFor();
    expect(await page.getByRole("status").textContent()).to.equal("Imported 5 rows.");
    expect((await server.call("list_transactions", { wallet_id: wallet.id }, token)).transactions).to.have.length(6);

    await page.getByRole("link", { name: "Import another statement" }).click();
    await page.getByLabel("Wallet").selectOption(wallet.id);
    await page.getByLabel("Statement file").setInputFiles(fixture("checking-us.csv"));
    await page.getByRole("button", { name: "Preview" }).click();
    expect(await page.getByRole("status").textContent()).to.equal("0 new, 5 already imported, 0 possible duplicates, 0 invalid, of 5 rows.");
    // The commit remembered the file's mapping for the wallet (issue 37): the second preview was read with it.
    expect(await page.locator("main").textContent()).to.match(
      /Columns read as for this wallet's earlier statements of this layout \(remembered \d{4}-\d{2}-\d{2}\)\./,
    );
  });

  it("names a file that is not a statement and writes nothing", async () => {
    const { wallet } = await server.call("create_wallet", { name: "Cash", type: "cash", currency: "EUR", idempotency_key: randomUUID() }, token);
    const page = await signedIn();
    await page.goto(`${server.url}/account/import`);
    await page.getByLabel("Wallet").selectOption(wallet.id);
    await page
      .getByLabel("Statement file")
      .setInputFiles({ name: "letter.txt", mimeType: "text/plain", buffer: Buffer.from("Dear Sir, thank you for your letter.") });
    await page.getByRole("button", { name: "Preview" }).click();
    expect(await page.getByRole("alert").textContent()).to.match(/^statement: this is not a statement/);
    expect((await server.call("list_transactions", { wallet_id: wallet.id }, token)).transactions).to.have.length(0);
  });
});
