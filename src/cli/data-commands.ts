/**
 * The CLI's commands over a person's data and the database file:
 *   export --email E [--format json|csv] [--out PATH]   JSON to standard output or PATH; CSV: one file per
 *                                                       section into the folder PATH (required)
 *   import --email E FILE                               a JSON export into E's empty account: every row
 *                                                       checked first, nothing imported when one is bad
 *   backup --to FILE                                    online copy of the SQLite database
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { Knex } from "knex";
import { findUserByEmail } from "../auth/users.js";
import { backupSqlite } from "../db/sqlite-backup.js";
import { exportAccount, exportCsv } from "../portability/export.js";
import { ImportError, importFile } from "../portability/import.js";

export class CommandError extends Error {}

function option(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== "string" || v === "") throw new CommandError(`--${name} is required`);
  return v;
}

async function userId(db: Knex, email: string): Promise<string> {
  const user = await findUserByEmail(db, email);
  if (!user) throw new CommandError(`no user with the email ${email}: create it with \`finance-mcp user create\``);
  return user.id;
}

export async function exportCommand(db: Knex, args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { email: { type: "string" }, format: { type: "string" }, out: { type: "string" } } });
  const format = values.format ?? "json";
  if (format !== "json" && format !== "csv") throw new CommandError(`--format must be json or csv, got ${JSON.stringify(format)}`);
  const data = await exportAccount(db, await userId(db, option(values, "email")));
  if (format === "json") {
    const text = `${JSON.stringify(data, null, 2)}\n`;
    if (values.out) writeFileSync(values.out, text, { mode: 0o600 });
    else process.stdout.write(text);
    return;
  }
  const folder = option(values, "out");
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const files = await exportCsv(data);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, name), text, { mode: 0o600 });
  console.log(JSON.stringify({ folder, files: Object.keys(files) }));
}

export async function importCommand(db: Knex, args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args, options: { email: { type: "string" } }, allowPositionals: true });
  const file = positionals[0];
  if (!file) throw new CommandError("the export file to import is required: finance-mcp import --email E FILE");
  const user = await userId(db, option(values, "email"));
  let counts: Record<string, number>;
  try {
    ({ counts } = await importFile(db, user, file));
  } catch (err) {
    if (err instanceof ImportError) throw err;
    // Never the driver's message or a stack: they can quote SQL and the file's values.
    const code = (err as { code?: unknown } | null)?.code;
    throw new ImportError(`${file}: the import failed (${typeof code === "string" ? code : "error"}); nothing was imported`);
  }
  console.log(JSON.stringify({ imported: counts }));
}

export async function backupCommand(databaseUrl: string, args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { to: { type: "string" } } });
  console.log(JSON.stringify(await backupSqlite(databaseUrl, option(values, "to"))));
}
