/**
 * whoami's account_url (issue 39, item 6): where the help articles send the person (/account), so a chatbot
 * can give the address: PUBLIC_URL when set, else the origin the request reached. Both engines.
 */
import { expect } from "chai";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe(`whoami's account page (${engine})`, function () {
  this.timeout(60_000);
  const servers: TestServer[] = [];
  after(async () => Promise.all(servers.map((s) => s.close())));

  it("is the request's origin + /account without PUBLIC_URL", async () => {
    const server = await startTestServer();
    servers.push(server);
    const me = await server.createUser();
    expect((await server.call("whoami", {}, me.token)).account_url).to.equal(`${server.url}/account`);
  });

  it("is PUBLIC_URL + /account when set, whatever Host the request named", async () => {
    const server = await startTestServer({ PUBLIC_URL: "https://finance.example.com" });
    servers.push(server);
    const me = await server.createUser();
    expect((await server.call("whoami", {}, me.token)).account_url).to.equal("https://finance.example.com/account");
  });
});
