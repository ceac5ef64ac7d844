/**
 * The layering rules of .dependency-cruiser.cjs can fail: each is run on a small fixture tree that
 * breaks it (an import cycle through a type-only import, domain code importing a transport, a tool
 * importing another tool, domain code asking for the dialect, a driver imported outside src/db), and on the real tree, which must pass. `npm run lint` runs the same rules.
 * Areas (a folder of src/, or of src/domain/) must not import each other in a cycle either: module
 * cycles are dependency-cruiser's rule; area cycles are computed here from its graph.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";

const root = fileURLToPath(new URL("../..", import.meta.url));
const depcruise = join(root, "node_modules/dependency-cruiser/bin/dependency-cruise.mjs");

function cruise(cwd: string, ...paths: string[]) {
  return spawnSync(process.execPath, [depcruise, "--config", join(root, ".dependency-cruiser.cjs"), ...paths], { cwd, encoding: "utf8" });
}

/** The area of a module: src/domain/<area>, or src/<folder>; undefined for src/*.ts. */
function areaOf(path: string): string | undefined {
  return /^src\/domain\/([^/]+)\//.exec(path)?.[0].slice(4, -1) ?? /^src\/([^/]+)\//.exec(path)?.[1];
}

/** Cycles between areas, each as the list of its areas (Tarjan's strongly connected components). */
function areaCycles(modules: { source: string; dependencies: { resolved: string }[] }[]): string[][] {
  const graph = new Map<string, Set<string>>();
  for (const m of modules) {
    const from = areaOf(m.source);
    if (!from) continue;
    for (const d of m.dependencies) {
      const to = areaOf(d.resolved);
      if (to && to !== from) (graph.get(from) ?? graph.set(from, new Set()).get(from)!).add(to);
    }
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        component.push(w);
      } while (w !== v);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

/**
 * Handlers that import more than one domain module, or anything of src/ besides src/errors.ts and
 * src/tools/require-change.ts (generated/ is free): a handler calls one domain function and shapes its
 * answer. Meta tools describe the server itself: list_capabilities reads which tools a token may call.
 */
function handlerImportProblems(base: string): string[] {
  const areas = readdirSync(join(base, "src/tools"), { withFileTypes: true }).filter((d) => d.isDirectory());
  const handlers = areas.flatMap((a) =>
    readdirSync(join(base, "src/tools", a.name))
      .filter((f) => f.endsWith(".ts"))
      .map((f) => `src/tools/${a.name}/${f}`),
  );
  const allowed = new Set(["src/errors.ts", "src/tools/require-change.ts", "src/auth/tool-access.ts"]);
  const problems: string[] = [];
  for (const file of handlers) {
    const imports = [...readFileSync(join(base, file), "utf8").matchAll(/^import\s[^;]*?from\s+"(\.[^"]+)"/gms)].map((m) =>
      join(dirname(file), m[1]!).replace(/\.js$/, ".ts"),
    );
    const domain = imports.filter((i) => i.startsWith("src/domain/"));
    const other = imports.filter((i) => !i.startsWith("src/domain/") && !i.startsWith("generated/") && !allowed.has(i));
    if (domain.length > 1 || other.length > 0) problems.push(`${file}: ${[...domain, ...other].join(", ")}`);
  }
  return problems;
}

/**
 * Handlers that call their domain function in another shape than `(ctx, params)`: a handler hands the
 * call's context and its params over whole, and the domain entry takes what it needs from them (the
 * database, the caller, "today" as todayOf(ctx): src/domain/README.md, docs/adding-a-tool.md step 3).
 * Every call of a name imported from src/domain that mentions ctx must read exactly `ctx, params`, at
 * least one must, and no handler reaches into ctx for the domain (ctx.db, ctx.caller.userId, ctx.now(),
 * todayOf). Exceptions, each with its reason: a pure function of one param needs no context.
 */
const CALL_SHAPE_EXCEPTIONS: Record<string, string> = {
  "src/tools/knowledge/calculate.ts": "the calculator is a pure function of the expression: no database, caller or clock",
  "src/tools/meta/list_capabilities.ts": "describes the server's tools from generated/ and the token's scopes: no domain call",
  "src/tools/wallets/update_wallet.ts": "(ctx, params) and the requireSomeChange hook, run once the wallet is found (not_found first)",
};

function argsAt(text: string, open: number): string {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "(") depth++;
    else if (text[i] === ")" && --depth === 0) return text.slice(open + 1, i);
  }
  return text.slice(open + 1);
}

function handlerCallProblems(base: string): string[] {
  const areas = readdirSync(join(base, "src/tools"), { withFileTypes: true }).filter((d) => d.isDirectory());
  const problems: string[] = [];
  for (const area of areas) {
    for (const f of readdirSync(join(base, "src/tools", area.name))
      .filter((n) => n.endsWith(".ts"))
      .sort()) {
      const file = `src/tools/${area.name}/${f}`;
      if (file in CALL_SHAPE_EXCEPTIONS) continue;
      const text = readFileSync(join(base, file), "utf8");
      const names = [...text.matchAll(/^import\s+\{([^}]*)\}\s+from\s+"[./]*\/domain\/[^"]+"/gm)].flatMap((m) =>
        m[1]!
          .split(",")
          .map((n) => n.trim())
          .filter((n) => n !== "" && !n.startsWith("type ")),
      );
      const calls = names.flatMap((name) =>
        [...text.matchAll(new RegExp(`\\b${name}\\(`, "g"))].map((m) =>
          argsAt(text, m.index + name.length)
            .replace(/\s+/g, " ")
            .trim(),
        ),
      );
      // ctx at the call's own level: ruleToApi(await removeRule(ctx, params)) is removeRule's call.
      const withCtx = calls.filter((a) => /\bctx\b/.test(a.replace(/\([^()]*\)/g, "")));
      const reaches = /\bctx\.(db|now\(|caller\.userId)|\btodayOf\(/.test(text);
      if (withCtx.length === 0 || withCtx.some((a) => a !== "ctx, params") || reaches)
        problems.push(`${file}: ${withCtx.join(" | ") || "no (ctx, params) call"}`);
    }
  }
  return problems;
}

function cruiseGraph(cwd: string) {
  const r = spawnSync(process.execPath, [depcruise, "--config", join(root, ".dependency-cruiser.cjs"), "--output-type", "json", "src"], {
    cwd,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(r.stdout).modules as { source: string; dependencies: { resolved: string }[] }[];
}

describe("architecture rules (dependency-cruiser)", function () {
  this.timeout(60_000);
  let dir: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), "fmcp-arch-"));
    const files: Record<string, string> = {
      "tsconfig.json": JSON.stringify({ compilerOptions: { module: "nodenext", moduleResolution: "nodenext", strict: true } }),
      "package.json": JSON.stringify({ type: "module" }),
      "src/domain/a/one.ts": `import type { Two } from "./two.js";\nexport interface One { two?: Two }\n`,
      "src/domain/a/two.ts": `import type { One } from "./one.js";\nexport interface Two { one?: One }\n`,
      "src/domain/b/rule.ts": `import { route } from "../../http/route.js";\nexport const rule = route;\n`,
      "src/http/route.ts": `export const route = 1;\n`,
      "src/db/knex.ts": `export const dialect = () => "sqlite";\n`,
      "src/domain/e/branch.ts": `import { dialect } from "../../db/knex.js";\nexport const engine = dialect();\n`,
      // A driver outside src/db (a type-only import counts).
      "src/events/listen.ts": `import type pg from "pg";\nexport type Session = pg.Client;\n`,
      "src/tools/area/first_tool.ts": `import { second } from "./second_tool.js";\nexport const first = second;\n`,
      "src/tools/area/second_tool.ts": `export const second = 2;\n`,
      // Infrastructure reaching into domain code.
      "src/writes/step.ts": `import { z } from "../domain/c/z.js";\nexport const step = z;\n`,
      // A handler that reads two domain modules (so holds a rule of its own).
      "src/tools/area/greedy_tool.ts": `import { z } from "../../domain/c/z.js";\nimport { y } from "../../domain/d/y.js";\nexport const greedy = z + y;\n`,
      // Two areas that import each other, without a module cycle.
      "src/domain/c/x.ts": `import { y } from "../d/y.js";\nexport const x = y;\n`,
      "src/domain/c/z.ts": `export const z = 3;\n`,
      "src/domain/d/y.ts": `export const y = 4;\n`,
      "src/domain/d/w.ts": `import { z } from "../c/z.js";\nexport const w = z;\n`,
    };
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), text);
    }
  });
  after(() => dir && rmSync(dir, { recursive: true, force: true }));

  it("fails a tree that breaks each rule, naming the rule and the modules", () => {
    const r = cruise(dir, "src");
    expect(r.status, r.stdout + r.stderr).to.not.equal(0);
    expect(r.stdout).to.match(/no-cycles: src\/domain\/a\/(one|two)\.ts/);
    expect(r.stdout).to.contain("domain-knows-no-transport: src/domain/b/rule.ts → src/http/route.ts");
    expect(r.stdout).to.contain("tool-imports-no-tool: src/tools/area/first_tool.ts → src/tools/area/second_tool.ts");
    expect(r.stdout).to.contain("domain-has-no-dialect: src/domain/e/branch.ts → src/db/knex.ts");
    expect(r.stdout).to.contain("infrastructure-knows-no-domain: src/writes/step.ts → src/domain/c/z.ts");
    expect(r.stdout).to.match(/engine-drivers-in-db: src\/events\/listen\.ts → (node_modules\/(@types\/)?)?pg\b/);
  });

  it("finds a cycle between areas that no module cycle shows, and none in the project", () => {
    expect(areaCycles(cruiseGraph(dir))).to.deep.include(["domain/c", "domain/d"]);
    expect(areaCycles(cruiseGraph(root))).to.deep.equal([]);
  });

  it("keeps SQL out of handlers: no handler queries the database itself", () => {
    const handlers = spawnSync("git", ["ls-files", "src/tools"], { cwd: root, encoding: "utf8" })
      .stdout.split("\n")
      .filter((f) => /^src\/tools\/[^/]+\/[^/]+\.ts$/.test(f));
    expect(handlers.length).to.be.greaterThan(30);
    const querying = handlers.filter((f) => /\bctx\.db\s*\(|\.raw\s*\(|\btrx\s*\(/.test(readFileSync(join(root, f), "utf8")));
    expect(querying).to.deep.equal([]);
  });

  it("keeps rules out of handlers: a handler imports one domain module, besides generated/, errors and require-change", () => {
    expect(handlerImportProblems(dir)).to.include("src/tools/area/greedy_tool.ts: src/domain/c/z.ts, src/domain/d/y.ts");
    expect(handlerImportProblems(root)).to.deep.equal([]);
  });

  it("keeps one domain entry shape: every handler calls its domain function as (ctx, params)", () => {
    const fixture = mkdtempSync(join(tmpdir(), "fmcp-shape-"));
    try {
      mkdirSync(join(fixture, "src/tools/area"), { recursive: true });
      const handler = (call: string) =>
        `import { entry } from "../../domain/area/read.js";\nexport const tool = async (params: { id: string }, ctx: Ctx) => ${call};\n`;
      writeFileSync(join(fixture, "src/tools/area/good_tool.ts"), handler("entry(ctx, params)"));
      writeFileSync(join(fixture, "src/tools/area/loose_tool.ts"), handler("entry(ctx.db, ctx.caller.userId, params.id)"));
      writeFileSync(join(fixture, "src/tools/area/partial_tool.ts"), handler("entry(ctx, params.id)"));
      expect(handlerCallProblems(fixture)).to.deep.equal([
        "src/tools/area/loose_tool.ts: ctx.db, ctx.caller.userId, params.id",
        "src/tools/area/partial_tool.ts: ctx, params.id",
      ]);
    } finally {
      rmSync(fixture, { recursive: true, force: true });
    }
    expect(handlerCallProblems(root)).to.deep.equal([]);
  });

  it("passes the project's own tree", () => {
    const r = cruise(root, "src", "codegen", "scripts", "bin");
    expect(r.status, r.stdout + r.stderr).to.equal(0);
  });
});
