/**
 * A mocha root hook that prints the test process's own CPU from its first test to its last: the tests'
 * work without loading the code and without child processes (docs/performance.md, "The test suite's
 * time"). Used as `mocha --require scripts/test-cpu-hook.mjs <files>`; prints `IN-PROCESS-CPU <seconds>`
 * to standard error.
 */
let start;

export const mochaHooks = {
  beforeAll() {
    start = process.cpuUsage();
  },
  afterAll() {
    const used = process.cpuUsage(start);
    process.stderr.write(`IN-PROCESS-CPU ${((used.user + used.system) / 1e6).toFixed(2)}\n`);
  },
};
