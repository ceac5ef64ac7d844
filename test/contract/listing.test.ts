/**
 * The files directories read, generated from the spec (codegen/emit-server-json.ts): server.json for the
 * official MCP registry validates against the registry's published 2025-12-11 schema, kept in
 * codegen/listing/ byte for byte (its SHA-256 pinned), and says what package.json and the server say.
 * `npm run codegen:check` holds the committed file to what codegen makes of openrpc.json and package.json.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { Ajv } from "ajv";
import addFormatsModule from "ajv-formats";
import { emitServerJson, SERVER_SCHEMA_URL } from "../../codegen/emit-server-json.js";
import { MCP_PATH } from "../../src/oauth/urls.js";
import { PRIVACY_PATH } from "../../src/web/privacy-page.js";

const read = (path: string) => readFileSync(fileURLToPath(new URL(`../../${path}`, import.meta.url)));
const json = (path: string) => JSON.parse(read(path).toString("utf8")) as Record<string, any>;
// The live https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json: a newer schema is
// a deliberate change of the file and this pin together.
const SCHEMA_SHA256 = "3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0";
const SCHEMA_FILE = "codegen/listing/server.schema.2025-12-11.json";
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => void;

function validator() {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  return ajv.compile(json(SCHEMA_FILE));
}

describe("server.json, the MCP registry's entry", () => {
  const entry = json("server.json");
  const pkg = json("package.json");
  const spec = json("openrpc.json");

  it("is checked against the registry's published 2025-12-11 schema, kept unchanged", () => {
    expect(createHash("sha256").update(read(SCHEMA_FILE)).digest("hex")).to.equal(SCHEMA_SHA256);
    expect(json(SCHEMA_FILE).$id).to.equal(SERVER_SCHEMA_URL);
    expect(entry.$schema).to.equal(SERVER_SCHEMA_URL);
  });

  it("validates against that schema", () => {
    const validate = validator();
    expect(validate(entry), JSON.stringify(validate.errors)).to.equal(true);
  });

  it("says what package.json and the server say: name, version, npm package, MCP URL, privacy page", () => {
    expect(entry.name).to.equal(pkg.mcpName);
    expect(entry.version).to.equal(pkg.version);
    expect(entry.packages[0]).to.include({ registryType: "npm", identifier: pkg.name, version: pkg.version });
    expect(entry.packages[0].transport.url).to.equal(`http://localhost:{PORT}${MCP_PATH}`);
    expect(entry.remotes[0]).to.include({ type: "streamable-http", url: `https://{host}${MCP_PATH}` });
    expect(entry._meta["io.modelcontextprotocol.registry/publisher-provided"].privacyPolicyUrl).to.equal(`https://{host}${PRIVACY_PATH}`);
    expect(entry.description).to.equal(spec.info["x-listing"].description);
  });

  it("follows the spec: a new description changes it, and one past the registry's 100 characters stops codegen", () => {
    const paths = { mcp: MCP_PATH, privacy: PRIVACY_PATH };
    const changed = structuredClone(spec);
    changed.info["x-listing"].description = "Money, for chatbots.";
    const out = JSON.parse(emitServerJson(changed, pkg as never, paths)) as Record<string, unknown>;
    expect(out.description).to.equal("Money, for chatbots.");
    expect(validator()(out)).to.equal(true);
    changed.info["x-listing"].description = "x".repeat(101);
    expect(() => emitServerJson(changed, pkg as never, paths)).to.throw("1 to 100 characters");
    // And what the schema refuses, the check catches: a name without its namespace.
    expect(validator()({ ...out, name: "finance-mcp" })).to.equal(false);
  });
});
