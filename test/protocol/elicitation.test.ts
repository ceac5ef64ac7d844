/**
 * Confirmation through the client (docs/protocol.md, "Confirmation through the client"), with the
 * official SDK clients on every revision that has elicitation: SDK 1.x over Streamable HTTP on 2025-06-18
 * and 2025-11-25 (elicitation/create on the answer's stream), SDK v2 pinned to 2026-07-28 (input_required
 * with a signed requestState, fulfilled and retried by the SDK). Accept commits; decline and cancel commit
 * nothing and say so; a client without the capability is not asked; bulk writes (an import, a bulk edit, a rule applied
 * to the past) ask above the one threshold only, counting every row they would write;
 * a forged, replayed, expired or another user's requestState is refused by name.
 */
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { Client as ClientV2, StreamableHTTPClientTransport as StreamableHTTPClientTransportV2 } from "@modelcontextprotocol/client";
import { confirmThresholds } from "../../generated/confirm.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";
import { modernRequest } from "./helpers.js";
import { closeServices, createApp, createServices } from "../../src/app.js";
import { createDb } from "../../src/db/knex.js";

type Answer = "accept" | "decline" | "cancel";
type Revision = "2025-06-18" | "2025-11-25" | "2026-07-28";

interface Connected {
  callTool(req: { name: string; arguments: Record<string, unknown> }): Promise<any>;
  close(): Promise<void>;
  /** The messages the person was shown. */
  asked: string[];
}

/** Pins an SDK 1.x client (which offers the newest revision) to an older one by rewriting its initialize. */
function pinnedFetch(version: string): typeof fetch {
  return (url, init) => {
    const body = typeof init?.body === "string" ? init.body : undefined;
    if (body?.includes('"method":"initialize"')) {
      const msg = JSON.parse(body);
      msg.params.protocolVersion = version;
      return fetch(url, { ...init, body: JSON.stringify(msg) });
    }
    return fetch(url, init);
  };
}

async function connect(server: TestServer, token: string, revision: Revision, answer?: Answer): Promise<Connected> {
  const asked: string[] = [];
  const reply = (message: string) => {
    asked.push(message);
    return answer === "accept" ? { action: "accept" as const, content: {} } : { action: answer! };
  };
  const headers = { Authorization: `Bearer ${token}` };
  if (revision === "2026-07-28") {
    const client = new ClientV2(
      { name: "elicitation-test", version: "0.0.0" },
      {
        versionNegotiation: { mode: { pin: "2026-07-28" } },
        capabilities: answer ? { elicitation: { form: {} } } : {},
      },
    );
    if (answer) client.setRequestHandler("elicitation/create", async (req: any) => reply(req.params.message) as any);
    await client.connect(new StreamableHTTPClientTransportV2(new URL(server.mcpUrl), { requestInit: { headers } }));
    expect(client.getNegotiatedProtocolVersion()).to.equal("2026-07-28");
    return { callTool: (r) => client.callTool(r), close: () => client.close(), asked };
  }
  const client = new Client({ name: "elicitation-test", version: "0.0.0" }, { capabilities: answer ? { elicitation: {} } : {} });
  if (answer) client.setRequestHandler(ElicitRequestSchema, async (req) => reply(req.params.message) as any);
  const transport = new StreamableHTTPClientTransport(new URL(server.mcpUrl), { requestInit: { headers }, fetch: pinnedFetch(revision) });
  await client.connect(transport);
  expect(transport.protocolVersion).to.equal(revision);
  return { callTool: (r) => client.callTool(r), close: () => client.close(), asked };
}

function errorData(result: any): any {
  const text: string = result.content?.[0]?.text ?? "";
  return JSON.parse(text.slice(text.indexOf("error.data: ") + 12));
}

/** A CSV statement of n distinct expenses. */
function statement(n: number): string {
  const lines = ["Date,Description,Amount"];
  for (let i = 0; i < n; i++) lines.push(`2026-10-${String((i % 28) + 1).padStart(2, "0")},Shop ${i},-${(i + 1).toFixed(2)}`);
  return `${lines.join("\n")}\n`;
}

describe(`protocol: confirmation through the client (${engine})`, function () {
  this.timeout(60_000);
  let server: TestServer;
  let user: TestUser;

  before(async () => {
    server = await startTestServer({ RATE_LIMIT_MCP_PER_MINUTE: "10000" });
    user = await server.createUser();
  });
  after(async () => server.close());

  const newWallet = async (name = `W ${randomUUID().slice(0, 8)}`): Promise<string> =>
    (await server.call("create_wallet", { name, type: "cash", currency: "EUR", idempotency_key: randomUUID() }, user.token)).wallet.id;
  const walletExists = async (id: string): Promise<boolean> =>
    (await server.call("list_wallets", { include_archived: true }, user.token)).wallets.some((w: { id: string }) => w.id === id);

  for (const revision of ["2025-06-18", "2025-11-25", "2026-07-28"] as const) {
    describe(revision, () => {
      it("accept: the person is asked with the preview, then the delete commits; the same key again replays without asking", async () => {
        const id = await newWallet("Old cash");
        const client = await connect(server, await user.tokenWith(["write:wallets", "read:wallets"]), revision, "accept");
        try {
          const key = randomUUID();
          const result = await client.callTool({ name: "delete_wallet", arguments: { wallet_id: id, idempotency_key: key } });
          expect(result.isError, result.content?.[0]?.text).to.not.equal(true);
          expect(result.structuredContent.status).to.equal("committed");
          expect(client.asked).to.have.length(1);
          expect(client.asked[0])
            .to.match(/^Confirm: .*\?/)
            .and.include("Old cash");
          expect(await walletExists(id)).to.equal(false);
          const again = await client.callTool({ name: "delete_wallet", arguments: { wallet_id: id, idempotency_key: key } });
          expect(again.structuredContent.status).to.equal("replayed");
          expect(client.asked).to.have.length(1);
        } finally {
          await client.close();
        }
      });

      for (const answer of ["decline", "cancel"] as const) {
        it(`${answer}: nothing is committed, and the answer says so`, async () => {
          const id = await newWallet();
          const client = await connect(server, user.token, revision, answer);
          try {
            const result = await client.callTool({ name: "delete_wallet", arguments: { wallet_id: id, idempotency_key: randomUUID() } });
            expect(result.isError).to.equal(true);
            expect(result.content[0].text).to.include("Nothing was changed");
            expect(errorData(result)).to.deep.include({ code: "confirmation_declined", answer });
            expect(client.asked).to.have.length(1);
            expect(await walletExists(id)).to.equal(true);
          } finally {
            await client.close();
          }
        });
      }

      it("a client without the elicitation capability is not asked: the delete commits as today", async () => {
        const id = await newWallet();
        const client = await connect(server, await user.tokenWith(["write:wallets"]), revision);
        try {
          const result = await client.callTool({ name: "delete_wallet", arguments: { wallet_id: id, idempotency_key: randomUUID() } });
          expect(result.structuredContent.status).to.equal("committed");
          expect(await walletExists(id)).to.equal(false);
        } finally {
          await client.close();
        }
      });

      if (revision !== "2026-07-28")
        it("two clients on one token: the one that can confirm is asked, the other never, whichever connected last (per session)", async () => {
          const token = await user.tokenWith(["write:wallets", "read:wallets"]);
          const asking = await connect(server, token, revision, "decline");
          const plain = await connect(server, token, revision);
          try {
            // The plain client connected last: with capabilities kept per token it would have won.
            const kept = await newWallet();
            const declined = await asking.callTool({ name: "delete_wallet", arguments: { wallet_id: kept, idempotency_key: randomUUID() } });
            expect(errorData(declined)).to.deep.include({ code: "confirmation_declined" });
            expect(asking.asked).to.have.length(1);
            expect(await walletExists(kept)).to.equal(true);
            const gone = await newWallet();
            const committed = await plain.callTool({ name: "delete_wallet", arguments: { wallet_id: gone, idempotency_key: randomUUID() } });
            expect(committed.structuredContent.status).to.equal("committed");
            expect(await walletExists(gone)).to.equal(false);
            // A third client that can confirm, connecting after both, does not make the plain one ask.
            const late = await connect(server, token, revision, "accept");
            await late.close();
            const again = await newWallet();
            expect(
              (await plain.callTool({ name: "delete_wallet", arguments: { wallet_id: again, idempotency_key: randomUUID() } })).structuredContent.status,
            ).to.equal("committed");
          } finally {
            await asking.close();
            await plain.close();
          }
        });

      it("dry runs and writes outside x-confirm are never asked about", async () => {
        const id = await newWallet();
        const client = await connect(server, user.token, revision, "decline");
        try {
          const dry = await client.callTool({ name: "delete_wallet", arguments: { wallet_id: id, idempotency_key: randomUUID(), dry_run: true } });
          expect(dry.structuredContent.status).to.equal("dry_run");
          const created = await client.callTool({
            name: "create_wallet",
            arguments: { name: `N ${randomUUID().slice(0, 6)}`, type: "cash", currency: "EUR", idempotency_key: randomUUID() },
          });
          expect(created.structuredContent.status).to.equal("committed");
          expect(client.asked).to.deep.equal([]);
        } finally {
          await client.close();
        }
      });

      it(`an import asks above ${confirmThresholds.bulk_write} rows it would write, possible duplicates named in import_rows included`, async () => {
        const n = confirmThresholds.bulk_write;
        const client = await connect(server, user.token, revision, "decline");
        try {
          const atLimit = await client.callTool({
            name: "import_transactions",
            arguments: { wallet_id: await newWallet(), statement: statement(n), idempotency_key: randomUUID() },
          });
          expect(atLimit.isError, atLimit.content?.[0]?.text).to.not.equal(true);
          expect(atLimit.structuredContent.counts).to.include({ created: n, to_create: n });
          expect(client.asked).to.deep.equal([]);
          const wallet = await newWallet();
          const over = await client.callTool({
            name: "import_transactions",
            arguments: { wallet_id: wallet, statement: statement(n + 1), idempotency_key: randomUUID() },
          });
          expect(errorData(over)).to.deep.include({ code: "confirmation_declined", answer: "decline" });
          expect(client.asked).to.have.length(1);
          const listed = await server.call("list_transactions", { wallet_id: wallet }, user.token);
          expect(listed.total_count ?? listed.transactions.length).to.equal(0);

          // Every row a possible duplicate of one typed in: without import_rows nothing is written and
          // nothing asked; naming them all in import_rows writes n + 1 rows, and is asked about.
          const typed = await newWallet();
          for (let i = 0; i <= n; i++)
            await server.call(
              "create_transaction",
              {
                wallet_id: typed,
                date: `2026-10-${String((i % 28) + 1).padStart(2, "0")}`,
                amount: (i + 1).toFixed(2),
                direction: "expense",
                payee: `Shop ${i}`,
                idempotency_key: randomUUID(),
              },
              user.token,
            );
          const preview = await server.call(
            "import_transactions",
            { wallet_id: typed, statement: statement(n + 1), idempotency_key: randomUUID(), dry_run: true },
            user.token,
          );
          expect(preview.counts).to.include({ new: 0, possible_duplicate: n + 1, to_create: 0 });
          const rows = Array.from({ length: n + 1 }, (_, i) => i + 2);
          const duplicates = await client.callTool({
            name: "import_transactions",
            arguments: { wallet_id: typed, statement: statement(n + 1), import_rows: rows, idempotency_key: randomUUID() },
          });
          expect(errorData(duplicates)).to.deep.include({ code: "confirmation_declined", answer: "decline" });
          expect(client.asked).to.have.length(2);
          expect((await server.call("list_transactions", { wallet_id: typed }, user.token)).total_count).to.equal(n + 1);
        } finally {
          await client.close();
        }
      });
    });
  }

  it("SDK v2 client in its legacy mode (2025-11-25) is asked on the stream too, and its accept commits", async () => {
    const id = await newWallet();
    const asked: string[] = [];
    const client = new ClientV2({ name: "elicitation-test", version: "0.0.0" }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler("elicitation/create", async (req: any) => {
      asked.push(req.params.message);
      return { action: "accept", content: {} } as any;
    });
    await client.connect(new StreamableHTTPClientTransportV2(new URL(server.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${user.token}` } } }));
    try {
      expect(client.getNegotiatedProtocolVersion()).to.equal("2025-11-25");
      const result: any = await client.callTool({ name: "delete_wallet", arguments: { wallet_id: id, idempotency_key: randomUUID() } });
      expect(result.structuredContent.status).to.equal("committed");
      expect(asked).to.have.length(1);
      expect(await walletExists(id)).to.equal(false);
    } finally {
      await client.close();
    }
  });

  it("undo_change asks too: a decline leaves the change in place", async () => {
    const created = await server.call(
      "create_wallet",
      { name: `U ${randomUUID().slice(0, 6)}`, type: "cash", currency: "EUR", idempotency_key: randomUUID() },
      user.token,
    );
    const client = await connect(server, user.token, "2025-11-25", "decline");
    try {
      const result = await client.callTool({ name: "undo_change", arguments: { audit_id: created.audit_id, idempotency_key: randomUUID() } });
      expect(errorData(result)).to.deep.include({ code: "confirmation_declined", answer: "decline" });
      expect(client.asked).to.have.length(1);
      expect(await walletExists(created.wallet.id)).to.equal(true);
    } finally {
      await client.close();
    }
  });

  it(`a rule applied to the past asks above ${confirmThresholds.bulk_write} changed rows, as a bulk edit does`, async () => {
    const n = confirmThresholds.bulk_write;
    const wallet = await newWallet();
    await server.call("import_transactions", { wallet_id: wallet, statement: statement(n + 1), idempotency_key: randomUUID() }, user.token);
    const client = await connect(server, user.token, "2025-11-25", "decline");
    const rule = (extra: Record<string, unknown>, count: number) =>
      client.callTool({
        name: "save_rule",
        arguments: {
          value: "shop",
          operator: "starts_with",
          wallet_id: wallet,
          set_category: "Shops",
          apply_to_existing: true,
          expected_count: count,
          idempotency_key: randomUUID(),
          ...extra,
        },
      });
    try {
      const over = await rule({}, n + 1);
      expect(errorData(over)).to.deep.include({ code: "confirmation_declined", answer: "decline" });
      expect(client.asked).to.have.length(1);
      expect((await server.call("list_transactions", { wallet_id: wallet, category: "Shops" }, user.token)).transactions).to.have.length(0);
      const atLimit = await rule({ max_amount: n.toFixed(2) }, n);
      expect(atLimit.isError, atLimit.content?.[0]?.text).to.not.equal(true);
      expect(atLimit.structuredContent.applied.count).to.equal(n);
      expect(client.asked).to.have.length(1);
    } finally {
      await client.close();
    }
  });

  it(`a bulk edit asks above ${confirmThresholds.bulk_write} changed rows only`, async () => {
    const n = confirmThresholds.bulk_write;
    const wallet = await newWallet();
    await server.call("import_transactions", { wallet_id: wallet, statement: statement(n + 1), idempotency_key: randomUUID() }, user.token);
    const client = await connect(server, user.token, "2025-11-25", "decline");
    const edit = (filter: Record<string, unknown>, count: number, tag: string) =>
      client.callTool({
        name: "update_transactions",
        arguments: { filter: { wallet_id: wallet, ...filter }, expected_count: count, add_tags: [tag], idempotency_key: randomUUID() },
      });
    try {
      // n rows: the expenses of 1.00 … n.00 (list_transactions' amount bounds are magnitudes).
      const atLimit = await edit({ max_amount: n.toFixed(2) }, n, "at-limit");
      expect(atLimit.isError, atLimit.content?.[0]?.text).to.not.equal(true);
      expect(atLimit.structuredContent.changed).to.equal(n);
      expect(client.asked).to.deep.equal([]);
      const over = await edit({}, n + 1, "over");
      expect(errorData(over)).to.deep.include({ code: "confirmation_declined", answer: "decline" });
      expect(client.asked).to.have.length(1);
      const tagged = await server.call("list_transactions", { wallet_id: wallet, tags_any: ["over"] }, user.token);
      expect(tagged.transactions).to.have.length(0);
    } finally {
      await client.close();
    }
  });

  it("a POSTed response that no question waits for: 400 on SQLite (one process), relayed and 202 on Postgres; without a token, 401", async () => {
    const body = { jsonrpc: "2.0", id: "finance-mcp-00000000-0000-0000-0000-000000000000", result: { action: "accept" } };
    const headers = { "mcp-protocol-version": "2025-11-25" };
    const unknown = await server.rpc(body, user.token, headers);
    if (engine === "postgres") expect(unknown.status).to.equal(202);
    else {
      expect(unknown.status).to.equal(400);
      expect(unknown.body.error.code).to.equal(-32600);
    }
    expect((await server.rpc(body, undefined, headers)).status).to.equal(401);
  });

  describe("two server instances over one Postgres", function () {
    let other: Server;
    let otherUrl: string;
    let close: () => Promise<void>;
    before(async function () {
      if (engine !== "postgres") return this.skip();
      // A second process's worth of services on the same database: its own pool, its own LISTEN connection.
      const db2 = createDb(server.config.databaseUrl);
      const services2 = await createServices(server.config, db2);
      other = createServer(createApp(services2));
      await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
      otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}/api/v1/mcp`;
      close = async () => {
        other.closeAllConnections();
        await new Promise<void>((resolve) => other.close(() => resolve()));
        await closeServices(services2);
        await db2.destroy();
      };
    });
    after(async () => close?.());

    for (const answer of ["accept", "decline"] as const) {
      it(`the person's ${answer}, POSTed to the other instance, reaches the call waiting on this one`, async () => {
        const id = await newWallet();
        const asked: string[] = [];
        const client = new Client({ name: "elicitation-test", version: "0.0.0" }, { capabilities: { elicitation: {} } });
        client.setRequestHandler(ElicitRequestSchema, async (req) => {
          asked.push(req.params.message);
          return (answer === "accept" ? { action: "accept", content: {} } : { action: "decline" }) as any;
        });
        // Requests go to the first instance, JSON-RPC responses (no method) to the second: a load balancer without affinity.
        const split: typeof fetch = (url, init) => {
          const body = typeof init?.body === "string" ? JSON.parse(init.body) : undefined;
          return fetch(body && body.method === undefined && "id" in body ? otherUrl : url, init);
        };
        await client.connect(
          new StreamableHTTPClientTransport(new URL(server.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${user.token}` } }, fetch: split }),
        );
        try {
          const result = await client.callTool({ name: "delete_wallet", arguments: { wallet_id: id, idempotency_key: randomUUID() } });
          expect(asked).to.have.length(1);
          if (answer === "accept") expect((result as any).structuredContent.status).to.equal("committed");
          else expect(errorData(result)).to.deep.include({ code: "confirmation_declined", answer: "decline" });
          expect(await walletExists(id)).to.equal(answer !== "accept");
        } finally {
          await client.close();
        }
      });
    }
  });

  describe("2026-07-28 requestState", () => {
    /** A raw modern tools/call of delete_wallet; returns the JSON-RPC result. */
    async function call(token: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<any> {
      const req = modernRequest(1, "tools/call", { name: "delete_wallet", arguments: args, ...extra });
      (req.body as any).params._meta["io.modelcontextprotocol/clientCapabilities"] = { elicitation: {} };
      const answer = await server.rpc(req.body, token, req.headers);
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      return answer.body.result;
    }
    const accept = { confirm: { action: "accept", content: {} } };

    it("answers input_required with the question and a signed state; the retry commits once, a replay is refused", async () => {
      const args = { wallet_id: await newWallet(), idempotency_key: randomUUID() };
      const first = await call(user.token, args);
      expect(first.resultType).to.equal("input_required");
      expect(first.inputRequests.confirm.method).to.equal("elicitation/create");
      expect(first.requestState).to.be.a("string");
      const done = await call(user.token, args, { inputResponses: accept, requestState: first.requestState });
      expect(done.resultType).to.equal("complete");
      expect(done.structuredContent.status).to.equal("committed");
      const replay = await call(user.token, args, { inputResponses: accept, requestState: first.requestState });
      expect(errorData(replay)).to.deep.include({ code: "request_state_invalid", reason: "used" });
    });

    it("a forged or altered state is refused, and nothing is deleted", async () => {
      const id = await newWallet();
      const args = { wallet_id: id, idempotency_key: randomUUID() };
      const first = await call(user.token, args);
      const [v, body, mac] = (first.requestState as string).split(".");
      const payload = JSON.parse(Buffer.from(body!, "base64url").toString());
      const altered = `${v}.${Buffer.from(JSON.stringify({ ...payload, e: payload.e + 3_600_000 })).toString("base64url")}.${mac}`;
      for (const state of ["made-up", altered, `${v}.${body}.${Buffer.alloc(32).toString("base64url")}`]) {
        const refused = await call(user.token, args, { inputResponses: accept, requestState: state });
        expect(errorData(refused)).to.deep.include({ code: "request_state_invalid", reason: "forged" });
      }
      expect(await walletExists(id)).to.equal(true);
    });

    it("a state is bound to its user, token and arguments", async () => {
      const id = await newWallet();
      const args = { wallet_id: id, idempotency_key: randomUUID() };
      const first = await call(user.token, args);
      const other = await server.createUser();
      const theirs = await call(
        other.token,
        { wallet_id: id, idempotency_key: args.idempotency_key },
        { inputResponses: accept, requestState: first.requestState },
      );
      expect(errorData(theirs)).to.deep.include({ code: "request_state_invalid", reason: "other_call" });
      const otherToken = await call(await user.tokenWith(["write:wallets"]), args, { inputResponses: accept, requestState: first.requestState });
      expect(errorData(otherToken)).to.deep.include({ code: "request_state_invalid", reason: "other_call" });
      const otherArgs = await call(user.token, { ...args, idempotency_key: randomUUID() }, { inputResponses: accept, requestState: first.requestState });
      expect(errorData(otherArgs)).to.deep.include({ code: "request_state_invalid", reason: "other_call" });
      expect(await walletExists(id)).to.equal(true);
    });

    it("an expired state is refused by name", async () => {
      let now = Date.now();
      const clocked = await startTestServer({ RATE_LIMIT_MCP_PER_MINUTE: "10000" }, { now: () => new Date(now) });
      try {
        const u = await clocked.createUser();
        const id = (await clocked.call("create_wallet", { name: "Late", type: "cash", currency: "EUR", idempotency_key: randomUUID() }, u.token)).wallet.id;
        const args = { wallet_id: id, idempotency_key: randomUUID() };
        const req = (extra: Record<string, unknown>) => {
          const r = modernRequest(1, "tools/call", { name: "delete_wallet", arguments: args, ...extra });
          (r.body as any).params._meta["io.modelcontextprotocol/clientCapabilities"] = { elicitation: {} };
          return clocked.rpc(r.body, u.token, r.headers);
        };
        const first = (await req({})).body.result;
        now += 5 * 60_000 + 1;
        const late = (await req({ inputResponses: accept, requestState: first.requestState })).body.result;
        expect(errorData(late)).to.deep.include({ code: "request_state_expired" });
      } finally {
        await clocked.close();
      }
    });
  });
});
