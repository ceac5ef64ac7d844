/**
 * Another team's hand-written client: Python 3's standard library (urllib) calls a write and a read tool
 * by JSON-RPC, with no Accept header and no MCP framing (test/protocol/python/plain_client.py).
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { engine } from "../helpers/database.js";
import { hasProgram, skipWithout } from "../helpers/external.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL("./python/plain_client.py", import.meta.url));

describe(`protocol: a Python standard-library JSON-RPC client (${engine})`, () => {
  let server: TestServer;
  let user: TestUser;
  before(async function () {
    if (!hasProgram("python3")) skipWithout(this, "python3", "no python3 on PATH");
    server = await startTestServer();
    user = await server.createUser();
  });
  after(async () => server?.close());

  it("creates a wallet and reads it back with urllib, without an Accept header", async () => {
    const { stdout } = await run("python3", [SCRIPT, server.mcpUrl, user.token], { timeout: 30_000 });
    const out = JSON.parse(stdout);
    expect(out.write_status).to.equal(200);
    expect(out.created.error, JSON.stringify(out.created.error)).to.equal(undefined);
    const walletId = out.created.result.id ?? out.created.result.wallet?.id;
    expect(walletId).to.be.a("string");
    expect(out.read_status).to.equal(200);
    expect(JSON.stringify(out.listed.result)).to.include(walletId).and.include("Python cash");
    // The write really happened: the server's own view agrees.
    const wallets = await server.call("list_wallets", {}, user.token);
    expect(JSON.stringify(wallets)).to.include(walletId);
  });
});
