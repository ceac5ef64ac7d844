/**
 * Runs baseline servers (scripts/bench/baselines.ts) in this process:
 *   node --import tsx scripts/bench/baseline-server.ts <echo|sdk-v1|sdk-v2> [more kinds…]
 * Each listens on its own ephemeral loopback port; prints {"ports":{"echo":N,…}} on stdout, exits on
 * SIGTERM/SIGINT or when its parent goes away (stdin closes). `npm run bench` starts one process per
 * kind; --quick starts one process for all three (they are measured one at a time either way).
 */
import { BASELINE_KINDS, startBaseline, type BaselineKind, type RunningBaseline } from "./baselines.js";

const kinds = process.argv.slice(2) as BaselineKind[];
if (kinds.length === 0 || !kinds.every((k) => BASELINE_KINDS.includes(k))) {
  console.error(`usage: baseline-server.ts <${BASELINE_KINDS.join("|")}> [...]`);
  process.exit(2);
}
const running: RunningBaseline[] = [];
for (const kind of kinds) running.push(await startBaseline(kind, 0, "127.0.0.1"));
process.stdout.write(`${JSON.stringify({ ports: Object.fromEntries(running.map((r) => [r.kind, r.port])) })}\n`);

const stop = () => {
  void Promise.all(running.map((r) => r.close())).then(() => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref();
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
// The bench keeps our stdin open; when it dies without cleaning up, the pipe closes and we follow.
process.stdin.on("end", stop);
process.stdin.on("error", stop);
process.stdin.resume();
