/**
 * The layering rules of docs/architecture.md, checked by `npm run lint` (dependency-cruiser):
 * no import cycle (type-only imports count: a cycle of types still ties modules together), domain code
 * never imports a transport or a tool, nor src/db/knex.ts (where `dialect()` is: engine differences live
 * in src/db), a tool never imports another tool, and infrastructure (transports, the call path, the write
 * pipeline, storage, auth, limits, events, metrics, the demo) never imports a tool or domain code; only
 * src/db imports a database driver (pg, better-sqlite3).
 * test/lint/architecture.test.ts shows each rule failing on a fixture.
 */
module.exports = {
  forbidden: [
    {
      name: "no-cycles",
      severity: "error",
      comment: "An import cycle, at any length, type-only or not.",
      from: {},
      to: { circular: true },
    },
    {
      name: "domain-knows-no-transport",
      severity: "error",
      comment: "src/domain holds rules and queries; it never imports src/http, src/mcp, src/rpc, src/tools or src/resources.",
      from: { path: "^src/domain/" },
      to: { path: "^src/(http|mcp|rpc|tools|resources)/" },
    },
    {
      name: "domain-has-no-dialect",
      severity: "error",
      comment: "Dialect differences live in src/db (dialect.ts, full-text.ts); domain code never asks which engine it runs on.",
      from: { path: "^src/domain/" },
      to: { path: "^src/db/knex\\.ts$" },
    },
    {
      name: "engine-drivers-in-db",
      severity: "error",
      comment:
        "The database drivers (pg, better-sqlite3, pg-copy-streams) are src/db's: code outside it never holds a driver's connection or type, and asks src/db's named helpers for what differs between engines (ESLint's engine identity rule keeps dialect() there too).",
      from: { path: "^src/", pathNot: "^src/db/" },
      to: { path: "(^|node_modules/(@types/)?)(pg|better-sqlite3|pg-copy-streams)(/|$)" },
    },
    {
      name: "infrastructure-knows-no-domain",
      severity: "error",
      comment:
        "Transports, the call path, the write pipeline, storage and the other infrastructure never import a handler or domain code: what they share with handlers lives in neutral modules (src/context.ts, src/json.ts, src/audit/diff.ts).",
      from: { path: "^src/((rpc|writes|http|mcp|audit|db|auth|limits|events|metrics|demo|oauth)/|(context|json|errors|log|config)\\.ts$)" },
      // The resource providers read domain code, like handlers; their types are src/mcp/resource-types.ts,
      // and src/app.ts hands the registry in, as it hands in the handlers.
      to: { path: "^src/(tools|domain|resources)/" },
    },
    {
      name: "tool-imports-no-tool",
      severity: "error",
      comment: "A handler calls domain code; shared logic lives in src/domain, never in another handler.",
      from: { path: "^src/tools/[^/]+/[^/]+\\.ts$" },
      to: { path: "^src/tools/[^/]+/[^/]+\\.ts$", pathNot: "^$1$" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(node_modules|dist|generated/validators\\.js)" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    moduleSystems: ["es6", "cjs"],
  },
};
