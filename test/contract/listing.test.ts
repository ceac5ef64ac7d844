/**
 * The files directories read, generated from the spec (codegen/emit-server-json.ts): server.json for the
 * official MCP registry validates against the registry's published 2025-12-11 schema, kept in
 * codegen/listing/ byte for byte (its SHA-256 pinned), and says what package.json and the server say;
 * chatgpt-app-submission.json validates against the chatgpt-app-submission.v1 schema and the importer's
 * rules, its hints being tools/list's; and what Claude's directory checks of the tools holds.
 * `npm run codegen:check` holds the committed file to what codegen makes of openrpc.json and package.json.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { emitChatgptSubmission, SUBMISSION_SCHEMA_URL } from "../../codegen/emit-chatgpt-submission.js";
import { annotations } from "../../codegen/emit-registry.js";
import { emitServerJson, SERVER_SCHEMA_URL } from "../../codegen/emit-server-json.js";
import { isOneSentence, loadSpec } from "../../codegen/load.js";
import { tools } from "../../generated/registry.js";
import { loadConfig } from "../../src/config.js";
import { MCP_PATH } from "../../src/oauth/urls.js";
import { defaultPrivacyText } from "../../src/web/privacy-text.js";

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
    expect(entry._meta["io.modelcontextprotocol.registry/publisher-provided"].privacyPolicyUrl).to.equal(`${entry.repository.url}/blob/main/PRIVACY.md`);
    expect(read("PRIVACY.md").toString("utf8")).to.include(defaultPrivacyText(loadConfig({})));
    expect(entry.description).to.equal(spec.info["x-listing"].description);
  });

  it("names a package the registry accepts: public, licensed, its repository in the mcpName's GitHub namespace", () => {
    expect(pkg.private, "the registry's ownership check reads the published package").to.not.equal(true);
    expect(pkg.license).to.equal("MIT");
    expect(read("LICENSE").toString("utf8")).to.match(/^MIT License/);
    const [, owner, name] = /^io\.github\.([^/]+)\/(.+)$/.exec(pkg.mcpName) ?? [];
    expect(owner, "mcpName is io.github.<owner>/<name>").to.be.a("string");
    expect(entry.repository).to.deep.equal({ url: `https://github.com/${owner}/${name}`, source: "github" });
    expect(pkg.repository.url).to.equal(`git+https://github.com/${owner}/${name}.git`);
  });

  it("holds only URLs a reader can open, or a template whose variables the schema's transports define", () => {
    const urls: { path: string; url: string }[] = [];
    const walk = (v: unknown, path: string) => {
      if (typeof v === "string" && /^[a-z]+:\/\//.test(v)) urls.push({ path, url: v });
      else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, `${path}.${k}`);
    };
    walk({ ...entry, $schema: undefined }, "");
    expect(urls.length).to.be.greaterThan(3);
    for (const { path, url } of urls) {
      const vars = [...url.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      if (vars.length === 0) {
        expect(url, path).to.match(/^https:\/\/[^\s]+$/);
        continue;
      }
      // remotes[i].url: its own `variables`; packages[i].transport.url: the package's environment variables.
      const remote = /^\.remotes\.(\d+)\.url$/.exec(path);
      const transport = /^\.packages\.(\d+)\.transport\.url$/.exec(path);
      const defined = remote
        ? Object.keys(entry.remotes[Number(remote[1])].variables ?? {})
        : transport
          ? entry.packages[Number(transport[1])].environmentVariables.map((e: { name: string }) => e.name)
          : [];
      expect(defined, `${path}: ${url} uses template variables where the schema defines none`).to.include.members(vars);
    }
  });

  it("follows the spec: a new description changes it, and one past the registry's 100 characters stops codegen", () => {
    const paths = { mcp: MCP_PATH };
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

describe("chatgpt-app-submission.json, ChatGPT's app review import", () => {
  const submission = json("chatgpt-app-submission.json");
  const spec = json("openrpc.json");
  const validate = () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    return ajv.compile(json("codegen/listing/chatgpt-app-submission.v1.schema.json"));
  };

  it("validates against the chatgpt-app-submission.v1 schema", () => {
    const check = validate();
    expect(check(submission), JSON.stringify(check.errors)).to.equal(true);
    expect(submission.$schema).to.equal(SUBMISSION_SCHEMA_URL);
  });

  it("follows the importer's rules: every tool with three hints and three justifications, none null; lengths; the category", () => {
    expect(Object.keys(submission.tools)).to.deep.equal(tools.map((t) => t.name));
    for (const t of tools) {
      const entry = submission.tools[t.name];
      for (const hint of ["readOnlyHint", "openWorldHint", "destructiveHint"]) {
        expect(entry.annotations[hint], `${t.name} ${hint}`).to.be.a("boolean");
        expect(entry.annotations[hint], `${t.name} ${hint}, as tools/list says`).to.equal(t.annotations[hint]);
      }
      for (const j of Object.values(entry.justifications)) expect(isOneSentence(j as string), `${t.name}: ${String(j)}`).to.equal(true);
    }
    expect(submission.app_info.subtitle.length).to.be.at.most(30);
    expect(submission.app_info.category).to.equal("FINANCE");
    expect(submission.app_info.display_name).not.to.match(/(mcp|mcp server|plugin)$/i);
    expect(submission.test_cases).to.have.length(5);
    expect(submission.negative_test_cases).to.have.length(3);
    for (const c of submission.negative_test_cases) expect(c.tools_triggered).to.equal(null);
  });

  it("draws its test cases from the spec's examples: each positive case triggers the tool of its example", () => {
    for (const [i, c] of (spec.info["x-listing"].test_cases as { example: string }[]).entries()) {
      const [tool, example] = c.example.split("/");
      const method = spec.methods.find((m: { name: string }) => m.name === tool);
      expect(
        method?.examples.map((e: { name: string }) => e.name),
        c.example,
      ).to.include(example);
      expect(submission.test_cases[i].tools_triggered).to.equal(tool);
    }
    // Moving money between banks is the kind of request the server cannot serve.
    expect(submission.negative_test_cases.map((c: { user_prompt: string }) => c.user_prompt).join(" ")).to.match(/send|transfer/i);
  });

  it("changes with a tool's hint in openrpc.json: x-destructive moves tools/list's annotation and the submission's together", async () => {
    const changed = structuredClone(spec);
    const method = changed.methods.find((m: { name: string }) => m.name === "create_goal");
    method["x-destructive"] = true;
    const dir = mkdtempSync(join(tmpdir(), "fmcp-listing-"));
    try {
      writeFileSync(join(dir, "openrpc.json"), JSON.stringify(changed));
      const loaded = await loadSpec(join(dir, "openrpc.json"));
      const out = JSON.parse(emitChatgptSubmission(loaded)) as Record<string, any>;
      expect(out.tools.create_goal.annotations.destructiveHint).to.equal(true);
      expect(annotations(loaded.methods.find((m) => m.name === "create_goal")!).destructiveHint).to.equal(true);
      expect(submission.tools.create_goal.annotations.destructiveHint).to.equal(false);
      // A justification of two sentences, or none, stops codegen.
      method["x-justification"] = "Adds a goal. Nothing else.";
      writeFileSync(join(dir, "openrpc.json"), JSON.stringify(changed));
      let refused = "";
      await loadSpec(join(dir, "openrpc.json")).catch((err: Error) => (refused = err.message));
      expect(refused).to.include("create_goal").and.include("x-justification must be one sentence");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("what Claude's connectors directory checks, from the generated registry", () => {
  it("every tool has a name of at most 64 characters, a title and all four hints; OAuth is on by default", () => {
    for (const t of tools) {
      expect(t.name.length, t.name).to.be.at.most(64);
      expect(t.title, t.name).to.match(/\S/);
      expect(Object.keys(t.annotations).sort(), t.name).to.deep.equal(["destructiveHint", "idempotentHint", "openWorldHint", "readOnlyHint"]);
    }
    // A static bearer token alone blocks a listing: OAuth is what a fresh server offers.
    expect(loadConfig({}).oauth.enabled).to.equal(true);
  });
});

describe("the directory screenshots (npm run screenshots)", () => {
  it("are 3 to 5 PNGs at least 1,000 px wide, the forecast among them (issue 52)", () => {
    const dir = fileURLToPath(new URL("../../docs/screenshots/directory/", import.meta.url));
    const files = readdirSync(dir).filter((f) => f.endsWith(".png"));
    expect(files.length).to.be.within(3, 5);
    expect(files).to.include("app-forecast.png");
    for (const f of files) {
      const head = readFileSync(join(dir, f)).subarray(0, 24);
      expect(head.subarray(1, 4).toString("latin1"), f).to.equal("PNG");
      expect(head.readUInt32BE(16), `${f} width`).to.be.at.least(1000);
    }
  });
});
