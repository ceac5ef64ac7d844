/**
 * The named scenarios of the one benchmark entry point, scripts/bench.ts:
 *
 *   npm run bench [-- [--scenario] NAME] [-- options of that scenario]
 *   npm run bench -- --list
 *
 * `tools` (the default, when no name is given) is the main benchmark, in scripts/bench.ts itself; every
 * other scenario is a module under scripts/bench/scenarios/ that reads its options from process.argv
 * (the name taken out) and runs when imported. Options of each: the header of its module. Questions that
 * were answered once and need no re-run are not scenarios: their answers are in docs/history/bench-*.md.
 */

export interface Scenario {
  name: string;
  /** One line for --list. */
  summary: string;
  /** Runs the scenario (its module's top level); undefined for `tools`, which is scripts/bench.ts. */
  load?: () => Promise<unknown>;
}

export const DEFAULT_SCENARIO = "tools";

export const SCENARIOS: readonly Scenario[] = [
  {
    name: "tools",
    summary: "every tool on the real server under load at 10k/100k/1M transactions, both engines, against the baselines (--quick: CI's smoke run)",
  },
  {
    name: "protocol",
    summary: "one tools/call through the whole pipeline against a bare express echo and the official SDK servers (npm run bench:protocol)",
    load: () => import("./scenarios/protocol.js"),
  },
  {
    name: "scaleout",
    summary: "1, 2, 4 server processes over one Postgres, the limits across processes, group commit (--quick: CI's smoke run)",
    load: () => import("./scenarios/scaleout.js"),
  },
  {
    name: "statements",
    summary: "each statement parser's time on the hostile shapes at several sizes: linear or not (issue 41)",
    load: () => import("./scenarios/statements.js"),
  },
  {
    name: "import",
    summary: "finance-mcp import of an N-transaction export: seconds, rows per second, CPU and peak memory",
    load: () => import("./scenarios/import.js"),
  },
  {
    name: "undo",
    summary: "undo_change's time and CPU against the rows it undoes (FINANCE_TEST_ENGINE picks the engine)",
    load: () => import("./scenarios/undo.js"),
  },
  {
    name: "recurring",
    summary: "list_recurring and a 365-day get_cash_flow_forecast in-process at 10k/100k/1M transactions: p50, CPU, statements (issue 38's 2x)",
    load: () => import("./scenarios/recurring.js"),
  },
  {
    name: "account-delete",
    summary: "counting and deleting the heavy user's account at N transactions, the other users' rows left",
    load: () => import("./scenarios/account-delete.js"),
  },
  {
    name: "fixed-answer",
    summary: "the ceiling for an answer of N bytes (and after K Postgres round trips): a bare express server under the tools scenario's load",
    load: () => import("./scenarios/fixed-answer.js"),
  },
  {
    name: "profile",
    summary: "summarises .cpuprofile files that --profile wrote: CPU by area and by function, or by job (--areas)",
    load: () => import("./scenarios/profile.js"),
  },
];

export function listScenarios(): string {
  const width = Math.max(...SCENARIOS.map((s) => s.name.length));
  return SCENARIOS.map((s) => `${s.name.padEnd(width)}  ${s.summary}${s.name === DEFAULT_SCENARIO ? " [default]" : ""}`).join("\n");
}

/**
 * The scenario named by argv (`--scenario NAME`, `--scenario=NAME` or a first argument that is not an
 * option), and argv without the name, for the scenario's own parseArgs. Throws on an unknown name.
 */
export function chooseScenario(argv: readonly string[]): { scenario: Scenario; rest: string[] } {
  const rest = [...argv];
  let name: string | undefined;
  const flag = rest.findIndex((a) => a === "--scenario" || a.startsWith("--scenario="));
  if (flag >= 0) {
    const arg = rest[flag]!;
    if (arg === "--scenario") {
      name = rest[flag + 1];
      rest.splice(flag, 2);
    } else {
      name = arg.slice("--scenario=".length);
      rest.splice(flag, 1);
    }
    if (!name || name.startsWith("-")) throw new Error(`--scenario needs a name; the scenarios:\n${listScenarios()}`);
  } else if (rest[0] !== undefined && !rest[0].startsWith("-")) {
    name = rest.shift();
  }
  name ??= DEFAULT_SCENARIO;
  const scenario = SCENARIOS.find((s) => s.name === name);
  if (!scenario) throw new Error(`no benchmark scenario named "${name}"; the scenarios:\n${listScenarios()}`);
  return { scenario, rest };
}
