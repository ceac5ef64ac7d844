/**
 * A loopback proxy for the MCP conformance suite, which cannot send an Authorization header: it
 * forwards every request to the server unchanged (Host and Origin included, so the server's own
 * DNS-rebinding checks still decide) and adds "Authorization: Bearer <token>" when the request has none.
 * Test tooling only: it listens on 127.0.0.1 and forwards only to 127.0.0.1.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface AuthProxy {
  port: number;
  url: string;
  close(): Promise<void>;
}

export async function startAuthProxy(targetPort: number, token: string): Promise<AuthProxy> {
  const server = http.createServer((req, res) => {
    const headers = { ...req.headers };
    if (!headers.authorization) headers.authorization = `Bearer ${token}`;
    const upstream = http.request({ host: "127.0.0.1", port: targetPort, method: req.method, path: req.url, headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on("error", () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
    res.on("close", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://localhost:${port}/api/v1/mcp`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// Stand-alone: TOKEN=… TARGET_PORT=8080 [PROXY_PORT=4000] tsx test/protocol/conformance-proxy.ts
if (import.meta.url === `file://${process.argv[1]}`) {
  const token = process.env.TOKEN;
  if (!token) throw new Error("TOKEN is required");
  const proxy = await startAuthProxy(Number(process.env.TARGET_PORT ?? 8080), token);
  console.log(`proxy on ${proxy.url}`);
}
