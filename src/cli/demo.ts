/**
 * finance-mcp demo [--db FILE] [--port N]: a fresh SQLite database with the demo person
 * (src/demo/seed.ts, written through the tools), a token with every scope, the server started, and the
 * configuration of the common MCP clients printed, ready to paste. Stops on Ctrl-C like the server.
 *
 * The database is new every time (a temporary folder unless --db names a file that does not exist yet);
 * DATABASE_URL is not used, so a demo never writes into a real database.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { authenticateBearer, createToken, KNOWN_SCOPES } from "../auth/tokens.js";
import { createUser } from "../auth/users.js";
import { loadConfig } from "../config.js";
import { createLogger } from "../log.js";
import { startServer, stopOnSignals } from "../serve.js";
import { clientConfigs } from "../demo/client-config.js";
import { DEMO_CURRENCY, DEMO_EMAIL, DEMO_TIMEZONE, seedDemoPerson } from "../demo/seed.js";
import { CommandError } from "./data-commands.js";

export async function demoCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { db: { type: "string" }, port: { type: "string" } } });
  const file = values.db ? resolve(values.db) : join(mkdtempSync(join(tmpdir(), "finance-mcp-demo-")), "demo.sqlite");
  if (existsSync(file)) throw new CommandError(`${file} exists already: the demo makes a fresh database, so name a new file`);
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: `sqlite:${file}`, ...(values.port ? { PORT: values.port } : {}) };
  // Quiet unless asked: the demo's output is the configuration below.
  if (!process.env.LOG_LEVEL) env.LOG_LEVEL = "error";
  const config = loadConfig(env);
  const running = await startServer(config, { log: createLogger(config.logLevel, config.logFormat) });
  stopOnSignals(running);
  const { db, dispatch } = running.services;

  const password = randomBytes(12).toString("base64url");
  const user = await createUser(db, { email: DEMO_EMAIL, password, timezone: DEMO_TIMEZONE, currency: DEMO_CURRENCY });
  const { token } = await createToken(db, user.id, { name: "demo (every scope)", scopes: [...KNOWN_SCOPES], expiresInDays: 30 }, config.tokenPepper);
  const caller = await authenticateBearer(db, `Bearer ${token}`, config.tokenPepper);
  const seeded = await seedDemoPerson(dispatch, caller);

  const host = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${running.port}/api/v1/mcp`;
  const out: string[] = [
    "",
    "finance-mcp demo",
    `  database   ${file}`,
    `  person     ${DEMO_EMAIL} (password ${password}), ${DEMO_TIMEZONE}, ${seeded.wallets} wallets, ${seeded.transactions} transactions from ${seeded.from} to ${seeded.to}, ${seeded.budgets} budgets, ${seeded.goals} goal, ${seeded.bills} bills`,
    `  server     ${url}`,
    `  token      ${token}   (every scope, 30 days)`,
    "",
  ];
  for (const c of clientConfigs(url, token)) out.push(`--- ${c.client}: ${c.where}`, c.text, "");
  out.push('Try: "How much did I spend on groceries last month, and am I on track with my budgets?"', "Ready. Ctrl-C stops the server.", "");
  process.stdout.write(out.join("\n"));
}
