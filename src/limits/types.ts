/** The three limits of the service description, counted per token (MCP, SSE) or per user (token creation). */
export type LimitName = "mcp" | "sse" | "tokens";

export interface LimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
  windowSeconds: number;
}

export interface RateLimits {
  consume(name: LimitName, key: string): Promise<LimitDecision>;
  close(): Promise<void>;
}
