/**
 * The cross-user (BOLA) matrix, generated from the registry: for every tool and every param of it that
 * names a resource (`*_id`, `*_ids`), user B calling it with user A's id, everything else B's own, gets
 * not_found for exactly that param, and neither A's nor B's data changes. A new id param whose
 * resource this file does not know fails until it is taught here; a tool that answers not_implemented fails.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { tools, type ToolDefinition } from "../../generated/registry.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";
import { exampleParams, specMethods } from "./spec.js";

/** Id params → the resource they name. */
const RESOURCE_OF: Record<string, string> = {
  wallet_id: "wallet",
  to_wallet_id: "wallet",
  from_wallet_id: "wallet",
  move_to_wallet_id: "wallet",
  wallet_ids: "wallet",
  transaction_id: "transaction",
  transaction_ids: "transaction",
  budget_id: "budget",
  goal_id: "goal",
  bill_reminder_id: "bill_reminder",
  rule_id: "rule",
  connection_id: "bank_connection",
};
/** Resources whose create tool is not create_<resource>. */
const CREATED_BY: Record<string, string> = { rule: "save_rule" };
/**
 * Resources no tool creates: a bank connection is made by claiming a bridge's setup token on /account or
 * by the CLI (test/banks holds the real SimpleFIN exchange); here its row is written as connect writes it.
 */
const CREATED_IN_DB: Record<string, (server: TestServer, userId: string) => Promise<string>> = {
  bank_connection: async (server, userId) => {
    const id = `bnk_${randomUUID().replace(/-/g, "").slice(0, 16)}`;
    const now = new Date().toISOString();
    await server.db("bank_connections").insert({
      id,
      user_id: userId,
      bridge: "bridge.example",
      access_sealed: "v1.000000000000.sealed",
      sync_from: "2026-09-01",
      next_sync_at: now,
      created_at: now,
    });
    return id;
  },
};
/**
 * *_id params that are not references to owned rows: external_id is the user's own bank reference;
 * audit_id filters list_changes, where another user's id finds nothing (test/tools/list-changes.test.ts);
 * preview_id is signed for its user, tool and arguments, and another user's is invalid_params on
 * preview_id like a forged one, the same answer (test/writes/stale-preview.test.ts).
 */
const NOT_REFERENCES = new Set(["external_id", "audit_id", "preview_id"]);

const ID_PARAM = /_ids?$/;
const idParams = (t: ToolDefinition) => t.paramNames.filter((p) => ID_PARAM.test(p) && !NOT_REFERENCES.has(p));

/** Tables holding users' data: compared before and after B's calls. */
const DATA_TABLES = [
  "wallets",
  "transactions",
  "transaction_tags",
  "budgets",
  "goals",
  "goal_contributions",
  "bill_reminders",
  "rules",
  "import_keys",
  "recurring_decisions",
  "bank_connections",
  "bank_accounts",
];

/** The first example of a method that uses the param, else its first example. */
function paramsFor(tool: string, param: string): Record<string, unknown> {
  const m = specMethods.find((x) => x.name === tool)!;
  const index = Math.max(
    0,
    m.examples.findIndex((e) => e.params.some((p) => p.name === param)),
  );
  const params = Object.fromEntries((m.examples[index]?.params ?? []).map((p) => [p.name, structuredClone(p.value)]));
  if ("idempotency_key" in params || tools.find((t) => t.name === tool)!.paramNames.includes("idempotency_key")) params.idempotency_key = randomUUID();
  return params;
}

describe(`cross-user matrix (${engine})`, () => {
  let server: TestServer;
  let a: TestUser;
  let b: TestUser;
  /** owner id → resource → ids created so far (index 0, 1, …). */
  const owned = new Map<string, Map<string, string[]>>();

  before(async () => {
    server = await startTestServer();
    a = await server.createUser();
    b = await server.createUser();
  });
  after(async () => server.close());

  const call = (tool: string, params: Record<string, unknown>, token: string): Promise<any> => server.call(tool, params, token);

  /** The owner's index-th resource of a kind, created through the create tool on first need. */
  async function ensure(user: TestUser, resource: string, index = 0): Promise<string> {
    const mine = owned.get(user.id) ?? new Map<string, string[]>();
    owned.set(user.id, mine);
    const list = mine.get(resource) ?? [];
    mine.set(resource, list);
    while (list.length <= index) {
      const direct = CREATED_IN_DB[resource];
      if (direct) {
        list.push(await direct(server, user.id));
        continue;
      }
      const create = CREATED_BY[resource] ?? `create_${resource}`;
      const params = exampleParams(create);
      if (typeof params.name === "string") params.name = `${params.name} ${list.length + 1}`;
      if ("external_id" in params) params.external_id = randomUUID();
      if (resource === "transaction") delete params.to_wallet_id;
      for (const p of Object.keys(params)) {
        const kind = RESOURCE_OF[p];
        if (kind) params[p] = p.endsWith("_ids") ? [await ensure(user, kind)] : await ensure(user, kind);
      }
      const result = await call(create, params, user.token);
      const id = result[resource]?.id;
      if (typeof id !== "string") throw new Error(`${create} returned no ${resource}.id: ${JSON.stringify(result)}`);
      list.push(id);
    }
    return list[index]!;
  }

  async function snapshot(): Promise<string> {
    const out: Record<string, unknown> = {};
    for (const table of DATA_TABLES) {
      out[table] = await server
        .db(table)
        .whereIn("user_id", [a.id, b.id])
        .orderBy("id")
        .select()
        .catch(() => "(no table)");
    }
    return JSON.stringify(out, (_k, v) => (typeof v === "bigint" ? String(v) : v));
  }

  /** What A sees through the read tools: must not change either. */
  async function viewOfA(): Promise<string> {
    const views: Record<string, unknown> = {};
    for (const [tool, params] of [
      ["list_wallets", { include_archived: true }],
      ["list_transactions", { limit: 100 }],
      ["list_budgets", {}],
      ["list_goals", { include_archived: true }],
      ["list_bill_reminders", { include_inactive: true }],
    ] as const) {
      views[tool] = await call(tool, params, a.token);
    }
    return JSON.stringify(views);
  }

  it("knows the resource of every id param in the registry", () => {
    for (const t of tools) for (const p of idParams(t)) expect(RESOURCE_OF, `${t.name}.${p}: add its resource to RESOURCE_OF`).to.have.property(p);
  });

  for (const tool of tools) {
    for (const param of idParams(tool)) {
      it(`${tool.name}: B with A's ${param} gets not_found and changes nothing`, async function () {
        const resource = RESOURCE_OF[param]!;
        const params: Record<string, unknown> = paramsFor(tool.name, param);
        // Everything B's own, except the param under test. A second wallet where two must differ.
        for (const p of new Set([...Object.keys(params), param])) {
          const kind = RESOURCE_OF[p];
          if (!kind || NOT_REFERENCES.has(p)) continue;
          const owner = p === param ? a : b;
          const index = p === "to_wallet_id" ? 1 : 0;
          const id = await ensure(owner, kind, index);
          params[p] = p.endsWith("_ids") ? [id] : id;
        }
        if ("dry_run" in params) params.dry_run = false;
        await ensure(a, resource);
        const before = await snapshot();
        const viewBefore = await viewOfA();

        const answer = await server.rpc({ jsonrpc: "2.0", id: 1, method: tool.name, params }, b.token);
        const error = answer.body.error;
        expect(answer.status).to.equal(200);
        expect(error, `expected not_found, got ${JSON.stringify(answer.body)}`).to.not.equal(undefined);
        expect(error.data.code, JSON.stringify(error)).to.equal("not_found");
        expect(String(error.data.field)).to.match(new RegExp(`^${param}\\b`));
        // Indistinguishable from an id that does not exist: the answer never echoes A's data.
        const text = JSON.stringify(answer.body);
        const passed = new Set([params[param]].flat());
        for (const ids of (owned.get(a.id) ?? new Map<string, string[]>()).values()) for (const id of ids) if (!passed.has(id)) expect(text).not.to.include(id);

        expect(await snapshot()).to.equal(before);
        expect(await viewOfA()).to.equal(viewBefore);
      });
    }
  }

  it("external_id: B may reuse A's external_id on B's own wallet (no conflict that would reveal A's data)", async function () {
    const external = `bank-ref-${randomUUID()}`;
    const params = exampleParams("create_transaction");
    await call("create_transaction", { ...params, wallet_id: await ensure(a, "wallet"), external_id: external }, a.token);
    const mine = await call(
      "create_transaction",
      { ...params, idempotency_key: randomUUID(), wallet_id: await ensure(b, "wallet"), external_id: external },
      b.token,
    );
    expect(mine.status).to.equal("committed");
  });

  it("an idempotency key used by A does not replay A's answer to B", async function () {
    const key = randomUUID();
    const params = { ...exampleParams("create_wallet"), name: `Shared key ${key.slice(0, 8)}`, idempotency_key: key };
    const first = await call("create_wallet", params, a.token);
    const second = await call("create_wallet", params, b.token);
    expect(second.status).to.equal("committed");
    expect(second.wallet.id).to.not.equal(first.wallet.id);
    const bWallets = await server.db("wallets").where({ user_id: b.id, id: second.wallet.id }).first();
    expect(bWallets).to.not.equal(undefined);
  });
});
