/**
 * Pins the contract: openrpc.json is a valid OpenRPC document, holds the service description's 29 tools
 * with their scopes and kinds (tools added since are allowed), and every example validates against its method's schemas
 * (through the same generated validators the server uses).
 */
import { existsSync, readFileSync } from "node:fs";
import { expect } from "chai";
import { validateOpenRPCDocument } from "@open-rpc/schema-utils-js";
import { tools, toolsByName } from "../../generated/registry.js";

const spec = JSON.parse(readFileSync(new URL("../../openrpc.json", import.meta.url), "utf8"));
const expectedTools: { name: string; scope: string; kind: string }[] = JSON.parse(
  readFileSync(new URL("../fixtures/service-description-tools.json", import.meta.url), "utf8"),
);

describe("openrpc.json", () => {
  it("is a valid OpenRPC 1.3.2 document", () => {
    expect(spec.openrpc).to.equal("1.3.2");
    expect(validateOpenRPCDocument(structuredClone(spec))).to.equal(true);
  });

  it("refuses a wrong x-scope or x-kind value (declared under x-extensions)", () => {
    for (const [key, value] of [
      ["x-scope", "read:everything"],
      ["x-kind", "maybe"],
    ]) {
      const broken = structuredClone(spec);
      broken.methods[0][key!] = value;
      expect(validateOpenRPCDocument(broken), `${key}=${value}`).not.to.equal(true);
    }
  });

  it("declares every tool of the service description with its scope and kind (tools added since are allowed)", () => {
    const actual = new Map(spec.methods.map((m: any) => [m.name, { name: m.name, scope: m["x-scope"], kind: m["x-kind"] }]));
    for (const t of expectedTools) expect(actual.get(t.name), t.name).to.deep.equal(t);
    expect(expectedTools.filter((t) => t.kind === "read")).to.have.length(13);
    expect(expectedTools.filter((t) => t.kind === "write")).to.have.length(16);
  });

  it("gives every tool a kind that matches its scope (write scopes for writes, read or meta scopes for reads)", () => {
    for (const m of spec.methods as any[]) expect(m["x-kind"], m.name).to.equal(m["x-scope"].startsWith("write:") ? "write" : "read");
  });

  it("matches the service description itself when it is beside the checkout", function () {
    const path = new URL("../../../shared/service-description.md", import.meta.url);
    if (!existsSync(path)) this.skip();
    const text = readFileSync(path, "utf8");
    for (const t of expectedTools) expect(text, t.name).to.match(new RegExp(`\\| ${t.name} \\|(?:[^\\n]*\\|)? ${t.scope} \\|`));
  });

  for (const method of spec.methods as any[]) {
    describe(method.name, () => {
      const tool = toolsByName.get(method.name)!;

      it("has a description for a language model, a summary and at least one example", () => {
        expect(method.summary).to.be.a("string").and.not.empty;
        expect(method.description.length).to.be.greaterThan(80);
        expect(method.examples).to.be.an("array").that.is.not.empty;
      });

      it("has examples whose params and result validate against its schemas", () => {
        for (const example of method.examples) {
          const params = Object.fromEntries(example.params.map((p: any) => [p.name, structuredClone(p.value)]));
          expect(tool.validateParams(params), `${example.name} params: ${JSON.stringify(tool.validateParams.errors)}`).to.equal(true);
          if (example["x-error"] !== undefined) {
            // An error example: no result, the JSON-RPC error of one of the method's errors.
            expect(example.result, `${example.name}: an error example has no result`).to.equal(undefined);
            const error = example["x-error"];
            const declared = method.errors.map((e: any) => e.$ref.split("/").pop());
            expect(declared, `${example.name}: x-error names an error of the method`).to.include(error.name);
            expect(error.value.code).to.equal(spec.components.errors[error.name].code);
            expect(error.value.data).to.deep.include({ code: error.name, retryable: spec.components.errors[error.name].data.retryable });
            continue;
          }
          const result = structuredClone(example.result.value);
          expect(tool.validateResult(result), `${example.name} result: ${JSON.stringify(tool.validateResult.errors)}`).to.equal(true);
        }
      });

      it("is in the registry with self-contained MCP schemas (refs only into their own $defs)", () => {
        for (const schema of [tool.inputSchema, tool.outputSchema] as any[]) {
          for (const [, name] of JSON.stringify(schema).matchAll(/"\$ref":"([^"]*)"/g)) {
            expect(name).to.match(/^#\/\$defs\/[A-Za-z]+$/);
            expect(schema.$defs, name).to.have.property(name!.slice("#/$defs/".length));
          }
        }
        expect(tool.inputSchema.type).to.equal("object");
        expect(tool.outputSchema.type).to.equal("object");
      });

      it("states all four annotations, each agreeing with x-kind and what the tool does", () => {
        const a = tool.annotations;
        // Explicit, never left to MCP's defaults (destructive, open world): hosts' app reviews reject a missing hint.
        expect(Object.keys(a).sort()).to.deep.equal(["destructiveHint", "idempotentHint", "openWorldHint", "readOnlyHint"]);
        for (const hint of Object.values(a)) expect(hint).to.be.a("boolean");
        expect(a.openWorldHint, "only the user's own ledger").to.equal(false);
        expect(a.readOnlyHint).to.equal(method["x-kind"] === "read");
        if (method["x-kind"] === "read") {
          expect(a.destructiveHint).to.equal(false);
          expect(a.idempotentHint).to.equal(true);
          return;
        }
        // A write is idempotent because its required idempotency_key makes a repeat a replay.
        expect(tool.inputSchema.required).to.include("idempotency_key");
        expect(a.idempotentHint).to.equal(true);
        const verb = method.name.split("_")[0];
        if (verb === "delete") expect(a.destructiveHint, "deletes are destructive").to.equal(true);
        else if (verb === "update") expect(a.destructiveHint, "an update overwrites what the user had").to.equal(true);
        else if (method["x-destructive"] === true) expect(a.destructiveHint, `${method.name}: x-destructive, it can delete or overwrite`).to.equal(true);
        else expect(a.destructiveHint, `${verb}: only adds`).to.equal(false);
      });
    });
  }

  it("lists the registry in spec order", () => {
    expect(tools.map((t) => t.name)).to.deep.equal(spec.methods.map((m: any) => m.name));
  });
});
