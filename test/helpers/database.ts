/**
 * A fresh database per test suite: a temporary SQLite file, or a new Postgres database created on the
 * server named by PG_TEST_URL and dropped afterwards. FINANCE_TEST_ENGINE picks the engine
 * (scripts/run-tests.mjs runs the whole suite once per engine).
 *
 * - migratedTestDatabase(): the database as the server leaves it after its first start (every migration
 *   run, the help articles loaded, no users). It is a copy of a template built once for each state of
 *   the files it is made from, and kept between runs (docs/decisions.md#test-database-template).
 * - createTestDatabase(): an empty database, for the tests of migrations and of a first start.
 */
import { createHash, randomBytes } from "node:crypto";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { createDb } from "../../src/db/knex.js";
import { migrateLatest, migrationsDirectory } from "../../src/db/migrate.js";
import { DEFAULT_KB_FOLDER, seedKnowledgeBase } from "../../src/domain/knowledge/store.js";
import { packagePath } from "../../src/package-root.js";

export type Engine = "sqlite" | "postgres";

export const engine: Engine = process.env.FINANCE_TEST_ENGINE === "postgres" ? "postgres" : "sqlite";
export const PG_ADMIN_URL = process.env.PG_TEST_URL || "postgres://postgres@127.0.0.1:5432/postgres";

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** An empty database. Most tests want migratedTestDatabase(). */
export async function createTestDatabase(): Promise<TestDatabase> {
  return engine === "sqlite" ? sqliteDatabase() : postgresDatabase();
}

/** A database with every migration run and the help articles loaded, copied from the template. */
export async function migratedTestDatabase(): Promise<TestDatabase> {
  try {
    return await copyOfTemplate();
  } catch (err) {
    // The template was removed between finding and copying it (another checkout's clean-up: ENOENT on
    // SQLite, 3D000 on Postgres): built again, once.
    if (!["ENOENT", "3D000"].includes((err as { code?: string }).code ?? "")) throw err;
    postgresTemplateMemo = undefined;
    return copyOfTemplate();
  }
}

async function copyOfTemplate(): Promise<TestDatabase> {
  return engine === "sqlite" ? sqliteDatabase(await sqliteTemplate()) : postgresDatabase(await postgresTemplate());
}

// Templates are named by what built them, so a change to any of it builds a new one.
const TEMPLATE_PREFIX = "fmcp_template_";
// A template of another fingerprint unused for this long (SQLite) or built this long ago (Postgres) is
// removed when a new one is built; younger ones may belong to another checkout testing at the same time.
const STALE_TEMPLATE_MS = 24 * 3600 * 1000;
// What a template holds comes from the migrations and the help articles, and from the code that runs
// them: the database layer (migrator, row capture, full-text index), the knowledge store, and this file.
const TEMPLATE_SOURCES = [
  migrationsDirectory,
  DEFAULT_KB_FOLDER,
  packagePath("src", "db"),
  packagePath("src", "domain", "knowledge"),
  fileURLToPath(import.meta.url),
];

let fingerprintMemo: string | undefined;

/** A hash of every file a migrated test database is made from (TEMPLATE_SOURCES). */
export function templateFingerprint(): string {
  if (fingerprintMemo) return fingerprintMemo;
  const hash = createHash("sha256");
  for (const source of TEMPLATE_SOURCES) {
    if (statSync(source).isFile()) {
      hash.update(readFileSync(source));
      continue;
    }
    for (const name of (readdirSync(source, { recursive: true }) as string[]).sort()) {
      const path = join(source, name);
      if (!statSync(path).isFile()) continue;
      hash.update(`${name}\0`);
      hash.update(readFileSync(path));
    }
  }
  fingerprintMemo = hash.digest("hex").slice(0, 16);
  return fingerprintMemo;
}

/** Migrates and seeds a database, then closes every connection to it. */
async function buildTemplate(url: string): Promise<void> {
  const db = createDb(url);
  try {
    await migrateLatest(db);
    await seedKnowledgeBase(db);
    // SQLite: everything into the main file, which is what gets copied.
    if (engine === "sqlite") await db.raw("PRAGMA wal_checkpoint(TRUNCATE)");
  } finally {
    await db.destroy();
  }
}

function sqliteDatabase(template?: string): TestDatabase {
  const dir = mkdtempSync(join(tmpdir(), "fmcp-test-"));
  const file = join(dir, "test.sqlite");
  if (template) copyFileSync(template, file);
  return { url: `sqlite:${file}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

async function sqliteTemplate(): Promise<string> {
  const name = `${TEMPLATE_PREFIX}${templateFingerprint()}.sqlite`;
  const file = join(tmpdir(), name);
  if (existsSync(file)) {
    // Its time is its last use, which is what the clean-up below goes by.
    const now = new Date();
    utimesSync(file, now, now);
    return file;
  }
  // Built under another name and renamed into place: a reader never sees a half-built template, and
  // two processes building at once both rename a whole one.
  const dir = mkdtempSync(join(tmpdir(), "fmcp-template-build-"));
  try {
    await buildTemplate(`sqlite:${join(dir, "template.sqlite")}`);
    renameSync(join(dir, "template.sqlite"), file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  for (const other of readdirSync(tmpdir())) {
    if (!other.startsWith(TEMPLATE_PREFIX) || other === name) continue;
    const path = join(tmpdir(), other);
    // Another process may clean at the same moment, or the file may be another user's: left alone.
    try {
      if (Date.now() - statSync(path).mtimeMs > STALE_TEMPLATE_MS) rmSync(path, { force: true });
    } catch {
      /* not ours to remove */
    }
  }
  return file;
}

function postgresUrl(name: string): string {
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function withAdmin<T>(work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

/**
 * Postgres: runs `work` (given a session on the admin database) while the database at `url` takes no new
 * connection, its open ones kept, then lets it take them again. A test that kills a LISTEN session runs
 * its checks inside, so the session cannot come back (the change bus retries 100 ms after losing it)
 * before the test has seen it gone, however late a loaded machine lets the test look.
 */
export async function withoutNewConnections<T>(url: string, work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const name = new URL(url).pathname.slice(1);
  return withAdmin(async (admin) => {
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    try {
      return await work(admin);
    } finally {
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    }
  });
}

async function postgresDatabase(template?: string): Promise<TestDatabase> {
  const name = `fmcp_test_${randomBytes(6).toString("hex")}`;
  await withAdmin((admin) => admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ""}`));
  return {
    url: postgresUrl(name),
    drop: () => withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

let postgresTemplateMemo: string | undefined;
// The comment on a Postgres template: when it was built.
const BUILT_AT = "finance-mcp test template, built ";
// The advisory lock that lets one process at a time build a Postgres template.
const BUILD_LOCK = "hashtext('finance-mcp test template')";

async function postgresTemplate(): Promise<string> {
  if (postgresTemplateMemo) return postgresTemplateMemo;
  const name = `${TEMPLATE_PREFIX}${templateFingerprint()}`;
  await withAdmin(async (admin) => {
    // One builder at a time across processes; the others wait and then find it built.
    await admin.query(`SELECT pg_advisory_lock(${BUILD_LOCK})`);
    try {
      const found = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
      if (found.rowCount) return;
      const building = `${name}_build_${randomBytes(4).toString("hex")}`;
      await admin.query(`CREATE DATABASE ${building}`);
      try {
        await buildTemplate(postgresUrl(building));
        // Renamed only when whole: a build cut off midway leaves a name no test copies.
        await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
        await admin.query(`COMMENT ON DATABASE ${name} IS '${BUILT_AT}${new Date().toISOString()}'`);
      } catch (err) {
        await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
        throw err;
      }
      // Another fingerprint's template built more than a day ago, or a build cut off midway (no build
      // runs now: this process holds the lock). A failure (another checkout copying it) is left alone.
      const others = await admin.query<{ datname: string; note: string | null }>(
        `SELECT datname, shobj_description(oid, 'pg_database') AS note FROM pg_database
          WHERE datname LIKE '${TEMPLATE_PREFIX}%' AND datname <> $1`,
        [name],
      );
      for (const row of others.rows) {
        const builtAt = row.note?.startsWith(BUILT_AT) ? Date.parse(row.note.slice(BUILT_AT.length)) : NaN;
        if (Date.now() - builtAt <= STALE_TEMPLATE_MS) continue;
        await admin.query(`DROP DATABASE IF EXISTS ${row.datname}`).catch(() => undefined);
      }
    } finally {
      await admin.query(`SELECT pg_advisory_unlock(${BUILD_LOCK})`);
    }
  });
  postgresTemplateMemo = name;
  return name;
}
