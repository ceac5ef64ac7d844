/**
 * A tool answer with an app view says so once in its text, and what it shows (issue 39, item 6): the
 * model can then tell the person truthfully what they see, and that each call draws its own view. A tool
 * without an app says nothing of the kind. Both engines.
 */
import { expect } from "chai";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

describe(`protocol: an app view said in the answer's text (${engine})`, function () {
  this.timeout(60_000);
  let server: TestServer;
  let user: TestUser;
  before(async () => {
    server = await startTestServer();
    user = await server.createUser();
  });
  after(async () => server?.close());

  const text = async (name: string, args: Record<string, unknown>) => {
    const answer = await server.rpc({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }, user.token, {
      "mcp-protocol-version": "2025-06-18",
    });
    expect(answer.body.result.isError, JSON.stringify(answer.body)).to.not.equal(true);
    return answer.body.result.content[0].text as string;
  };

  it("get_transaction_summary names its chart once, with what it shows", async () => {
    const t = await text("get_transaction_summary", { date_from: "2026-11-01", date_to: "2026-11-30", group_by: "category" });
    expect(t.split("App view").length - 1).to.equal(1);
    expect(t).to.include("Spending breakdown, get_transaction_summary drawn as bars");
  });

  it("a tool without an app says nothing of a view", async () => {
    expect(await text("list_transactions", {})).to.not.include("App view");
  });
});
