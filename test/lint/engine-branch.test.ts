/**
 * No engine branch outside src/db (issue 42, docs/decisions.md#engine-facts-in-src-db): ESLint refuses,
 * in any file of src/ but src/db, the engine's identity (`dialect`, `dialectOf` from src/db/knex.ts), a
 * comparison with an engine's name and knex's client; src/db itself may. The drivers are held by the
 * layering rules (test/lint/architecture.test.ts, engine-drivers-in-db).
 */
import { expect } from "chai";
import { ESLint } from "eslint";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

async function rulesHit(code: string, file: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: root });
  const [result] = await eslint.lintText(code, { filePath: `${root}/${file}` });
  return result!.messages.map((m) => m.ruleId ?? m.message);
}

const ASKS_THE_ENGINE = `import type { Knex } from "knex";
import { dialect } from "../db/knex.js";
export const serial = (db: Knex) => dialect(db) === "sqlite";
`;

describe("the engine-branch lint rule", function () {
  this.timeout(60_000);

  it("refuses asking for the engine outside src/db, in infrastructure and in domain code", async () => {
    expect(await rulesHit(ASKS_THE_ENGINE, "src/writes/example.ts")).to.include.members(["no-restricted-imports", "no-restricted-syntax"]);
    expect(await rulesHit(ASKS_THE_ENGINE.replace("../db/", "../../db/"), "src/domain/budgets/example.ts")).to.include("no-restricted-imports");
  });

  it("refuses an engine name compared or switched on, and knex's client, whatever the flag's source", async () => {
    const compared = `export const pg = (engine: string) => engine !== "postgres";\n`;
    expect(await rulesHit(compared, "src/http/example.ts")).to.deep.equal(["no-restricted-syntax"]);
    const switched = `export function f(engine: string) {\n  switch (engine) {\n    case "sqlite":\n      return 1;\n    default:\n      return 2;\n  }\n}\n`;
    expect(await rulesHit(switched, "src/events/example.ts")).to.deep.equal(["no-restricted-syntax"]);
    const client = `import type { Knex } from "knex";\nexport const cfg = (deps: { db: Knex }) => deps.db.client.config as unknown;\n`;
    expect(await rulesHit(client, "src/metrics/example.ts")).to.deep.equal(["no-restricted-syntax"]);
  });

  it("lets src/db ask, and passes a named helper's call outside it", async () => {
    expect(await rulesHit(ASKS_THE_ENGINE.replace("../db/knex.js", "./knex.js"), "src/db/example.ts")).to.deep.equal([]);
    const helper = `import type { Knex } from "knex";\nimport { writesAreSerial } from "../db/engine.js";\nexport const serial = (db: Knex) => writesAreSerial(db);\n`;
    expect(await rulesHit(helper, "src/writes/example.ts")).to.deep.equal([]);
  });
});
