// For the knex CLI (`npx knex migrate:latest`, `npx knex migrate:rollback --all`): the same database
// and migrations as the server. DATABASE_URL as in README.md; default sqlite:data/finance.sqlite.
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";

const url = process.env.DATABASE_URL || "sqlite:data/finance.sqlite";
const migrations = { directory: "./migrations", loadExtensions: [".js"], tableName: "knex_migrations" };

function config() {
  if (/^postgres(ql)?:\/\//.test(url)) return { client: "pg", connection: url, migrations };
  const filename = url.slice("sqlite:".length).replace(/^\/\//, "");
  if (filename !== ":memory:") mkdirSync(dirname(resolve(filename)), { recursive: true });
  return { client: "better-sqlite3", connection: { filename }, useNullAsDefault: true, migrations };
}

export default config();
