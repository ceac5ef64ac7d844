/**
 * The MCP Inspector CLI (the README's way to try the server by hand) listing the tools and calling one,
 * over Streamable HTTP and over the HTTP+SSE transport.
 *
 * The Inspector is not a dependency of the project (its packages declare Node >= 22 and the standalone
 * @modelcontextprotocol/inspector-cli 1.0.3 cannot run outside the Inspector's own repository), so this
 * test runs it with `npx --offline` from npm's cache and is skipped, saying so, where the cache does not
 * have it. Put it there once with: npx -y @modelcontextprotocol/inspector@1.0.3 --help
 */
import { execFile } from "node:child_process";
import { expect } from "chai";
import { tools } from "../../generated/registry.js";
import { engine } from "../helpers/database.js";
import { skipWithout } from "../helpers/external.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

const INSPECTOR = "@modelcontextprotocol/inspector@1.0.3";
const NOT_CACHED = /npm error code (ENOTCACHED|ETARGET|E404|EAI_AGAIN|ENOTFOUND)/;

function inspector(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      "npx",
      ["--offline", "-y", INSPECTOR, "--cli", ...args],
      { timeout: 60_000, encoding: "utf8", env: { ...process.env, npm_config_engine_strict: "false", npm_config_update_notifier: "false" } },
      (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: unknown }).code) || 1 : 0, stdout, stderr }),
    );
  });
}

describe(`protocol: MCP Inspector CLI (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  let user: TestUser;
  before(async function () {
    const probe = await inspector(["--help"]);
    if (probe.code !== 0 && NOT_CACHED.test(probe.stderr)) skipWithout(this, "inspector", `${INSPECTOR} is not in npm's cache`);
    server = await startTestServer();
    user = await server.createUser();
  });
  after(async () => server?.close());

  it("lists the tools over Streamable HTTP", async () => {
    const r = await inspector([server.mcpUrl, "--transport", "http", "--header", `Authorization: Bearer ${user.token}`, "--method", "tools/list"]);
    expect(r.code, r.stderr).to.equal(0);
    const listed = JSON.parse(r.stdout) as { tools: { name: string }[] };
    expect(listed.tools.map((t) => t.name)).to.deep.equal(tools.map((t) => t.name));
  });

  it("calls a tool over the HTTP+SSE transport", async () => {
    const r = await inspector([
      `${server.url}/api/v1/mcp/sse`,
      "--transport",
      "sse",
      "--header",
      `Authorization: Bearer ${user.token}`,
      "--method",
      "tools/call",
      "--tool-name",
      "calculate",
      "--tool-arg",
      "expression=2*21",
    ]);
    expect(r.code, r.stderr).to.equal(0);
    const result = JSON.parse(r.stdout) as { structuredContent: { result: string } };
    expect(result.structuredContent.result).to.equal("42");
  });
});
