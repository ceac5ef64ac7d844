/**
 * Environment → Config, validated once at start-up: every variable, every problem reported at once, each
 * message naming the variable and what it expects. README.md lists every variable; keep them in step.
 * `finance-mcp config` prints the result without secrets (describeConfig).
 */
import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  /** Postgres: the most connections this process's request pool holds (its listener holds one more). */
  databasePoolMax: number;
  /** How long request work may wait or run in the database before it answers `unavailable` (src/db/knex.ts#RequestBounds). */
  databaseBounds: { acquireMs: number; lockMs: number; statementMs: number; idleInTransactionMs: number };
  writeTools: "enabled" | "disabled";
  validateResults: boolean;
  allowedHosts: string[];
  allowedOrigins: string[];
  maxBodyBytes: number;
  /** The body limit of a single import_transactions call (a bank statement is bigger than any other call). */
  maxImportBodyBytes: number;
  rateLimits: { mcpPerMinute: number; ssePerMinute: number; tokensPerHour: number; oauthPerHour: number };
  /** Open SSE streams at once on this process (not a rate: streams are held until the client goes). */
  sseStreams: { perToken: number; perUser: number };
  idempotencyRetentionHours: number;
  tokenPepper: string;
  /**
   * Signs web session cookies and CSRF fields when set; empty: a random key generated at first start and
   * kept in the database (src/web/secret.ts). Never derived from another setting.
   */
  sessionSecret: string;
  /**
   * express's "trust proxy": how many proxies in front of this server (a hop count), or the addresses and
   * networks of the proxies to trust; false when unset (the connection's address is the client's).
   * Every per-address limit keys on the client address this yields (docs/security.md#deploying-behind-a-proxy).
   */
  trustProxy: number | string[] | false;
  logLevel: "silent" | "error" | "info";
  logFormat: "json" | "pretty";
  shutdownGraceSeconds: number;
  /**
   * How long an idle keep-alive connection stays open (server.keepAliveTimeout), above the 60 s idle time of
   * common proxies and clients, so the server never closes a socket a client is about to reuse.
   */
  keepAliveSeconds: number;
  metrics: "off" | "on";
  /** Postgres: verified tokens cached in the process, dropped on NOTIFY (src/auth/token-cache.ts). off: a lookup per call. */
  tokenCache: "on" | "off";
  /**
   * redis:// or rediss:// URL: the per-token and per-user limits live in Redis (exact across processes, no
   * database write per call). Empty: in the database (rate_limits), as before.
   */
  redisUrl: string;
  /** When set, GET /metrics needs `Authorization: Bearer <it>` (not a user token). */
  metricsToken: string;
  /**
   * The server's public origin (https://finance.example.com) behind a TLS proxy: the OAuth issuer and the
   * MCP resource are named from it. Empty: derived from the request's Host, on loopback hosts only.
   */
  publicUrl: string;
  /** The operator's contact shown on /support (an email address or a URL); empty: "ask whoever runs it". */
  supportContact: string;
  /** The domain-verification token of ChatGPT's app directory, served at /.well-known/openai-apps-challenge; empty: 404. */
  directoryVerificationToken: string;
  /** PRIVACY_POLICY_FILE's text, read once at start; empty: the shipped text of /privacy (src/web/privacy-page.ts). */
  privacyPolicyText: string;
  oauth: {
    /** off: no OAuth discovery, metadata or endpoints (static tokens only, for clients that drop pasted headers when they see OAuth). */
    enabled: boolean;
    /** Tests only: Client ID Metadata Documents may be fetched from loopback and private addresses, over http. */
    cimdAllowPrivate: boolean;
  };
  /** Bank connections over SimpleFIN (src/banks, docs/history/bank-connections.md). */
  banks: {
    /** BANK_CREDENTIALS_KEY: 32 bytes (base64) sealing Access URLs; empty: a key kept in the database. */
    credentialsKey: string;
    /** BANK_CREDENTIALS_PREVIOUS_KEYS: keys sealed with before a rotation, still opened (comma-separated). */
    previousKeys: string[];
    /** Tests and home servers only: a bridge on a private or loopback address. */
    allowPrivate: boolean;
    /** Seconds between scheduled syncs of a connection (BANK_SYNC_INTERVAL, default 6 h); 0: no schedule. */
    syncIntervalSeconds: number;
  };
}

/** Every problem of the environment, one line each. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join("\n  ")}`);
  }
}

/** The variables loadConfig reads (others are ignored): `finance-mcp config` and README.md list these. */
export const CONFIG_VARIABLES = [
  "PORT",
  "HOST",
  "DATABASE_URL",
  "WRITE_TOOLS",
  "VALIDATE_RESULTS",
  "ALLOWED_HOSTS",
  "ALLOWED_ORIGINS",
  "MAX_BODY_BYTES",
  "MAX_IMPORT_BODY_BYTES",
  "RATE_LIMIT_MCP_PER_MINUTE",
  "RATE_LIMIT_SSE_PER_MINUTE",
  "SSE_MAX_STREAMS_PER_TOKEN",
  "SSE_MAX_STREAMS_PER_USER",
  "RATE_LIMIT_TOKENS_PER_HOUR",
  "IDEMPOTENCY_RETENTION_HOURS",
  "TOKEN_PEPPER",
  "SESSION_SECRET",
  "TRUST_PROXY",
  "LOG_LEVEL",
  "LOG_FORMAT",
  "SHUTDOWN_GRACE_SECONDS",
  "KEEP_ALIVE_TIMEOUT_SECONDS",
  "METRICS",
  "METRICS_TOKEN",
  "PUBLIC_URL",
  "PRIVACY_POLICY_FILE",
  "SUPPORT_CONTACT",
  "DIRECTORY_VERIFICATION_TOKEN",
  "OAUTH",
  "OAUTH_CIMD_ALLOW_PRIVATE",
  "RATE_LIMIT_OAUTH_PER_HOUR",
  "BANK_CREDENTIALS_KEY",
  "BANK_CREDENTIALS_PREVIOUS_KEYS",
  "BANK_BRIDGE_ALLOW_PRIVATE",
  "BANK_SYNC_INTERVAL",
] as const;

class Reader {
  readonly problems: string[] = [];
  constructor(private readonly env: NodeJS.ProcessEnv) {}

  raw(name: string): string | undefined {
    const v = this.env[name];
    return v === undefined || v === "" ? undefined : v;
  }

  fail<T>(name: string, expected: string, fallback: T): T {
    const v = this.env[name] ?? "";
    this.problems.push(`${name} must be ${expected}, got ${JSON.stringify(v.length > 80 ? `${v.slice(0, 80)}…` : v)}`);
    return fallback;
  }

  int(name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
    const raw = this.raw(name);
    if (raw === undefined) return fallback;
    if (!/^\d{1,15}$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      return this.fail(name, max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer from ${min} to ${max}`, fallback);
    }
    return Number(raw);
  }

  oneOf<T extends string>(name: string, values: readonly T[], fallback: T): T {
    const raw = this.raw(name);
    if (raw === undefined) return fallback;
    if (!(values as readonly string[]).includes(raw)) return this.fail(name, `one of ${values.join(", ")}`, fallback);
    return raw as T;
  }

  list(name: string, fallback: string[], valid: (item: string) => boolean, expected: string): string[] {
    const raw = this.env[name];
    if (raw === undefined || raw.trim() === "") return fallback;
    const items = raw
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    const bad = items.filter((i) => i !== "*" && !valid(i));
    if (bad.length > 0) return this.fail(name, `a comma-separated list of ${expected} (or *); not valid: ${bad.join(", ")}`, fallback);
    return items;
  }
}

const HOSTNAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;

function validHost(host: string): boolean {
  if (host.startsWith("[") && host.endsWith("]")) return isIP(host.slice(1, -1)) === 6;
  return isIP(host) !== 0 || HOSTNAME.test(host);
}

function validOrigin(origin: string): boolean {
  try {
    const u = new URL(origin);
    return (u.protocol === "http:" || u.protocol === "https:") && origin.replace(/\/$/, "") === u.origin;
  } catch {
    return false;
  }
}

/** Host names that only this machine can reach: the one place an OAuth issuer may be plain http. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  return h === "localhost" || h === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** Why a PUBLIC_URL cannot be used (an origin, https unless loopback), or undefined when it can. */
function publicUrlProblem(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return "an origin such as https://finance.example.com (not a parseable URL)";
  }
  if (u.origin !== url) return "an origin such as https://finance.example.com: scheme, host and port only, no path, query or credentials";
  if (u.protocol === "https:") return undefined;
  if (u.protocol === "http:" && isLoopbackHost(u.hostname)) return undefined;
  return "an https origin (plain http only on loopback: localhost, 127.0.0.1, [::1])";
}

/** proxy-addr's (express's) names for address ranges, allowed in TRUST_PROXY's list. */
const PROXY_RANGES = ["loopback", "linklocal", "uniquelocal"];

/** An address or network TRUST_PROXY may list: an IP, an IP with a prefix length, or one of PROXY_RANGES. */
function validProxyAddress(item: string): boolean {
  if (PROXY_RANGES.includes(item)) return true;
  const [ip = "", prefix, extra] = item.split("/");
  const family = isIP(ip);
  if (family === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * TRUST_PROXY → express's "trust proxy": a hop count from 1 to 10, or a list of proxy addresses and
 * networks. "true" (trust every hop) is refused: any client could then name its own address in
 * X-Forwarded-For and escape every per-address limit.
 */
function readTrustProxy(r: Reader): number | string[] | false {
  const raw = r.raw("TRUST_PROXY")?.trim();
  if (raw === undefined || raw === "" || raw === "false") return false;
  const expected =
    "a hop count from 1 to 10 (how many proxies stand in front of this server) or a comma-separated list of proxy addresses, networks (10.0.0.0/8) or loopback, linklocal, uniquelocal";
  if (/^\d+$/.test(raw)) return Number(raw) >= 1 && Number(raw) <= 10 ? Number(raw) : r.fail("TRUST_PROXY", expected, false);
  const items = raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (items.length === 0 || items.some((i) => !validProxyAddress(i))) return r.fail("TRUST_PROXY", expected, false);
  const family = familyTrustedByHalf(items);
  if (family) {
    r.problems.push(
      `TRUST_PROXY must list only your proxies: ${JSON.stringify(raw.length > 80 ? `${raw.slice(0, 80)}…` : raw)} covers half or more of all ${family === "ipv4" ? "IPv4" : "IPv6"} addresses, so nearly any client could name its own address in X-Forwarded-For and escape every per-address limit`,
    );
    return false;
  }
  return items;
}

/** The address space as 128-bit integers: IPv6 as itself, IPv4 as its IPv4-mapped form ::ffff:a.b.c.d (as proxy-addr matches them). */
const V4_START = 0xffffn << 32n;
const V4_END = V4_START + (1n << 32n) - 1n;

/** [first, last] of an address or network of TRUST_PROXY's list, in the space above (named ranges are small: none). */
function proxyRange(item: string): [bigint, bigint] | undefined {
  if (PROXY_RANGES.includes(item)) return undefined;
  const [ip = "", prefix] = item.split("/");
  const parsed = ipaddr.parse(ip);
  const v6 = parsed.kind() === "ipv4" ? (parsed as ipaddr.IPv4).toIPv4MappedAddress() : (parsed as ipaddr.IPv6);
  const bits = prefix === undefined ? 128 : Number(prefix) + (parsed.kind() === "ipv4" ? 96 : 0);
  const value = v6.toByteArray().reduce((n, byte) => (n << 8n) | BigInt(byte), 0n);
  const size = 1n << BigInt(128 - bits);
  const first = value - (value % size);
  return [first, first + size - 1n];
}

/**
 * "ipv4" or "ipv6" when the list trusts at least half of that family's addresses (0.0.0.0/1,128.0.0.0/1
 * is "true" in two halves; 0.0.0.0/0 also crashed proxy-addr with a raw message), else undefined. Half,
 * not all: a list that leaves a sliver out trusts nearly every client just the same, and no real set of
 * proxies (a private network, a CDN's ranges) comes near it (docs/decisions.md#trust-proxy-coverage).
 */
export function familyTrustedByHalf(items: string[]): "ipv4" | "ipv6" | undefined {
  const ranges = items
    .flatMap((i) => {
      const range = proxyRange(i);
      return range ? [range] : [];
    })
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  let v4 = 0n;
  let all = 0n;
  let end = -1n;
  for (const [first, last] of ranges) {
    const from = first > end ? first : end + 1n; // the part not counted yet
    if (from > last) continue;
    all += last - from + 1n;
    const lo = from > V4_START ? from : V4_START;
    const hi = last < V4_END ? last : V4_END;
    if (lo <= hi) v4 += hi - lo + 1n;
    end = last;
  }
  if (v4 >= 1n << 31n) return "ipv4";
  if (all - v4 >= 1n << 127n) return "ipv6";
  return undefined;
}

/** Why a DATABASE_URL cannot be used, or undefined when it can. */
function databaseUrlProblem(url: string): string | undefined {
  if (url.startsWith("sqlite:")) {
    return url.slice("sqlite:".length).replace(/^\/\//, "") === "" ? "sqlite:<path to a file> (the path is empty)" : undefined;
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    try {
      const u = new URL(url);
      if (!u.hostname) return "postgres://[user[:password]@]host[:port]/database (the host is missing)";
      return undefined;
    } catch {
      return "postgres://[user[:password]@]host[:port]/database (not a parseable URL)";
    }
  }
  return "sqlite:<path> or postgres://[user[:password]@]host[:port]/database";
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const r = new Reader(env);
  const databaseUrl = r.raw("DATABASE_URL") ?? "sqlite:data/finance.sqlite";
  const dbProblem = databaseUrlProblem(databaseUrl);
  // The URL may hold a password: the message shows it masked.
  if (dbProblem) r.problems.push(`DATABASE_URL must be ${dbProblem}, got ${JSON.stringify(maskUrl(databaseUrl))}`);
  const host = r.raw("HOST") ?? "127.0.0.1";
  if (!validHost(host) && host !== "::") r.problems.push(`HOST must be an IP address or a host name to listen on, got ${JSON.stringify(host)}`);
  const pepper = env.TOKEN_PEPPER ?? "";
  if (pepper !== "" && pepper.length < 16) r.problems.push("TOKEN_PEPPER must be at least 16 characters when set (its value is not shown)");
  const sessionSecret = env.SESSION_SECRET ?? "";
  if (sessionSecret !== "" && sessionSecret.length < 32) r.problems.push("SESSION_SECRET must be at least 32 characters when set (its value is not shown)");
  const metricsToken = env.METRICS_TOKEN ?? "";
  if (metricsToken !== "" && metricsToken.length < 16) r.problems.push("METRICS_TOKEN must be at least 16 characters when set (its value is not shown)");

  const redisUrl = r.raw("REDIS_URL") ?? "";
  if (redisUrl !== "" && !/^rediss?:\/\/[^\s]+$/.test(redisUrl)) r.problems.push("REDIS_URL must be a redis:// or rediss:// URL (its value is not shown)");

  const publicUrl = (r.raw("PUBLIC_URL") ?? "").replace(/(?<!\/)\/+$/, "");
  if (publicUrl !== "") {
    const problem = publicUrlProblem(publicUrl);
    if (problem) r.problems.push(`PUBLIC_URL must be ${problem}, got ${JSON.stringify(publicUrl.slice(0, 80))}`);
  }

  const bankKeys = [env.BANK_CREDENTIALS_KEY ?? "", ...(env.BANK_CREDENTIALS_PREVIOUS_KEYS ?? "").split(",")].map((k) => k.trim()).filter(Boolean);
  if (bankKeys.some((k) => !/^[A-Za-z0-9+/_-]{43}=?$/.test(k) || Buffer.from(k, "base64").length !== 32))
    r.problems.push(
      "BANK_CREDENTIALS_KEY and BANK_CREDENTIALS_PREVIOUS_KEYS must be 32 random bytes in base64 each (openssl rand -base64 32; values not shown)",
    );

  const config: Config = {
    port: r.int("PORT", 8080, 0, 65535),
    host,
    databaseUrl,
    databasePoolMax: r.int("DATABASE_POOL_MAX", 10, 1, 1000),
    // Bounded waits (docs/operations.md, "When requests wait on the database"): a request that cannot get a
    // connection or a lock in time answers `unavailable` with Retry-After instead of hanging.
    databaseBounds: {
      acquireMs: r.int("DATABASE_ACQUIRE_TIMEOUT_MS", 5000, 100, 600_000),
      lockMs: r.int("DATABASE_LOCK_TIMEOUT_MS", 5000, 100, 600_000),
      statementMs: r.int("DATABASE_STATEMENT_TIMEOUT_MS", 30_000, 100, 3_600_000),
      idleInTransactionMs: r.int("DATABASE_IDLE_TRANSACTION_TIMEOUT_MS", 60_000, 1000, 3_600_000),
    },
    writeTools: r.oneOf("WRITE_TOOLS", ["enabled", "disabled"] as const, "enabled"),
    validateResults: r.oneOf("VALIDATE_RESULTS", ["true", "false"] as const, "true") === "true",
    // DNS-rebinding protection: Host must name this server. "*" turns the check off (behind a trusted proxy).
    allowedHosts: r.list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"], validHost, "host names or IP addresses").map((h) => h.toLowerCase()),
    allowedOrigins: r.list("ALLOWED_ORIGINS", ["http://localhost", "http://127.0.0.1", "http://[::1]"], validOrigin, "origins such as https://example.com"),
    maxBodyBytes: r.int("MAX_BODY_BYTES", 256 * 1024, 1),
    // 5,000 rows of a German bank CSV are about 1 MB; 8 MiB leaves room for verbose CAMT and JSON escaping.
    maxImportBodyBytes: r.int("MAX_IMPORT_BODY_BYTES", 8 * 1024 * 1024, 1),
    rateLimits: {
      mcpPerMinute: r.int("RATE_LIMIT_MCP_PER_MINUTE", 120, 1),
      ssePerMinute: r.int("RATE_LIMIT_SSE_PER_MINUTE", 30, 1),
      tokensPerHour: r.int("RATE_LIMIT_TOKENS_PER_HOUR", 10, 1),
      // Client registrations and authorization requests (each may fetch a metadata document) per client address.
      oauthPerHour: r.int("RATE_LIMIT_OAUTH_PER_HOUR", 60, 1),
    },
    // Open streams hold a socket and a descriptor each until the client goes: capped, not just rated.
    sseStreams: { perToken: r.int("SSE_MAX_STREAMS_PER_TOKEN", 3, 1), perUser: r.int("SSE_MAX_STREAMS_PER_USER", 5, 1) },
    idempotencyRetentionHours: r.int("IDEMPOTENCY_RETENTION_HOURS", 24, 1),
    tokenPepper: pepper,
    sessionSecret,
    trustProxy: readTrustProxy(r),
    logLevel: r.oneOf("LOG_LEVEL", ["silent", "error", "info"] as const, "info"),
    logFormat: r.oneOf("LOG_FORMAT", ["json", "pretty"] as const, "json"),
    shutdownGraceSeconds: r.int("SHUTDOWN_GRACE_SECONDS", 10, 0, 3600),
    // Node's default is 5 s: a client busy longer than that lost its next call on a socket just closed.
    keepAliveSeconds: r.int("KEEP_ALIVE_TIMEOUT_SECONDS", 65, 1, 290),
    metrics: r.oneOf("METRICS", ["off", "on"] as const, "off"),
    tokenCache: r.oneOf("TOKEN_CACHE", ["on", "off"] as const, "on"),
    redisUrl,
    metricsToken,
    publicUrl,
    privacyPolicyText: readPrivacyPolicy(r),
    supportContact: (r.raw("SUPPORT_CONTACT") ?? "").slice(0, 200),
    directoryVerificationToken: directoryToken(r),
    oauth: {
      enabled: r.oneOf("OAUTH", ["on", "off"] as const, "on") === "on",
      cimdAllowPrivate: r.oneOf("OAUTH_CIMD_ALLOW_PRIVATE", ["true", "false"] as const, "false") === "true",
    },
    banks: {
      credentialsKey: (env.BANK_CREDENTIALS_KEY ?? "").trim(),
      previousKeys: (env.BANK_CREDENTIALS_PREVIOUS_KEYS ?? "")
        .split(",")
        .map((k) => k.trim())
        .filter(Boolean),
      allowPrivate: r.oneOf("BANK_BRIDGE_ALLOW_PRIVATE", ["true", "false"] as const, "false") === "true",
      // The public bridge allows about 24 requests a day per connection: at least an hour between syncs.
      syncIntervalSeconds: readInterval(r),
    },
  };
  if (r.problems.length > 0) throw new ConfigError(r.problems);
  return config;
}

/** DIRECTORY_VERIFICATION_TOKEN: the token the directory gives, visible ASCII only (it is served as it is). */
function directoryToken(r: Reader): string {
  const raw = r.raw("DIRECTORY_VERIFICATION_TOKEN")?.trim();
  if (raw === undefined) return "";
  return /^[\x21-\x7e]{1,512}$/.test(raw) ? raw : r.fail("DIRECTORY_VERIFICATION_TOKEN", "1 to 512 visible ASCII characters", "");
}

/** BANK_SYNC_INTERVAL: seconds, or 30m / 6h / 1d; at least an hour; 0 turns the schedule off. */
function readInterval(r: Reader): number {
  const raw = r.raw("BANK_SYNC_INTERVAL");
  if (raw === undefined) return 6 * 3600;
  const m = /^(\d{1,7})([smhd]?)$/.exec(raw.trim());
  const seconds = m ? Number(m[1]) * { "": 1, s: 1, m: 60, h: 3600, d: 86_400 }[m[2] as "" | "s" | "m" | "h" | "d"] : NaN;
  if (seconds === 0) return 0;
  if (!(seconds >= 3600 && seconds <= 30 * 86_400))
    return r.fail("BANK_SYNC_INTERVAL", "a duration from 1h to 30d (3600, 90m, 6h, 1d) or 0 for no schedule", 6 * 3600);
  return seconds;
}

/** The most an operator's privacy text may hold: a page, not a file anyone could mistake for storage. */
const PRIVACY_POLICY_MAX_BYTES = 64 * 1024;

/** PRIVACY_POLICY_FILE: a UTF-8 text file an operator writes in place of the shipped privacy page. */
function readPrivacyPolicy(r: Reader): string {
  const path = r.raw("PRIVACY_POLICY_FILE");
  if (path === undefined) return "";
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return r.fail("PRIVACY_POLICY_FILE", "a readable file", "");
  }
  if (bytes.length > PRIVACY_POLICY_MAX_BYTES) return r.fail("PRIVACY_POLICY_FILE", `a file of at most ${PRIVACY_POLICY_MAX_BYTES} bytes`, "");
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
  if (text.includes("\uFFFD") || text.trim() === "") return r.fail("PRIVACY_POLICY_FILE", "a file of UTF-8 text", "");
  return text.replace(/\r\n?/g, "\n");
}

/** Settings that start but are probably wrong, one sentence each (logged at start by createServices). */
export function configWarnings(config: Config): string[] {
  const warnings: string[] = [];
  if (config.publicUrl.startsWith("https://") && config.trustProxy === false) {
    warnings.push(
      "PUBLIC_URL is https but TRUST_PROXY is unset: behind a TLS proxy every client then has the proxy's address, and the per-address limits (sign-in, OAuth) are shared by everyone. Set TRUST_PROXY (docs/security.md, 'Deploying behind a proxy').",
    );
  }
  return warnings;
}

/** A database URL with its password replaced by ***. */
export function maskUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:/@]*:)[^@]*@/, "$1***@");
}

/** What the listening log line says about the database: the SQLite path, or the Postgres URL without password. */
export function describeDatabase(url: string): string {
  return maskUrl(url);
}

/** The effective configuration for people: secrets only as set / not set. */
export function describeConfig(config: Config): Record<string, unknown> {
  return {
    ...config,
    databaseUrl: maskUrl(config.databaseUrl),
    tokenPepper: config.tokenPepper ? "(set)" : "(not set)",
    sessionSecret: config.sessionSecret ? "(set)" : "(not set: a random key kept in the database)",
    metricsToken: config.metricsToken ? "(set)" : "(not set)",
    // A Redis URL may hold a password (redis://:secret@host): shown only as set or not.
    redisUrl: config.redisUrl ? "(set)" : "(not set)",
    banks: {
      ...config.banks,
      credentialsKey: config.banks.credentialsKey ? "(set)" : "(not set: a random key kept in the database)",
      previousKeys: `(${config.banks.previousKeys.length} set)`,
    },
    privacyPolicyText: config.privacyPolicyText ? `(from PRIVACY_POLICY_FILE, ${config.privacyPolicyText.length} characters)` : "(the shipped text)",
  };
}
