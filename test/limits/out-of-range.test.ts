/**
 * Out-of-range input answers invalid_params on both engines, never conflict or internal_error: an audit
 * id or a list_changes cursor past int64, a label cursor holding NUL (Postgres text cannot store it), and
 * an SSE Last-Event-ID past int64 or past the newest entry, which is ignored: the stream stays open and
 * sends from now.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";
import { SseReader, publishChange } from "../protocol/helpers.js";

const PAST_INT64 = "9999999999999999999"; // 19 digits, above 9223372036854775807

/** The same cursor with one field of its position replaced (the fingerprint stays valid). */
function forge(cursor: string, field: string, value: unknown): string {
  const fields = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as Record<string, unknown>;
  return Buffer.from(JSON.stringify({ ...fields, [field]: value }), "utf8").toString("base64url");
}

describe(`out-of-range input (${engine})`, function () {
  this.timeout(60_000);
  let server: TestServer;
  let user: TestUser;
  const open: SseReader[] = [];
  before(async () => {
    server = await startTestServer();
    user = await server.createUser();
    const { wallet } = await server.call("create_wallet", { name: "Cash", type: "cash", currency: "USD", idempotency_key: randomUUID() }, user.token);
    for (const [payee, category, tag] of [
      ["A", "Food", "a"],
      ["B", "Rent", "b"],
    ]) {
      await server.call(
        "create_transaction",
        { wallet_id: wallet.id, date: "2026-11-01", amount: "5.00", direction: "expense", payee, category, tags: [tag], idempotency_key: randomUUID() },
        user.token,
      );
    }
  });
  afterEach(() => {
    for (const r of open.splice(0)) r.close();
  });
  after(async () => server.close());

  it("list_changes refuses an audit_id past int64 with invalid_params naming audit_id", async () => {
    for (const audit_id of [PAST_INT64, "99999999999999999999999"]) {
      const err = await server.callError("list_changes", { audit_id }, user.token);
      expect(err.data, audit_id).to.include({ code: "invalid_params", field: "audit_id" });
    }
    // The largest id the spec accepts still answers (no such entry).
    expect((await server.call("list_changes", { audit_id: "999999999999999999" }, user.token)).changes).to.deep.equal([]);
  });

  it("list_changes refuses a cursor whose position is past int64", async () => {
    const first = await server.call("list_changes", { limit: 1 }, user.token);
    expect(first.next_cursor).to.be.a("string");
    const err = await server.callError("list_changes", { limit: 1, cursor: forge(first.next_cursor, "i", PAST_INT64) }, user.token);
    expect(err.data).to.include({ code: "invalid_params", field: "cursor" });
  });

  it("list_categories and list_tags refuse a cursor whose label holds NUL", async () => {
    for (const tool of ["list_categories", "list_tags"]) {
      const first = await server.call(tool, { limit: 1 }, user.token);
      expect(first.next_cursor, tool).to.be.a("string");
      const err = await server.callError(tool, { limit: 1, cursor: forge(first.next_cursor, "k", "fo\u0000od") }, user.token);
      expect(err.data, tool).to.include({ code: "invalid_params", field: "cursor" });
    }
  });

  for (const [what, id] of [
    ["past int64", PAST_INT64],
    ["past the newest entry", "999999999999999999"],
  ] as const) {
    it(`SSE: a Last-Event-ID ${what} is ignored; the stream stays open and sends from now`, async () => {
      const s = await SseReader.open(`${server.url}/api/v1/mcp/sse`, { authorization: `Bearer ${user.token}`, "last-event-id": id });
      open.push(s);
      expect(s.response.status).to.equal(200);
      await s.endpoint();
      const entry = await publishChange(server, user.id);
      await s.until(() => s.events.find((e) => e.id === entry.id), 5000, "the change made after connecting");
      expect(s.ended).to.equal(false);
      expect(s.events.filter((e) => e.id).map((e) => e.id)).to.deep.equal([entry.id]);
    });
  }
});
