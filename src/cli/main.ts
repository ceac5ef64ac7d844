/**
 * npx finance-mcp <command>
 *   serve                                   start the server (same as npm start)
 *   migrate [--rollback-all]                migrate the database named by DATABASE_URL
 *   user create --email E [--timezone TZ] [--currency CUR]
 *                                           password from FINANCE_MCP_PASSWORD or standard input
 *   token create --email E --scopes a,b --name N [--expires-in-days D]
 *                                           password as above; prints the token once (at most
 *                                           RATE_LIMIT_TOKENS_PER_HOUR per user per rolling hour)
 *   token list --email E                    the user's tokens, one JSON line each, never the secret
 *   token revoke --email E --token-id ID    revokes one of the user's tokens
 *   audit --email E [--limit N]             a user's audit entries, newest first
 *   kb import [folder]                      replace the knowledge base with the folder's entries (default kb/)
 *   config                                  the effective configuration as JSON, secrets shown as set / not set
 *   export --email E [--format json|csv] [--out PATH]
 *                                           all of the user's data (src/cli/data-commands.ts)
 *   import --email E FILE                   a JSON export into the user's empty account
 *   backup --to FILE                        an online copy of the SQLite database
 *   demo                                    a demo person, a token and the server, with client configuration
 */
import { parseArgs } from "node:util";
import { ConfigError, describeConfig, loadConfig } from "../config.js";
import { createDb } from "../db/knex.js";
import { migrateLatest, rollbackAll } from "../db/migrate.js";
import { createUser, findUserByEmail, UserInputError } from "../auth/users.js";
import { dummyPasswordHash, verifyPassword } from "../auth/passwords.js";
import { createTokenWithinQuota, listTokens, revokeToken, TokenInputError, TokenQuotaError, tokenStatus, validateNewToken } from "../auth/tokens.js";
import { latestAuditEntries } from "../audit/log.js";
import { loadCorpus } from "../domain/knowledge/corpus.js";
import { DEFAULT_KB_FOLDER, importCorpus } from "../domain/knowledge/store.js";

import { demoCommand } from "./demo.js";
import { backupCommand, CommandError, exportCommand, importCommand } from "./data-commands.js";
import { ImportError } from "../portability/import.js";
import { BackupError } from "../portability/backup.js";

class UsageError extends Error {}

async function readPassword(): Promise<string> {
  const fromEnv = process.env.FINANCE_MCP_PASSWORD;
  if (fromEnv) return fromEnv;
  if (process.stdin.isTTY) process.stderr.write("password: ");
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const password = Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
  if (!password) throw new UsageError("no password: set FINANCE_MCP_PASSWORD or pipe it on standard input");
  return password;
}

function required(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== "string" || v === "") throw new UsageError(`--${name} is required`);
  return v;
}

async function run(argv: string[]): Promise<void> {
  const [command, sub, ...rest] = argv;
  if (command === "serve" || command === undefined) {
    await import("../main.js");
    return;
  }
  if (command === "demo") {
    await demoCommand([sub ?? "", ...rest].filter(Boolean));
    return;
  }
  const config = loadConfig();
  if (command === "config") {
    console.log(JSON.stringify(describeConfig(config), null, 2));
    return;
  }
  if (command === "backup") {
    await backupCommand(config.databaseUrl, [sub ?? "", ...rest].filter(Boolean));
    return;
  }
  const db = createDb(config.databaseUrl);
  try {
    if (command === "migrate") {
      if (argv.includes("--rollback-all")) await rollbackAll(db);
      else await migrateLatest(db);
      console.log(JSON.stringify({ migrated: !argv.includes("--rollback-all") }));
      return;
    }
    await migrateLatest(db);
    if (command === "export" || command === "import") {
      const args = [sub ?? "", ...rest].filter(Boolean);
      await (command === "export" ? exportCommand(db, args) : importCommand(db, args));
      return;
    }
    if (command === "user" && sub === "create") {
      const { values } = parseArgs({ args: rest, options: { email: { type: "string" }, timezone: { type: "string" }, currency: { type: "string" } } });
      const user = await createUser(db, {
        email: required(values, "email"),
        password: await readPassword(),
        timezone: values.timezone,
        currency: values.currency,
      });
      console.log(JSON.stringify(user, null, 2));
      return;
    }
    if (command === "token" && (sub === "create" || sub === "list" || sub === "revoke")) {
      const { values } = parseArgs({
        args: rest,
        options: {
          email: { type: "string" },
          scopes: { type: "string" },
          name: { type: "string" },
          "expires-in-days": { type: "string" },
          "token-id": { type: "string" },
        },
      });
      const email = required(values, "email");
      const user = await findUserByEmail(db, email);
      const password = await readPassword();
      if (!(await verifyPassword(password, user?.password_hash ?? (await dummyPasswordHash()))) || !user) throw new UsageError("wrong email or password");
      if (sub === "list") {
        const now = new Date();
        for (const t of await listTokens(db, user.id)) console.log(JSON.stringify({ ...t, status: tokenStatus(t, now) }));
        return;
      }
      if (sub === "revoke") {
        const tokenId = required(values, "token-id");
        if (!(await revokeToken(db, user.id, tokenId))) throw new UsageError(`no token with id ${tokenId} for this user`);
        console.log(JSON.stringify({ token_id: tokenId, revoked: true }));
        return;
      }
      const days = values["expires-in-days"];
      const input = validateNewToken({
        name: required(values, "name"),
        scopes: required(values, "scopes")
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean),
        ...(days === undefined ? {} : { expires_in_days: /^\d+$/.test(days) ? Number(days) : days }),
      });
      const token = await createTokenWithinQuota(db, user.id, input, config.tokenPepper, config.rateLimits.tokensPerHour);
      console.log(JSON.stringify(token, null, 2));
      return;
    }
    if (command === "audit") {
      const { values } = parseArgs({ args: [sub ?? "", ...rest].filter(Boolean), options: { email: { type: "string" }, limit: { type: "string" } } });
      const user = await findUserByEmail(db, required(values, "email"));
      if (!user) throw new UsageError("no user with that email");
      const limit = values.limit === undefined ? 50 : Number(values.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 10000) throw new UsageError("--limit must be an integer from 1 to 10000");
      for (const entry of await latestAuditEntries(db, user.id, limit)) console.log(JSON.stringify(entry));
      return;
    }
    if (command === "kb" && sub === "import") {
      const folder = rest[0] ?? DEFAULT_KB_FOLDER;
      const n = await importCorpus(db, await loadCorpus(folder));
      console.log(JSON.stringify({ imported: n, folder }));
      return;
    }
    throw new UsageError(`unknown command: ${argv.join(" ")}`);
  } finally {
    await db.destroy();
  }
}

run(process.argv.slice(2)).catch((err: unknown) => {
  if (
    err instanceof UsageError ||
    err instanceof CommandError ||
    err instanceof ImportError ||
    err instanceof BackupError ||
    err instanceof ConfigError ||
    err instanceof UserInputError ||
    err instanceof TokenInputError ||
    err instanceof TokenQuotaError
  ) {
    console.error(`finance-mcp: ${err.message}`);
    process.exit(2);
  }
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
