/**
 * A confirmation through the client binds what the dialog showed (issue 51, item 1; docs/decisions.md#preview-ids):
 * the dry run the person was shown carries a preview_id, kept in the elicitation wait (2025-11-25) or in the
 * signed requestState (2026-07-28); an accept over rows that changed meanwhile is refused with stale_preview and
 * writes nothing, exactly as a commit passing that preview_id is. Another client of the same person changes the
 * rows while the dialog is open. A delete binds the one record its dialog showed the same way.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { Client as ClientV2, StreamableHTTPClientTransport as StreamableHTTPClientTransportV2 } from "@modelcontextprotocol/client";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";

type Revision = "2025-11-25" | "2026-07-28";

interface Asking {
  callTool(name: string, args: Record<string, unknown>): Promise<any>;
  asked: string[];
  close(): Promise<void>;
}

/** A client that can confirm; while its dialog is open it runs `meanwhile` (another client's writes), then accepts. */
async function asking(server: TestServer, token: string, revision: Revision, meanwhile: () => Promise<void>): Promise<Asking> {
  const asked: string[] = [];
  const reply = async (message: string) => {
    asked.push(message);
    await meanwhile();
    return { action: "accept" as const, content: {} };
  };
  const headers = { Authorization: `Bearer ${token}` };
  if (revision === "2026-07-28") {
    const client = new ClientV2(
      { name: "confirm-binding-test", version: "0.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } }, capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler("elicitation/create", async (req: any) => (await reply(req.params.message)) as any);
    await client.connect(new StreamableHTTPClientTransportV2(new URL(server.mcpUrl), { requestInit: { headers } }));
    return { callTool: (name, args) => client.callTool({ name, arguments: args }), asked, close: () => client.close() };
  }
  const client = new Client({ name: "confirm-binding-test", version: "0.0.0" }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async (req) => (await reply(req.params.message)) as any);
  await client.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl), { requestInit: { headers } }));
  return { callTool: (name, args) => client.callTool({ name, arguments: args }), asked, close: () => client.close() };
}

function errorData(result: any): any {
  const text: string = result.content?.[0]?.text ?? "";
  expect(result.isError, text).to.equal(true);
  return JSON.parse(text.slice(text.indexOf("error.data: ") + 12));
}

/** A CSV statement of n distinct expenses, "Shop i" paying i + 1 on a day of October. */
function statement(n: number): string {
  const lines = ["Date,Description,Amount"];
  for (let i = 0; i < n; i++) lines.push(`2026-10-${String((i % 28) + 1).padStart(2, "0")},Shop ${i},-${(i + 1).toFixed(2)}`);
  return `${lines.join("\n")}\n`;
}

describe(`protocol: a confirmation binds the rows its dialog showed (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  let user: TestUser;
  before(async () => {
    server = await startTestServer({ RATE_LIMIT_MCP_PER_MINUTE: "10000" });
    user = await server.createUser({ timezone: "UTC" });
  });
  after(async () => server?.close());

  const call = (tool: string, params: Record<string, unknown>) => server.call(tool, { idempotency_key: randomUUID(), ...params }, user.token);
  const newWallet = async (): Promise<string> =>
    (await call("create_wallet", { name: `W ${randomUUID().slice(0, 8)}`, type: "cash", currency: "EUR" })).wallet.id;
  const rowsOf = async (wallet: string) =>
    (await server.db("transactions").where({ user_id: user.id, wallet_id: wallet }).select("id", "payee", "category", "amount_minor")) as {
      id: string;
      payee: string;
      category: string | null;
    }[];

  for (const revision of ["2025-11-25", "2026-07-28"] as const) {
    it(`${revision}: a 25-row bulk edit whose selection another client swaps a row of while the dialog is open is stale_preview, nothing written`, async () => {
      const wallet = await newWallet();
      await call("import_transactions", { wallet_id: wallet, statement: statement(25) });
      const shown = await rowsOf(wallet);
      const category = `Shops ${randomUUID().slice(0, 6)}`;
      expect(shown).to.have.length(25);
      const client = await asking(server, user.token, revision, async () => {
        // Another client of the same person: one shown row leaves the wallet, a never-shown one joins it.
        await call("delete_transaction", { transaction_id: shown[0]!.id });
        await call("create_transaction", { wallet_id: wallet, direction: "expense", amount: "950.00", date: "2026-10-15", payee: "Never shown" });
      });
      try {
        const result = await client.callTool("update_transactions", {
          filter: { wallet_id: wallet },
          expected_count: 25,
          set_category: category,
          idempotency_key: randomUUID(),
        });
        expect(client.asked).to.have.length(1);
        expect(client.asked[0]).to.not.include("Never shown");
        expect(errorData(result)).to.deep.include({ code: "stale_preview", field: "preview_id" });
        const now = await rowsOf(wallet);
        expect(now).to.have.length(25);
        expect(now.filter((r) => r.category === category)).to.deep.equal([]);
      } finally {
        await client.close();
      }
    });

    it(`${revision}: an import confirmed as "row 2 not imported" creates nothing when that row became new while the dialog was open`, async () => {
      const wallet = await newWallet();
      // Row 2 of the statement (its first transaction) is a possible duplicate of one typed in.
      const typed = (await call("create_transaction", { wallet_id: wallet, direction: "expense", amount: "1.00", date: "2026-10-01", payee: "Typed" }))
        .transaction;
      const file = statement(121);
      const preview = await call("import_transactions", { wallet_id: wallet, statement: file, dry_run: true });
      expect(preview.counts).to.include({ possible_duplicate: 1, to_create: 120 });
      const client = await asking(server, user.token, revision, async () => {
        await call("delete_transaction", { transaction_id: typed.id });
      });
      try {
        const result = await client.callTool("import_transactions", { wallet_id: wallet, statement: file, idempotency_key: randomUUID() });
        expect(client.asked).to.have.length(1);
        expect(errorData(result)).to.deep.include({ code: "stale_preview", field: "preview_id" });
        expect(await rowsOf(wallet)).to.deep.equal([]);
      } finally {
        await client.close();
      }
    });

    // The six deletes confirm one record: each makes it, has another client change it while the dialog is
    // open, and checks the accept is stale_preview and the record is still there (then an unchanged accept deletes).
    const deletes: {
      tool: string;
      make(): Promise<{ id: string; args: Record<string, unknown>; table: string }>;
      change(id: string): Promise<unknown>;
    }[] = [
      {
        tool: "delete_transaction",
        make: async () => {
          const wallet = await newWallet();
          const t = (await call("create_transaction", { wallet_id: wallet, direction: "expense", amount: "12.00", date: "2026-10-03", payee: "Bakery" }))
            .transaction;
          return { id: t.id, args: { transaction_id: t.id }, table: "transactions" };
        },
        change: (id) => call("update_transaction", { transaction_id: id, amount: "950.00" }),
      },
      {
        tool: "delete_wallet",
        make: async () => {
          const id = await newWallet();
          return { id, args: { wallet_id: id }, table: "wallets" };
        },
        change: (id) => call("update_wallet", { wallet_id: id, opening_balance: "950.00" }),
      },
      {
        tool: "delete_budget",
        make: async () => {
          const b = (await call("create_budget", { name: `B ${randomUUID().slice(0, 8)}`, amount: "100.00", period: "month", currency: "EUR" })).budget;
          return { id: b.id, args: { budget_id: b.id }, table: "budgets" };
        },
        change: (id) => call("update_budget", { budget_id: id, amount: "950.00" }),
      },
      {
        tool: "delete_goal",
        make: async () => {
          const g = (await call("create_goal", { name: `G ${randomUUID().slice(0, 8)}`, currency: "EUR", target_amount: "1000.00" })).goal;
          return { id: g.id, args: { goal_id: g.id }, table: "goals" };
        },
        change: (id) => call("update_goal", { goal_id: id, target_amount: "950.00" }),
      },
      {
        tool: "delete_bill_reminder",
        make: async () => {
          const b = (
            await call("create_bill_reminder", {
              name: `Gym ${randomUUID().slice(0, 8)}`,
              amount: "30.00",
              currency: "EUR",
              schedule: { frequency: "monthly", start_date: "2026-01-05", day_of_month: 5 },
            })
          ).bill_reminder;
          return { id: b.id, args: { bill_reminder_id: b.id }, table: "bill_reminders" };
        },
        change: (id) => call("update_bill_reminder", { bill_reminder_id: id, amount: "950.00" }),
      },
      {
        tool: "delete_rule",
        make: async () => {
          const r = (await call("save_rule", { operator: "contains", value: `shop ${randomUUID().slice(0, 6)}`, set_category: "Shops" })).rule;
          return { id: r.id, args: { rule_id: r.id }, table: "rules" };
        },
        change: (id) => call("save_rule", { rule_id: id, set_category: "Never shown" }),
      },
    ];
    for (const d of deletes) {
      it(`${revision}: ${d.tool} of a record another client changes while the dialog is open is stale_preview, nothing deleted; unchanged, the accept deletes`, async () => {
        const { id, args, table } = await d.make();
        // The binding is the confirmation's: a delete takes no preview_id, and its dry run answers none.
        expect(await call(d.tool, { ...args, dry_run: true })).to.not.have.property("preview_id");
        const client = await asking(server, user.token, revision, async () => void (await d.change(id)));
        try {
          const result = await client.callTool(d.tool, { ...args, idempotency_key: randomUUID() });
          expect(client.asked).to.have.length(1);
          expect(errorData(result)).to.deep.include({ code: "stale_preview", field: "preview_id" });
          // What the model is told to do must be possible: a delete takes no preview_id, and calling again asks again.
          const told: string = result.content[0].text;
          expect(told).to.not.match(/commit with its preview_id/);
          expect(told).to.match(/call again/i);
          expect(await server.db(table).where({ user_id: user.id, id })).to.have.length(1);
        } finally {
          await client.close();
        }
        const quiet = await asking(server, user.token, revision, async () => {});
        try {
          const done = await quiet.callTool(d.tool, { ...args, idempotency_key: randomUUID() });
          expect(done.isError, done.content?.[0]?.text).to.not.equal(true);
          expect(done.structuredContent.status).to.equal("committed");
          expect(await server.db(table).where({ user_id: user.id, id })).to.deep.equal([]);
        } finally {
          await quiet.close();
        }
      });
    }

    it(`${revision}: an accept over unchanged rows commits, and the same key again replays without asking`, async () => {
      const wallet = await newWallet();
      await call("import_transactions", { wallet_id: wallet, statement: statement(21) });
      const client = await asking(server, user.token, revision, async () => {});
      try {
        const args = { filter: { wallet_id: wallet }, expected_count: 21, add_tags: ["checked"], idempotency_key: randomUUID() };
        const done = await client.callTool("update_transactions", args);
        expect(done.isError, done.content?.[0]?.text).to.not.equal(true);
        expect(done.structuredContent).to.deep.include({ status: "committed", changed: 21 });
        const again = await client.callTool("update_transactions", args);
        expect(again.structuredContent.status).to.equal("replayed");
        expect(client.asked).to.have.length(1);
      } finally {
        await client.close();
      }
    });
  }
});
