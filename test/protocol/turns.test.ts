/**
 * The SQLite turn gate (src/http/turns.ts): requests start in arrival order, a few per event-loop turn
 * while others wait, so that the loop gets to accept connections and read requests between them; an
 * idle server starts a request at once. And through the real server: many concurrent connections each
 * get their own answer.
 */
import { expect } from "chai";
import { PER_TURN, createTurnGate, turnGateFor } from "../../src/http/turns.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.js";
import { JSON_HEADERS, raw } from "./helpers.js";

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Five requests read in one turn, and what the loop does meanwhile (accepting a connection, reading a request). */
async function orderOf(perTurn: number): Promise<string[]> {
  const gate = createTurnGate(perTurn);
  const order: string[] = [];
  const request = async (name: string) => {
    const wait = gate.enter();
    if (wait) await wait;
    order.push(name); // stands for the request's synchronous database work
  };
  const all = ["a", "b", "c", "d", "e"].map(request);
  setImmediate(() => order.push("io-1"));
  await nextTurn();
  setImmediate(() => order.push("io-2"));
  await Promise.all(all);
  return order;
}

describe("turn gate", () => {
  it("starts requests in arrival order, one per turn with a limit of one, with I/O in between", async () => {
    const order = await orderOf(1);
    // Without the gate all five requests would have run before io-1.
    expect(order.filter((x) => !x.startsWith("io"))).to.deep.equal(["a", "b", "c", "d", "e"]);
    expect(order.indexOf("io-1")).to.be.lessThan(order.indexOf("c"));
    expect(order.indexOf("io-2")).to.be.lessThan(order.indexOf("e"));
  });

  it("starts at most its limit of waiting requests per turn (the default is a few)", async () => {
    expect(PER_TURN).to.be.within(1, 8);
    const order = await orderOf(2);
    expect(order.slice(0, 6)).to.deep.equal(["a", "b", "c", "d", "io-1", "e"]);
  });

  it("lets a request start at once when the previous turn's queue has drained", async () => {
    const gate = createTurnGate(1);
    expect(gate.enter()).to.equal(undefined);
    await gate.enter();
    await nextTurn();
    await nextTurn();
    expect(gate.enter()).to.equal(undefined);
  });

  it("never holds a request on Postgres", () => {
    const gate = turnGateFor(false);
    for (let i = 0; i < 5; i++) expect(gate.enter()).to.equal(undefined);
  });
});

describe(`many concurrent connections (${engine})`, function () {
  this.timeout(60_000);
  let server: TestServer;
  let user: TestUser;
  before(async () => {
    server = await startTestServer();
    user = await server.createUser();
  });
  after(async () => server.close());

  it("answers each of 60 simultaneous requests, on their own connections, with its own id and result", async () => {
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        raw(server.mcpUrl, {
          headers: { ...JSON_HEADERS, connection: "close", authorization: `Bearer ${user.token}` },
          body: JSON.stringify(i % 3 === 0 ? { jsonrpc: "2.0", id: i, method: "tools/list" } : { jsonrpc: "2.0", id: i, method: "whoami", params: {} }),
        }),
      ),
    );
    answers.forEach((a, i) => {
      expect(a.status, a.text).to.equal(200);
      expect(a.json.id).to.equal(i);
      if (i % 3 === 0) expect(a.json.result.tools.length).to.be.greaterThan(20);
      else expect(a.json.result.user_id).to.equal(user.id);
    });
  });
});
