/**
 * npm run examples:fill [-- --tool NAME] [-- --dry]
 *
 * Records the server's answers into the contract's examples: replays every example in the example world,
 * in the replay's own order (test/contract/replay-plan.ts), and where an answer differs from its example by
 * value (test/contract/by-value.ts) writes the answer into the example's `result.value` in
 * contract/methods/<area>.json, then runs codegen. What a replay cannot reproduce (timestamps, audit and
 * preview ids, a minted id of the same kind) keeps the example's value, so a recorded example stays
 * readable. Examples listed in test/contract/known-gaps.ts and error examples (x-error) are left alone.
 * `--tool` records one tool's examples (a new tool's: give it `"result": {"name": "…", "value": {}}` first);
 * `--dry` prints what would change. Read the diff before committing: a recorded answer is only as true
 * as the server that gave it.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { differences } from "../test/contract/by-value.js";
import { KNOWN_GAPS } from "../test/contract/known-gaps.js";
import { replayPlan, startExampleServer } from "../test/contract/replay-plan.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const args = process.argv.slice(2);
const only = args.includes("--tool") ? args[args.indexOf("--tool") + 1] : undefined;
const dry = args.includes("--dry");

const MINTED_AT_THE_CALL = new Set(["created_at", "updated_at", "audit_id", "preview_id"]);
const ID = /^([a-z]{3}_)[A-Za-z0-9]{16,40}$/;
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** The answer, keeping the example's value wherever the replay compares nothing (what is minted at the call). */
function recorded(example: unknown, answer: unknown): unknown {
  if (Array.isArray(example) && Array.isArray(answer)) return answer.map((a, i) => (i < example.length ? recorded(example[i], a) : a));
  if (isObject(example) && isObject(answer))
    return Object.fromEntries(
      Object.entries(answer).map(([k, v]) => [k, MINTED_AT_THE_CALL.has(k) && k in example ? example[k] : k in example ? recorded(example[k], v) : v]),
    );
  if (typeof example === "string" && typeof answer === "string" && ID.test(example) && ID.exec(example)?.[1] === ID.exec(answer)?.[1]) return example;
  return answer;
}

const areaOf = (method: { "x-scope": string }) => {
  const area = method["x-scope"].split(":")[1]!;
  return area === "whoami" ? "meta" : area;
};

async function main(): Promise<void> {
  const spec = JSON.parse(readFileSync(join(root, "openrpc.json"), "utf8"));
  if (only && !spec.methods.some((m: { name: string }) => m.name === only))
    throw new Error(`--tool ${only}: no such tool in openrpc.json (run npm run codegen after adding it)`);
  const skipped = new Set(KNOWN_GAPS.map((g) => (g.example === undefined ? g.tool : `${g.tool}: ${g.example}`)));
  const changed = new Map<string, Map<string, unknown>>(); // tool → example name → recorded value
  const { server, token } = await startExampleServer();
  try {
    for (const { method, ex, params } of replayPlan(spec)) {
      const id = `${method.name}: ${ex.name}`;
      if (skipped.has(method.name) || skipped.has(id) || ex["x-error"] !== undefined) {
        if (ex["x-error"] === undefined && !skipped.has(method.name)) await server.call(method.name, params, token).catch(() => undefined);
        continue;
      }
      const answer: unknown = await server.call(method.name, params, token);
      if (only && method.name !== only) continue;
      const found = differences(ex.result.value, answer, Infinity);
      if (!found.length) continue;
      console.log(`${id}: ${found.length} difference${found.length === 1 ? "" : "s"}\n  ${found.slice(0, 8).join("\n  ")}`);
      if (!changed.has(method.name)) changed.set(method.name, new Map());
      changed.get(method.name)!.set(ex.name, recorded(ex.result.value, answer));
    }
  } finally {
    await server.close();
  }
  if (!changed.size) return console.log("every example matches the server's answer; nothing to record");
  if (dry) return console.log(`--dry: ${changed.size} tool(s) would be recorded`);
  const parts = new Map<string, { name: string; examples: { name: string; result?: { value: unknown } }[] }[]>();
  for (const [tool, examples] of changed) {
    const method = spec.methods.find((m: { name: string }) => m.name === tool);
    const path = join(root, "contract/methods", `${areaOf(method)}.json`);
    if (!parts.has(path)) parts.set(path, JSON.parse(readFileSync(path, "utf8")));
    const target = parts.get(path)!.find((m) => m.name === tool)!;
    for (const ex of target.examples) if (examples.has(ex.name) && ex.result) ex.result.value = examples.get(ex.name);
  }
  for (const [path, part] of parts) {
    writeFileSync(path, `${JSON.stringify(part, null, 2)}\n`);
    console.log(`recorded into ${path.slice(root.length)}`);
  }
  const codegen = spawnSync(process.execPath, ["--import", "tsx", join(root, "codegen/index.ts")], { stdio: "inherit", cwd: root });
  process.exitCode = codegen.status ?? 1;
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
