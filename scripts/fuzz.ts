/**
 * npm run fuzz [-- --count N] [--seed S] [--engine sqlite|postgres] [--concurrency C]
 *
 * The fuzz of test/faults/fuzz.ts at scale (default 100,000 inputs) against a real server on loopback
 * over a fresh database of the chosen engine (FINANCE_TEST_ENGINE, or --engine; Postgres at PG_TEST_URL).
 * Prints progress and a JSON summary; exits 1 when any input got a 5xx, an internal_error or no answer.
 * Its figures go to docs/reliability.md.
 */
const args = process.argv.slice(2);
const arg = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const engineArg = arg("engine");
if (engineArg) process.env.FINANCE_TEST_ENGINE = engineArg;
const count = Number(arg("count") ?? process.env.FUZZ_COUNT ?? 100_000);
const seed = Number(arg("seed") ?? process.env.FUZZ_SEED ?? 14);
const concurrency = Number(arg("concurrency") ?? 4);

// Imported after FINANCE_TEST_ENGINE is set: test/helpers/database.ts reads it once.
const { engine } = await import("../test/helpers/database.js");
const { startTestServer } = await import("../test/helpers/server.js");
const { runFuzz, seedFuzzUser } = await import("../test/faults/fuzz.js");

/** Heap in use after a full collection when node runs with --expose-gc (npm run fuzz sets it), else RSS. */
const memoryMiB = () => {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) gc();
  return Math.round((gc ? process.memoryUsage().heapUsed : process.memoryUsage().rss) / 2 ** 20);
};

const server = await startTestServer();
try {
  const user = await server.createUser();
  const pool = await seedFuzzUser(server, user);
  const memoryBefore = memoryMiB();
  let last = Date.now();
  const report = await runFuzz(server, user, pool, {
    count,
    seed,
    concurrency,
    onProgress: (done) => {
      if (Date.now() - last > 10_000 || done === count) {
        last = Date.now();
        process.stderr.write(`fuzz ${engine}: ${done}/${count}\n`);
      }
    },
  });
  const alive = (await server.call("whoami", {}, user.token)) !== undefined;
  const summary = {
    engine,
    seed,
    tried: report.tried,
    accepted: report.accepted,
    refused: report.refused,
    failed: report.failed,
    still_serving: alive,
    seconds: Math.round(report.seconds),
    // Client and server share this process: growth of the heap after GC would be a leak of either.
    [(globalThis as { gc?: unknown }).gc ? "heap_after_gc_growth_mib" : "rss_growth_mib"]: memoryMiB() - memoryBefore,
    first_failures: report.failures.slice(0, 5),
  };
  console.log(JSON.stringify(summary, null, 2));
  process.exitCode = report.failed === 0 && alive ? 0 : 1;
} finally {
  await server.close();
}
