/**
 * Applies a limit and writes the IETF draft headers (RateLimit-Policy, RateLimit) on every answer, plus
 * Retry-After and a rate_limited error when the limit is exceeded.
 */
import type { Response } from "express";
import { AppError } from "../errors.js";
import type { LimitName, RateLimits } from "../limits/types.js";

export async function applyLimit(limits: RateLimits, res: Response, name: LimitName, key: string): Promise<void> {
  const d = await limits.consume(name, key);
  res.setHeader("RateLimit-Policy", `"${name}";q=${d.limit};w=${d.windowSeconds}`);
  res.setHeader("RateLimit", `"${name}";r=${d.remaining};t=${d.resetSeconds}`);
  if (!d.allowed) {
    throw new AppError(
      "rate_limited",
      `Too many requests: this token may make ${d.limit} requests per ${d.windowSeconds} seconds. Wait ${d.resetSeconds} seconds, then retry.`,
      {
        retry_after_seconds: d.resetSeconds,
      },
    );
  }
}
