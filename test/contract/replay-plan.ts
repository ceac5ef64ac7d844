/**
 * What the example replay runs and in which order, shared by test/contract/replay.test.ts (which compares
 * each answer with its example) and scripts/examples-fill.ts (which records the answers into the contract's
 * parts). One plan, so the recorded answer is the one the replay will see.
 */
import { startTestServer, type TestServer } from "../helpers/server.js";
import { seedExampleWorld } from "./example-world.js";

type Any = any;

export interface PlannedExample {
  method: Any;
  ex: Any;
  params: Record<string, unknown>;
}

/** The example world's server, at the examples' date (2026-03-15), and the token of its person. */
export async function startExampleServer(): Promise<{ server: TestServer; token: string }> {
  // The examples' server address (whoami's account_url), as a deployment names it.
  const server = await startTestServer({ PUBLIC_URL: "https://finance.example.com" }, { now: () => new Date("2026-03-15T12:00:00Z") });
  return { server, token: await seedExampleWorld(server) };
}

/**
 * Reads first, then the dry runs (a delete's preview shows the record as the world has it), then the
 * writes that commit, so that no example sees another's change; otherwise in the spec's order. A preview
 * that names what becomes of refunds lists the refund create_transaction's example commits: it runs with
 * the commits, in spec order (after it).
 */
export function replayPlan(spec: Any): PlannedExample[] {
  const afterCommits = (ex: Any) => ex.params.some((p: Any) => p.name === "refunds");
  const stage = (method: Any, ex: Any) =>
    method["x-kind"] === "read" ? 0 : ex.params.some((p: Any) => p.name === "dry_run" && p.value === true) && !afterCommits(ex) ? 1 : 2;
  return spec.methods
    .flatMap((method: Any) => method.examples.map((ex: Any) => ({ method, ex })))
    .map((e: Any, i: number) => ({ ...e, i }))
    .sort((a: Any, b: Any) => stage(a.method, a.ex) - stage(b.method, b.ex) || a.i - b.i)
    .map(({ method, ex }: Any) => ({ method, ex, params: Object.fromEntries(ex.params.map((p: Any) => [p.name, p.value])) }));
}
