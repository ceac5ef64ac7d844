/**
 * GET /metrics: the Prometheus text format, when METRICS=on. With METRICS_TOKEN set it needs
 * `Authorization: Bearer <METRICS_TOKEN>` (its own secret, not a user token); without it the endpoint is
 * open, for a scraper on a private network. No Host check: scrapers use addresses.
 */
import { timingSafeEqual, createHash } from "node:crypto";
import express, { type Router } from "express";
import type { Config } from "../config.js";
import type { Metrics } from "../metrics/metrics.js";

function sameSecret(given: string, expected: string): boolean {
  // Hashing first makes the comparison constant-time whatever the lengths.
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}

export function metricsRouter(config: Config, metrics: Metrics): Router {
  const router = express.Router();
  router.get("/metrics", (req, res) => {
    if (config.metricsToken) {
      const auth = req.headers.authorization ?? "";
      const given = auth.startsWith("Bearer ") ? auth.slice("Bearer ".length) : "";
      if (!sameSecret(given, config.metricsToken)) {
        res.setHeader("WWW-Authenticate", 'Bearer realm="finance-mcp metrics"');
        res.status(401).json({ error: { code: "unauthorized", message: "GET /metrics needs Authorization: Bearer <METRICS_TOKEN>." } });
        return;
      }
    }
    void metrics.registry.metrics().then(
      (text) => {
        res.setHeader("Content-Type", metrics.registry.contentType);
        res.setHeader("Cache-Control", "no-store");
        res.end(text);
      },
      () => res.status(500).end(),
    );
  });
  return router;
}
