/**
 * What each `finance-mcp` command does, once the dispatcher (src/cli/main.ts) has parsed its options
 * against the command table (src/cli/commands.ts). The data commands' own bodies live in
 * src/cli/data-commands.ts and the demo's in src/cli/demo.ts; they receive the command's arguments as typed.
 */
import type { Knex } from "knex";
import { describeConfig, loadConfig, type Config } from "../config.js";
import { sqliteFileOf } from "../db/engine.js";
import { createDb } from "../db/knex.js";
import { prepareSqliteFile } from "../db/sqlite-file.js";
import { migrateLatest, rollbackAll } from "../db/migrate.js";
import { createUser, findUserByEmail } from "../auth/users.js";
import { dummyPasswordHash, verifyPassword } from "../auth/passwords.js";
import { createTokenWithinQuota, listTokens, revokeToken, tokenStatus, validateNewToken } from "../auth/tokens.js";
import { latestAuditEntries } from "../audit/log.js";
import { loadCorpus } from "../domain/knowledge/corpus.js";
import { DEFAULT_KB_FOLDER, importCorpus } from "../domain/knowledge/store.js";
import { demoCommand } from "./demo.js";
import { backupCommand, exportCommand, importCommand } from "./data-commands.js";
import { bankConnectCommand, bankDisconnectCommand, bankSyncCommand } from "./bank-commands.js";

/** A mistake in how the command was called: printed as one line, exit code 2. */
export class UsageError extends Error {}

export interface Invocation {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
  /** The arguments after the command's name, as typed (for the commands that parse their own). */
  args: string[];
}

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

function text(values: Invocation["values"], name: string): string | undefined {
  const v = values[name];
  return typeof v === "string" ? v : undefined;
}

function required(values: Invocation["values"], name: string): string {
  const v = text(values, name);
  if (v === undefined || v === "") throw new UsageError(`--${name} is required`);
  return v;
}

/** Runs `body` over the configured database, migrated first, and closes it. */
async function withDb(body: (db: Knex, config: Config) => Promise<void>, options: { migrate?: boolean } = {}): Promise<void> {
  const config = loadConfig();
  // The same check as the server's start: a SQLite path that cannot be used is one line, exit code 2.
  const file = sqliteFileOf(config.databaseUrl);
  if (file !== undefined) prepareSqliteFile(file);
  const db = createDb(config.databaseUrl);
  try {
    if (options.migrate !== false) await migrateLatest(db);
    await body(db, config);
  } finally {
    await db.destroy();
  }
}

async function signedInUser(db: Knex, email: string) {
  const user = await findUserByEmail(db, email);
  const password = await readPassword();
  if (!(await verifyPassword(password, user?.password_hash ?? (await dummyPasswordHash()))) || !user) throw new UsageError("wrong email or password");
  return user;
}

export const RUNNERS: Record<string, (inv: Invocation) => Promise<void>> = {
  serve: async () => {
    await import("../main.js");
  },
  demo: ({ args }) => demoCommand(args),
  config: async () => {
    console.log(JSON.stringify(describeConfig(loadConfig()), null, 2));
  },
  backup: ({ args }) => backupCommand(loadConfig().databaseUrl, args),
  migrate: ({ values }) =>
    withDb(
      async (db) => {
        if (values["rollback-all"]) await rollbackAll(db);
        else await migrateLatest(db);
        console.log(JSON.stringify({ migrated: !values["rollback-all"] }));
      },
      { migrate: false },
    ),
  export: ({ args }) => withDb((db) => exportCommand(db, args)),
  import: ({ args }) => withDb((db) => importCommand(db, args)),
  "user create": ({ values }) =>
    withDb(async (db) => {
      const user = await createUser(db, {
        email: required(values, "email"),
        password: await readPassword(),
        timezone: text(values, "timezone"),
        currency: text(values, "currency"),
      });
      console.log(JSON.stringify(user, null, 2));
    }),
  "token create": ({ values }) =>
    withDb(async (db, config) => {
      const user = await signedInUser(db, required(values, "email"));
      const days = text(values, "expires-in-days");
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
    }),
  "token list": ({ values }) =>
    withDb(async (db) => {
      const user = await signedInUser(db, required(values, "email"));
      const now = new Date();
      for (const t of await listTokens(db, user.id)) console.log(JSON.stringify({ ...t, status: tokenStatus(t, now) }));
    }),
  "token revoke": ({ values }) =>
    withDb(async (db) => {
      const user = await signedInUser(db, required(values, "email"));
      const tokenId = required(values, "token-id");
      if (!(await revokeToken(db, user.id, tokenId))) throw new UsageError(`no token with id ${tokenId} for this user`);
      console.log(JSON.stringify({ token_id: tokenId, revoked: true }));
    }),
  audit: ({ values }) =>
    withDb(async (db) => {
      const user = await findUserByEmail(db, required(values, "email"));
      if (!user) throw new UsageError("no user with that email");
      const raw = text(values, "limit");
      const limit = raw === undefined ? 50 : Number(raw);
      if (!Number.isInteger(limit) || limit < 1 || limit > 10000) throw new UsageError("--limit must be an integer from 1 to 10000");
      for (const entry of await latestAuditEntries(db, user.id, limit)) console.log(JSON.stringify(entry));
    }),
  "bank connect": ({ values }) =>
    withDb(async (db, config) => {
      const user = await signedInUser(db, required(values, "email"));
      const days = text(values, "days");
      if (days !== undefined && !/^\d{1,4}$/.test(days)) throw new UsageError("--days must be a whole number of days");
      await bankConnectCommand(db, config, user, {
        setupToken: required(values, "setup-token"),
        days: days === undefined ? undefined : Number(days),
        link: text(values, "link"),
      });
    }),
  "bank sync": ({ values }) =>
    withDb(async (db, config) => {
      const user = await signedInUser(db, required(values, "email"));
      await bankSyncCommand(db, config, user);
    }),
  "bank disconnect": ({ values }) =>
    withDb(async (db, config) => {
      const user = await signedInUser(db, required(values, "email"));
      await bankDisconnectCommand(db, config, user);
    }),
  "kb import": ({ positionals }) =>
    withDb(async (db) => {
      const folder = positionals[0] ?? DEFAULT_KB_FOLDER;
      const n = await importCorpus(db, await loadCorpus(folder));
      console.log(JSON.stringify({ imported: n, folder }));
    }),
};
