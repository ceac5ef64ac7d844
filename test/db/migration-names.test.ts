/**
 * Migration names have one width from now on (docs/decisions.md#migration-name-width): a new migration is
 * named `YYYYMMDDHHMMSS_what_it_does.js`, a real moment in time. The five first migrations keep their
 * 12-digit names: knex records each name in `knex_migrations` and refuses to run when a recorded name has
 * no file, so renaming them would stop every existing database (and the knex CLI, knexfile.js) from migrating.
 */
import { readdirSync } from "node:fs";
import { expect } from "chai";
import { migrationsDirectory } from "../../src/db/migrate.js";

/** Named before the width was fixed; recorded under these names in every existing database. */
const TWELVE_DIGITS = [
  "202611210001_create_core_tables.js",
  "202611210501_add_transaction_keys.js",
  "202611210601_add_goal_contribution_wallet.js",
  "202611220001_add_wallet_month_totals.js",
  "202611220101_add_expense_day_totals.js",
];

const NAME = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})_[a-z0-9]+(_[a-z0-9]+)*\.js$/;

describe("migration names", () => {
  const files = readdirSync(migrationsDirectory).filter((f) => f.endsWith(".js"));

  it("name every new migration YYYYMMDDHHMMSS_snake_case.js, a real moment", () => {
    const wrong = files
      .filter((f) => !TWELVE_DIGITS.includes(f))
      .filter((f) => {
        const m = NAME.exec(f);
        if (!m) return true;
        const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
        const at = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
        return at.getUTCMonth() !== mo - 1 || at.getUTCDate() !== d || h > 23 || mi > 59 || s > 59;
      });
    expect(wrong, "rename to YYYYMMDDHHMMSS_what_it_does.js (14 digits; docs/decisions.md#migration-name-width)").to.deep.equal([]);
  });

  it("keep the five 12-digit names as recorded, first in order", () => {
    expect(files.filter((f) => /^\d{12}_/.test(f))).to.deep.equal(TWELVE_DIGITS);
    // knex runs files in name order: the 12-digit names (2026-11-21/22) sort before every 14-digit one.
    expect([...files].sort().slice(0, TWELVE_DIGITS.length)).to.deep.equal(TWELVE_DIGITS);
  });
});
