/**
 * The error table is stated once, in components/errors of openrpc.json, and everything else agrees with
 * it: generated/errors.ts (which the code reads: AppError's code, retryable and HTTP status),
 * docs/errors.md's table (code, data.code, HTTP status of a direct call, retryable), and the split of
 * errors over MCP (4xx statuses keep their JSON-RPC form; the rest become isError tool results).
 */
import { readFileSync } from "node:fs";
import { expect } from "chai";
import { errorTable, type ErrorName } from "../../generated/errors.js";
import { AppError } from "../../src/errors.js";
import { isTransportError } from "../../src/mcp/tool-result.js";

const spec = JSON.parse(readFileSync(new URL("../../openrpc.json", import.meta.url), "utf8"));
const docs = readFileSync(new URL("../../docs/errors.md", import.meta.url), "utf8");

/** docs/errors.md rows: | code | data.code | HTTP | meaning | what to do | retryable | */
const documented = new Map(
  [...docs.matchAll(/^\| (-\d+) \| ([a-z_]+) \| (\d{3}) \|.*\| (yes|no) \|$/gm)].map((m) => [
    m[2]!,
    { code: Number(m[1]), httpStatus: Number(m[3]), retryable: m[4] === "yes" },
  ]),
);

describe("the error table: spec, code and docs/errors.md agree", () => {
  const names = Object.keys(spec.components.errors) as ErrorName[];

  it("generates exactly the spec's errors, with x-http-status (default 200) and retryable", () => {
    expect(Object.keys(errorTable).sort()).to.deep.equal([...names].sort());
    for (const name of names) {
      const e = spec.components.errors[name];
      expect(errorTable[name], name).to.deep.include({ code: e.code, message: e.message, httpStatus: e["x-http-status"] ?? 200 });
      expect(errorTable[name].data, name).to.deep.equal(e.data);
    }
  });

  it("AppError answers each error's code, retryability and HTTP status from the table", () => {
    for (const name of names) {
      const err = new AppError(name, "m");
      expect([err.code, err.retryable, err.httpStatus], name).to.deep.equal([
        errorTable[name].code,
        errorTable[name].data.retryable,
        errorTable[name].httpStatus,
      ]);
      expect(err.toData(), name).to.include({ code: name, retryable: errorTable[name].data.retryable });
    }
  });

  it("documents every error in docs/errors.md with the same code, HTTP status and retryability", () => {
    expect([...documented.keys()].sort()).to.deep.equal([...names].sort());
    for (const name of names) {
      expect(documented.get(name), name).to.deep.equal({
        code: errorTable[name].code,
        httpStatus: errorTable[name].httpStatus,
        retryable: errorTable[name].data.retryable,
      });
    }
  });

  it("keeps exactly the 4xx errors in JSON-RPC form over MCP", () => {
    const transport = names.filter((n) => isTransportError(new AppError(n, "m")));
    expect(transport.sort()).to.deep.equal(["insufficient_scope", "rate_limited", "unauthorized"]);
  });
});
