/**
 * The import page's preview shows a summary, never the file (issue 41: a 200 KB statement made a 1.2 MB
 * page, the statement echoed into the confirm form). The browser keeps the text for the confirmation
 * (test/web/import-page.test.ts drives that in Chromium); the page the server sends holds none of it.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { expect } from "chai";
import { createToken, KNOWN_SCOPES } from "../../src/auth/tokens.js";
import { createUser } from "../../src/auth/users.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { WebClient } from "../helpers/web-client.js";

const PASSWORD = "correct horse battery staple";

describe(`import page: a summary, not the file (${engine})`, function () {
  this.timeout(240_000);
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(async () => server?.close());

  it("previews a 200 KB statement in a page much smaller than the file, without its text", async () => {
    const email = `import-${randomBytes(4).toString("hex")}@example.test`;
    const user = await createUser(server.db, { email, password: PASSWORD });
    const token = (await createToken(server.db, user.id, { name: "test", scopes: [...KNOWN_SCOPES], expiresInDays: 1 }, server.config.tokenPepper)).token;
    const { wallet } = await server.call("create_wallet", { name: "Giro", type: "checking", currency: "EUR", idempotency_key: randomUUID() }, token);
    const records = Array.from({ length: 1_000 }, (_, i) => `D11/01/2026\nT-${i + 1}.00\nPShop ${i}\nMmemo-${i}-${"z".repeat(150)}\n^\n`);
    const statement = `!Type:Bank\n${records.join("")}`;
    expect(statement.length).to.be.above(190_000);
    const client = new WebClient(server.url);
    expect((await client.signIn(email, PASSWORD)).status).to.equal(303);
    await client.get("/account/import");
    const page = await client.post("/account/import", { wallet_id: wallet.id, statement, key: randomUUID(), action: "preview" });
    expect(page.status).to.equal(200);
    expect(page.text).to.include("1000 new, 0 already imported");
    expect(page.text).to.not.include("memo-999-");
    expect(page.text).to.not.include("z".repeat(150));
    expect(page.text.length).to.be.below(statement.length / 2);
  });
});
