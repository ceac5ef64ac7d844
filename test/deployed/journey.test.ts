/**
 * The as-deployed suite (issue 47): the product run the way people run it, on both engines. This folder
 * is where every user-visible flow gets its end-to-end case: add a step to journey.ts (or a file here)
 * when a flow a person meets changes.
 *
 * - The compiled server is started by `npm start`, as its own process, on a port of the system's choosing.
 * - The README's commands run as separate processes against the live database while it serves:
 *   `user create`, `token create`, `backup`, `export`, `demo`, `user create` + `import`. After each, a
 *   write and its undo preview must find the write's rows (issue 47: every command used to drop SQLite's
 *   row capture until the next restart).
 * - A person's journey over MCP with the SDK client (journey.ts), asserted by value; a statement in words
 *   no list knows, asked, answered, and the next file read by the remembered answer after the restart.
 * - Then a restart (SQLite, one process per file) or a second server process on the same database
 *   (Postgres), and the same journey holds; the first journey's import is still undoable.
 * - The servers never logged a write refused for missing capture, nor a repair of it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { createTestDatabase, engine, type TestDatabase } from "../helpers/database.js";
import { baseEnv, cli, demoUntilReady, npmStart, type ServerProcess } from "./processes.js";
import { connect, journey, unfamiliarStatement, writeThenUndoPreview, type Call } from "./journey.js";

const SCOPES = ["meta:whoami", "read:transactions", "write:transactions", "read:wallets", "write:wallets"].join(",");

describe(`as deployed: npm start, the CLI beside it, a person's journey over MCP (${engine})`, function () {
  this.timeout(600_000);
  let dir: string;
  let database: TestDatabase | undefined;
  let env: Record<string, string>;
  const servers: ServerProcess[] = [];
  const sessions: { close: () => Promise<void> }[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "fmcp-deployed-"));
    if (engine === "postgres") database = await createTestDatabase();
    env = baseEnv(engine === "postgres" ? database!.url : `sqlite:${join(dir, "data", "finance.sqlite")}`);
  });
  after(async () => {
    for (const s of sessions) await s.close().catch(() => undefined);
    for (const s of servers) await s.stop();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** `finance-mcp …` beside the live server; exit code 0 and its standard output. */
  async function run(...args: string[]): Promise<string> {
    const r = await cli(args, env);
    expect(r.code, `finance-mcp ${args.join(" ")}\n${r.stderr}`).to.equal(0);
    return r.stdout;
  }

  async function session(server: ServerProcess, token: string): Promise<Call> {
    const s = await connect(server.mcpUrl, token);
    sessions.push(s);
    return s.call;
  }

  /** A new person made with the CLI, and their token: the README's "Users and tokens". */
  async function person(email: string): Promise<string> {
    expect(JSON.parse(await run("user", "create", "--email", email, "--timezone", "UTC", "--currency", "EUR")).email).to.equal(email);
    const created = JSON.parse(await run("token", "create", "--email", email, "--scopes", SCOPES, "--name", "journey")) as { token: string };
    expect(created.token).to.match(/^fmcp_/);
    return created.token;
  }

  /** The servers said nothing of missing capture: it was never missing, not merely repaired. */
  const neverMissing = () => {
    for (const s of servers) expect(s.log()).to.not.match(/write_refused_capture_missing|row_capture_missing|row_capture_repaired/);
  };

  let first: { call: Call; walletId: string; importAuditId: string; importedIds: string[] };
  let savings: string;

  it("the README's commands beside the live server leave every write undoable", async () => {
    const server = await npmStart(env);
    servers.push(server);
    const token = await person("alex@example.com");
    const call = await session(server, token);
    const probe = (await call("create_wallet", { name: "Probe", type: "cash", currency: "EUR" })).wallet.id as string;
    await writeThenUndoPreview(call, probe); // after `user create` and `token create`

    if (engine === "sqlite") {
      await run("backup", "--to", join(dir, "backup.sqlite"));
    } else {
      const r = await cli(["backup", "--to", join(dir, "backup.sqlite")], env);
      expect(r.code, r.stderr).to.equal(2); // an online copy of SQLite only: Postgres has pg_dump
    }
    await writeThenUndoPreview(call, probe);

    const exported = await run("export", "--email", "alex@example.com");
    expect((JSON.parse(exported) as { wallets?: unknown[] }).wallets).to.have.length(1);
    writeFileSync(join(dir, "alex.json"), exported);
    await writeThenUndoPreview(call, probe);

    const demo = await demoUntilReady(env);
    expect(demo.stdout).to.include("finance-mcp demo");
    await writeThenUndoPreview(call, probe);

    await run("user", "create", "--email", "copy@example.com");
    await run("import", "--email", "copy@example.com", join(dir, "alex.json"));
    await writeThenUndoPreview(call, probe);

    const ready = await fetch(`${server.url}/readyz`);
    expect(((await ready.json()) as { checks: { capture: string } }).checks.capture).to.equal("ok");
    neverMissing();
  });

  it("a person's journey over MCP: import, bulk edit and undo, delete with a refund and undo, forecast, list_changes", async () => {
    const call = await session(servers[0]!, await person("sam@example.com"));
    first = { call, ...(await journey(call, "Giro")) };
    savings = (await call("create_wallet", { name: "Haushalt", type: "checking", currency: "EUR" })).wallet.id;
    await unfamiliarStatement(call, savings, 0);
    neverMissing();
  });

  it(`the same journey holds ${engine === "sqlite" ? "after a restart" : "on a second server process over the same database"}`, async () => {
    if (engine === "sqlite") {
      await servers.shift()!.stop();
      servers.push(await npmStart(env));
    } else {
      servers.push(await npmStart(env));
    }
    const next = servers[servers.length - 1]!;
    // The first journey's changes are still whole: its import undoes every row it made.
    const again = await session(next, await person("kim@example.com"));
    await journey(again, "Giro");
    const sam = await session(next, JSON.parse(await run("token", "create", "--email", "sam@example.com", "--scopes", SCOPES, "--name", "after")).token);
    const undoImport = await sam("undo_change", { audit_id: first.importAuditId, dry_run: true });
    expect(
      undoImport.rows
        .filter((r: { table: string }) => r.table === "transactions")
        .map((r: { id: string }) => r.id)
        .sort(),
    ).to.deep.equal(first.importedIds);
    await unfamiliarStatement(sam, savings, 1); // the answer remembered for the layout, across the restart
    if (engine === "postgres") await writeThenUndoPreview(first.call, first.walletId); // the first process still serves
    neverMissing();
    expect(readFileSync(join(dir, "alex.json"), "utf8")).to.include("alex@example.com");
  });
});
