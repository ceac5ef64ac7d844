/**
 * GET /metrics (prom-client): off by default, behind METRICS_TOKEN when set, and counting what the
 * issue names: calls per tool and outcome, latency per tool, writes by status (replays, dry runs),
 * rate-limit rejections, open SSE streams, the pool, and the process defaults.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const METRICS_TOKEN = "metrics-secret-0123456789";

/** The value of one sample line, e.g. sample(text, 'finance_mcp_tool_calls_total{gen_ai_tool_name="whoami",outcome="ok",error_type=""}'). */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe(`metrics (${engine})`, () => {
  it("is off by default: /metrics is 404", async () => {
    const server = await startTestServer();
    try {
      expect((await fetch(`${server.url}/metrics`)).status).to.equal(404);
    } finally {
      await server.close();
    }
  });

  describe("METRICS=on with METRICS_TOKEN", () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ METRICS: "on", METRICS_TOKEN, RATE_LIMIT_MCP_PER_MINUTE: "12" });
    });
    after(async () => server.close());

    const scrape = async () => {
      const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(res.status).to.equal(200);
      expect(res.headers.get("content-type")).to.match(/^text\/plain; version=0\.0\.4/);
      return res.text();
    };

    it("refuses a scrape without the metrics token, or with a user token", async () => {
      const user = await server.createUser();
      expect((await fetch(`${server.url}/metrics`)).status).to.equal(401);
      expect((await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${user.token}` } })).status).to.equal(401);
    });

    it("counts calls per tool and outcome, latency, writes by status, rate-limit rejections, streams and the pool", async () => {
      const user = await server.createUser();
      await server.call("whoami", {}, user.token);
      await server.call("whoami", {}, user.token);
      const missing = await server.callError("get_goal_progress", { goal_id: "gol_doesnotexist000000000" }, user.token);
      expect(missing.data.code).to.equal("not_found");
      const key = randomUUID();
      const wallet = { name: "Metrics", type: "cash", currency: "USD", idempotency_key: key };
      await server.call("create_wallet", wallet, user.token);
      await server.call("create_wallet", wallet, user.token); // replayed
      await server.call("create_wallet", { ...wallet, name: "Dry", idempotency_key: randomUUID(), dry_run: true }, user.token);
      const bad = await server.callError("create_wallet", { name: "x" }, user.token);
      expect(bad.data.code).to.equal("invalid_params");

      const sse = await fetch(`${server.url}/api/v1/mcp/sse`, { headers: { authorization: `Bearer ${user.token}`, accept: "text/event-stream" } });
      expect(sse.status).to.equal(200);
      // The 12-per-minute limit: this token has made 8 calls, so some of the next 6 are refused.
      let refused = 0;
      for (let i = 0; i < 6; i++) if ((await server.rpc({ jsonrpc: "2.0", id: i, method: "whoami" }, user.token)).status === 429) refused++;
      expect(refused).to.be.greaterThan(0);

      const text = await scrape();
      expect(sample(text, 'finance_mcp_tool_calls_total{gen_ai_tool_name="whoami",outcome="ok",error_type=""}')).to.equal(2 + 6 - refused);
      expect(sample(text, 'finance_mcp_tool_calls_total{gen_ai_tool_name="get_goal_progress",outcome="tool_error",error_type="not_found"}')).to.equal(1);
      expect(sample(text, 'finance_mcp_tool_calls_total{gen_ai_tool_name="create_wallet",outcome="tool_error",error_type="invalid_params"}')).to.equal(1);
      expect(sample(text, 'finance_mcp_writes_total{gen_ai_tool_name="create_wallet",status="committed"}')).to.equal(1);
      expect(sample(text, 'finance_mcp_writes_total{gen_ai_tool_name="create_wallet",status="replayed"}')).to.equal(1);
      expect(sample(text, 'finance_mcp_writes_total{gen_ai_tool_name="create_wallet",status="dry_run"}')).to.equal(1);
      expect(sample(text, 'finance_mcp_rate_limit_rejections_total{limit="mcp"}')).to.equal(refused);
      expect(sample(text, 'mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call",gen_ai_tool_name="whoami",error_type=""}')).to.equal(
        2 + 6 - refused,
      );
      expect(
        sample(text, 'mcp_server_operation_duration_seconds_bucket{le="+Inf",mcp_method_name="tools/call",gen_ai_tool_name="whoami",error_type=""}'),
      ).to.equal(2 + 6 - refused);
      expect(sample(text, "finance_mcp_sse_streams")).to.equal(1);
      expect(sample(text, 'finance_mcp_http_requests_total{http_request_method="POST",http_route="/api/v1/mcp",http_response_status_code="429"}')).to.equal(
        refused,
      );
      expect(sample(text, 'finance_mcp_http_requests_total{http_request_method="GET",http_route="/api/v1/mcp/sse",http_response_status_code="200"}')).to.equal(
        undefined,
      ); // still open
      await fetch(`${server.url}/no/such/${user.id}`);
      expect(sample(await scrape(), 'finance_mcp_http_requests_total{http_request_method="GET",http_route="_other",http_response_status_code="404"}')).to.equal(
        1,
      );
      expect(sample(text, "finance_mcp_db_pool_max")).to.equal(engine === "sqlite" ? 1 : 10);
      expect(sample(text, 'finance_mcp_db_pool_connections{state="used"}')).to.be.a("number");
      expect(text).to.match(/^process_cpu_user_seconds_total \d/m);
      expect(text).to.match(/^nodejs_eventloop_lag_seconds /m);
      // No user data in any label.
      expect(await scrape()).not.to.include(user.id);
      expect(text).not.to.include("Metrics");
      await sse.body?.cancel();
    });
  });
});
