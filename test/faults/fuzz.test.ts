/**
 * A property-based fuzz of every tool (test/faults/fuzz.ts) as part of npm test, bounded:
 * FUZZ_COUNT inputs (default 2,000) with a fixed seed (FUZZ_SEED), so a failure is reproducible.
 * `npm run fuzz` runs the same with 100,000 inputs (scripts/fuzz.ts; figures in docs/reliability.md).
 */
import { expect } from "chai";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";
import { runFuzz, seedFuzzUser, type IdPool } from "./fuzz.js";

const COUNT = Number(process.env.FUZZ_COUNT ?? 2000);
const SEED = Number(process.env.FUZZ_SEED ?? 14);

describe(`faults: fuzzed input never gets a 5xx or internal_error (${engine})`, function () {
  this.timeout(600_000);
  let server: TestServer;
  let user: TestUser;
  let pool: IdPool;

  before(async () => {
    server = await startTestServer();
    user = await server.createUser();
    pool = await seedFuzzUser(server, user);
  });
  after(async () => server?.close());

  it(`${COUNT} inputs from every tool's input schema plus hostile mutations (seed ${SEED})`, async () => {
    const report = await runFuzz(server, user, pool, { count: COUNT, seed: SEED });
    expect(report.tried).to.equal(COUNT);
    expect(report.failures, JSON.stringify(report.failures.slice(0, 3), null, 2)).to.deep.equal([]);
    // Still serving after all of it.
    expect((await server.call("whoami", {}, user.token)).user_id ?? "answered").to.be.a("string");
  });
});
