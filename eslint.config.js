// ESLint (flat config) with typescript-eslint's recommended rules, for every hand-written source.
// Formatting is not ESLint's job here; the layering rules are dependency-cruiser's (.dependency-cruiser.cjs).
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import regexp from "eslint-plugin-regexp";

export default tseslint.config(
  // generated/ and the client's types.ts are codegen's output, not hand-written.
  {
    ignores: [
      "generated/**",
      "clients/typescript/src/types.ts",
      "dist/**",
      "dist.*/**",
      "tools/**",
      "clients/typescript/dist/**",
      "node_modules/**",
      ".bench/**",
      "data/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: "module",
      globals: {
        process: "readonly",
        console: "readonly",
        Buffer: "readonly",
        URL: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
        setInterval: "readonly",
        clearInterval: "readonly",
        setImmediate: "readonly",
        fetch: "readonly",
        AbortController: "readonly",
        AbortSignal: "readonly",
        TextEncoder: "readonly",
        TextDecoder: "readonly",
        structuredClone: "readonly",
        performance: "readonly",
        queueMicrotask: "readonly",
        Response: "readonly",
        Request: "readonly",
        Headers: "readonly",
        global: "readonly",
        globalThis: "readonly",
      },
    },
    rules: {
      // A value given before a try block is often the fallback the finally or catch path relies on;
      // the rule flags those defensive defaults, which read more clearly than their removal.
      "no-useless-assignment": "off",
      // Unused names are errors, except the ones deliberately named with a leading underscore (destructuring to omit a key).
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },
  {
    // Every regular expression of the server is linear in its input (issue 41): statements, payees, notes and
    // headers are untrusted text up to megabytes long, and one backtracking pattern over them stalls the event
    // loop for everyone. no-super-linear-backtracking catches a pattern that backtracks within one match
    // (`a+a+b`); no-super-linear-move catches one that is tried again at every start (`\s*X$` unanchored).
    // docs/security.md#bounded-work.
    files: ["src/**/*.ts"],
    plugins: { regexp },
    rules: {
      "regexp/no-super-linear-backtracking": ["error", { report: "potential" }],
      "regexp/no-super-linear-move": ["error", { report: "potential", ignoreSticky: false, ignorePartial: false }],
    },
  },
  {
    // Engine identity: no module of src/ outside src/db asks which engine it runs on (issue 42). Each
    // difference is a named helper of src/db saying why the engines differ (src/db/engine.ts for what an
    // engine can do, dialect.ts for SQL, locks.ts, …; docs/decisions.md#engine-facts-in-src-db); the
    // layering rules (.dependency-cruiser.cjs, engine-drivers-in-db) keep the drivers there too.
    // test/lint/engine-branch.test.ts shows each of these failing.
    files: ["src/**/*.ts"],
    ignores: ["src/db/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["**/db/knex.js"],
              importNames: ["dialect", "dialectOf", "Dialect"],
              message: "Engine differences live in src/db: use or add a named helper there (src/db/engine.ts, dialect.ts) instead of asking for the engine.",
            },
          ],
        },
      ],
      "no-restricted-syntax": [
        "error",
        {
          selector: "BinaryExpression[operator=/^[!=]==?$/] > Literal[value=/^(postgres|postgresql|sqlite|pg|better-sqlite3)$/]",
          message: "An engine branch outside src/db: name the difference in a helper of src/db (src/db/engine.ts, dialect.ts) and call it.",
        },
        {
          selector: "SwitchCase > Literal[value=/^(postgres|postgresql|sqlite|pg|better-sqlite3)$/]",
          message: "An engine branch outside src/db: name the difference in a helper of src/db (src/db/engine.ts, dialect.ts) and call it.",
        },
        {
          selector:
            "MemberExpression[property.name='client'][object.name=/^(db|trx|knex)$/], MemberExpression[property.name='client'][object.property.name=/^(db|trx|knex)$/]",
          message: "knex's client (its driver and configuration) is src/db's: use or add a helper there.",
        },
      ],
    },
  },
  {
    // A domain function a reader can follow in one sitting (issue 53): past 150 lines a long one is split
    // into named steps where the thread is lost, each saying why. Blank lines and comments do not count.
    files: ["src/domain/**/*.ts"],
    rules: { "max-lines-per-function": ["error", { max: 150, skipBlankLines: true, skipComments: true }] },
  },
  { files: ["**/*.cjs"], languageOptions: { sourceType: "commonjs", globals: { module: "writable", require: "readonly" } } },
  {
    // Tests read JSON answers as `any` on purpose, and chai's property assertions (`.to.be.empty`) are
    // expressions by design. Scripts measure answers the same way.
    files: ["test/**", "scripts/**"],
    rules: { "@typescript-eslint/no-explicit-any": "off", "@typescript-eslint/no-unused-expressions": "off" },
  },
);
