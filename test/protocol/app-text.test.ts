/**
 * A tool answer with an app view says so once in its text, by the view's title (issue 39, item 6; issue
 * 49: what the line means is said once, in the server instructions): the model can then tell the person
 * truthfully what they see. A tool without an app says nothing of the kind. Both engines.
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

  it("get_transaction_summary names its chart once, by its title, and the instructions say what the line means", async () => {
    const t = await text("get_transaction_summary", { date_from: "2026-11-01", date_to: "2026-11-30", group_by: "category" });
    expect(t.split("App view").length - 1).to.equal(1);
    expect(t.endsWith("\n\nApp view: Spending breakdown.")).to.equal(true);
    const init = await server.rpc(
      { jsonrpc: "2.0", id: 2, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } },
      user.token,
    );
    expect(init.body.result.instructions).to.include('"App view: X": hosts with MCP Apps draw X under the answer');
  });

  it("a tool without an app says nothing of a view", async () => {
    expect(await text("list_transactions", {})).to.not.include("App view");
  });
});
