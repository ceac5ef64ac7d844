/**
 * Environment → Config, validated once at start-up. README.md lists every variable; keep them in step.
 */
export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  writeTools: "enabled" | "disabled";
  validateResults: boolean;
  allowedHosts: string[];
  allowedOrigins: string[];
  maxBodyBytes: number;
  rateLimits: { mcpPerMinute: number; ssePerMinute: number; tokensPerHour: number };
  idempotencyRetentionHours: number;
  tokenPepper: string;
  logLevel: "silent" | "error" | "info";
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 1): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw new Error(`${name} must be an integer >= ${min}, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

function list(env: NodeJS.ProcessEnv, name: string, fallback: string[]): string[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  return raw.split(",").map((s) => s.trim()).filter(Boolean);
}

function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, values: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!(values as readonly string[]).includes(raw)) throw new Error(`${name} must be one of ${values.join(", ")}, got ${JSON.stringify(raw)}`);
  return raw as T;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int(env, "PORT", 8080, 0);
  return {
    port,
    host: env.HOST || "127.0.0.1",
    databaseUrl: env.DATABASE_URL || "sqlite:data/finance.sqlite",
    writeTools: oneOf(env, "WRITE_TOOLS", ["enabled", "disabled"] as const, "enabled"),
    validateResults: oneOf(env, "VALIDATE_RESULTS", ["true", "false"] as const, "true") === "true",
    // DNS-rebinding protection: Host must name this server. "*" turns the check off (behind a trusted proxy).
    allowedHosts: list(env, "ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"]),
    allowedOrigins: list(env, "ALLOWED_ORIGINS", ["http://localhost", "http://127.0.0.1", "http://[::1]"]),
    maxBodyBytes: int(env, "MAX_BODY_BYTES", 256 * 1024),
    rateLimits: {
      mcpPerMinute: int(env, "RATE_LIMIT_MCP_PER_MINUTE", 120),
      ssePerMinute: int(env, "RATE_LIMIT_SSE_PER_MINUTE", 30),
      tokensPerHour: int(env, "RATE_LIMIT_TOKENS_PER_HOUR", 10),
    },
    idempotencyRetentionHours: int(env, "IDEMPOTENCY_RETENTION_HOURS", 24),
    tokenPepper: env.TOKEN_PEPPER || "",
    logLevel: oneOf(env, "LOG_LEVEL", ["silent", "error", "info"] as const, "info"),
  };
}
