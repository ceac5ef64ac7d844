/**
 * The three limits of the service description, counted per token (MCP, SSE) or per user (token creation),
 * and the OAuth endpoints a stranger can call without credentials (registration, authorization), per address.
 */
export type LimitName = "mcp" | "sse" | "tokens" | "oauth";

export interface LimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
  windowSeconds: number;
}

/**
 * What the login throttle says about one attempt to log in with HTTP Basic (the tokens endpoint).
 * Refused: answer 429 without checking the password. Otherwise wait `delayMs` before checking it.
 */
export type LoginVerdict = { refused: true; retryAfterSeconds: number } | { refused: false; delayMs: number };

export interface LoginThrottle {
  /**
   * Counts the attempt (atomically, before the password is checked) against the email and the client
   * address; with `device` (a valid device cookie's nonce for this email, src/auth/device-cookie.ts),
   * against the email and that device instead, so others' failures never refuse it.
   */
  attempt(email: string, clientAddress: string, device?: string): Promise<LoginVerdict>;
  /** The password was right: the email's consecutive-failure count restarts and the address gets its point back. */
  succeeded(email: string, clientAddress: string, device?: string): Promise<void>;
}

export interface RateLimits {
  consume(name: LimitName, key: string): Promise<LimitDecision>;
  login: LoginThrottle;
  /** Resolves once the store can count (Redis connected), or after a short wait: never fails. */
  ready?(): Promise<void>;
  close(): Promise<void>;
}
