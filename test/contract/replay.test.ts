/**
 * Replays every example of openrpc.json against the running server, in the example world, at the
 * examples' date (2026-03-15), validates each answer against the method's result schema and compares it
 * with the example's result by value (test/contract/by-value.ts), so an example's numbers cannot be
 * invented. test/contract/known-gaps.ts is the one list of what does not hold yet, kept both ways: a tool
 * that answers not_implemented, or an example whose answer differs, fails unless it is listed, and a
 * listed one fails once it holds. A listed example must differ exactly as test/contract/known-differences.json
 * pins it (every difference, per engine where the engines answer differently), so a listed example still
 * catches a wrong answer; when a change moves one on purpose, the failure shows the new list to pin. An
 * answer that lists every tool (list_capabilities) is not pinned (null): adding a tool would move it.
 * An error example (x-error instead of result) must answer that very error, code, message and data.
 */
import { readFileSync } from "node:fs";
import { expect } from "chai";
import { toolsByName } from "../../generated/registry.js";
import { engine } from "../helpers/database.js";
import type { TestServer } from "../helpers/server.js";
import { replayPlan, startExampleServer } from "./replay-plan.js";
import { differences } from "./by-value.js";
import { KNOWN_GAPS } from "./known-gaps.js";

/** null: not pinned, because the answer lists every tool and so changes whenever one is added (list_capabilities). */
type Pinned = string[] | { sqlite: string[]; postgres: string[] } | null;
const KNOWN_DIFFERENCES = JSON.parse(readFileSync(new URL("./known-differences.json", import.meta.url), "utf8")) as Record<string, Pinned>;

const spec = JSON.parse(readFileSync(new URL("../../openrpc.json", import.meta.url), "utf8"));
const gaps = new Set(KNOWN_GAPS.filter((g) => g.example === undefined).map((g) => g.tool));
const differing = new Set(KNOWN_GAPS.filter((g) => g.example !== undefined).map((g) => `${g.tool}: ${g.example}`));

describe(`contract replay of openrpc.json examples (${engine})`, () => {
  let server: TestServer;
  let token: string;
  before(async () => {
    ({ server, token } = await startExampleServer());
  });
  after(async () => server.close());

  for (const { method, ex, params } of replayPlan(spec)) {
    {
      it(`${method.name}: ${ex.name}`, async function () {
        if (gaps.has(method.name)) {
          // A listed gap must still be one: when it works, take it off test/contract/known-gaps.ts.
          const answer = await server.rpc({ jsonrpc: "2.0", id: 1, method: method.name, params }, token);
          expect(answer.body.error?.data?.code, `${method.name} is listed as a known gap but answers`).to.equal("not_implemented");
          return;
        }
        // An error example (x-error, docs/protocol.md "Examples"): the call answers that JSON-RPC error,
        // code, message and data, by value; nothing else is compared.
        if (ex["x-error"] !== undefined) {
          const error = await server.callError(method.name, params, token);
          expect(
            method.errors.map((e: any) => e.$ref.split("/").pop()),
            "an error the method declares",
          ).to.include(ex["x-error"].name);
          expect(differences(ex["x-error"].value, error, Infinity), "the error differs from the example by value").to.deep.equal([]);
          return;
        }
        // Not listed: a stub (not_implemented) fails here like any other error.
        const result: unknown = await server.call(method.name, params, token);
        const tool = toolsByName.get(method.name)!;
        expect(tool.validateResult(structuredClone(result)), JSON.stringify(tool.validateResult.errors)).to.equal(true);
        if (method["x-kind"] === "write") {
          expect((result as { status: string }).status).to.equal(params.dry_run ? "dry_run" : "committed");
        }
        const id = `${method.name}: ${ex.name}`;
        if (differing.has(id)) {
          const found = differences(ex.result.value, result, Infinity);
          expect(found, "listed in test/contract/known-gaps.ts as differing, but the answer equals the example: take it off").not.to.be.empty;
          const pinned = KNOWN_DIFFERENCES[id];
          if (pinned !== null)
            expect(found, `the differences pinned for ${id} in test/contract/known-differences.json`).to.deep.equal(
              Array.isArray(pinned) ? pinned : pinned?.[engine],
            );
        } else
          expect(
            differences(ex.result.value, result),
            `the answer differs from the example by value. If the server is right, record its answer into the contract with \`npm run examples:fill\` (it rewrites this example in contract/methods/*.json), read the diff and commit; the answer was:\n${JSON.stringify(result, null, 2)}\n`,
          ).to.deep.equal([]);
      });
    }
  }
});

describe("test/contract/known-differences.json", () => {
  it("pins the differences of exactly the examples listed as differing", () => {
    expect(Object.keys(KNOWN_DIFFERENCES).sort()).to.deep.equal([...differing].sort());
  });
  it("pins at most 5 examples (issue 42): correct an example to the server's answer, or make the example world hold what it shows", () => {
    expect([...differing]).to.have.length.at.most(5);
  });
});
