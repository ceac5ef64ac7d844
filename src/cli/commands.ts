/**
 * What the `finance-mcp` command offers, as data: each command's name, one-line purpose, example, options
 * (with their defaults), arguments and the environment variables it reads. The dispatcher (src/cli/main.ts)
 * parses with `node:util` parseArgs from these same options, and `--help` (src/cli/help.ts) prints them, so
 * what is documented is what is accepted. Nothing here loads the database or the server: help stays fast.
 */
import type { Config } from "../config.js";

export interface OptionSpec {
  name: string;
  type: "string" | "boolean";
  /** The placeholder shown after a string option: `--email EMAIL`. */
  value?: string;
  description: string;
  default?: string;
  required?: boolean;
}

/** An environment variable a command reads; `default` computed from the configuration's own defaults. */
export interface EnvSpec {
  name: string;
  description: string;
  default?: (defaults: Config) => string;
}

export interface CommandSpec {
  /** One word, or a group and a word ("token create"). */
  name: string;
  summary: string;
  example: string;
  options: OptionSpec[];
  /** Positional arguments, in order. */
  args?: { name: string; description: string; default?: string; required?: boolean }[];
  env: EnvSpec[];
  /** Said after the options: what the command prints, or where to read more. */
  notes?: string;
}

const DATABASE_URL: EnvSpec = {
  name: "DATABASE_URL",
  description: "sqlite:<path> or postgres://… (the folder of a SQLite file is made when missing)",
  default: (c) => c.databaseUrl,
};
const PASSWORD: EnvSpec = { name: "FINANCE_MCP_PASSWORD", description: "the user's password; read from standard input when unset" };
const EMAIL: OptionSpec = { name: "email", type: "string", value: "EMAIL", description: "the user's email", required: true };

export const COMMANDS: CommandSpec[] = [
  {
    name: "serve",
    summary: "start the server (the default when no command is given; same as npm start)",
    example: "finance-mcp serve",
    options: [],
    env: [
      { name: "PORT", description: "HTTP port (0 picks a free one)", default: (c) => String(c.port) },
      { name: "HOST", description: "address to listen on", default: (c) => c.host },
      DATABASE_URL,
      { name: "PUBLIC_URL", description: "the public https origin behind a TLS proxy (OAuth issuer)", default: () => "(empty)" },
      { name: "LOG_LEVEL", description: "silent, error or info", default: (c) => c.logLevel },
      { name: "LOG_FORMAT", description: "json or pretty", default: (c) => c.logFormat },
      {
        name: "KEEP_ALIVE_TIMEOUT_SECONDS",
        description: "how long an idle connection stays open; keep it above your proxy's and clients' idle timeout",
        default: (c) => String(c.keepAliveSeconds),
      },
    ],
    notes: "Every variable of README's Configuration table applies; `finance-mcp config` prints the effective values. Stop with Ctrl-C or SIGTERM (graceful).",
  },
  {
    name: "demo",
    summary: "a fresh demo database, a token and the server, with ready-to-paste client configuration",
    example: "finance-mcp demo",
    options: [
      { name: "db", type: "string", value: "FILE", description: "the new SQLite file to create", default: "a temporary folder" },
      { name: "port", type: "string", value: "N", description: "HTTP port", default: "PORT, else 8080" },
    ],
    env: [
      { name: "PORT", description: "HTTP port when --port is not given", default: (c) => String(c.port) },
      { name: "LOG_LEVEL", description: "server log level", default: () => "error" },
    ],
    notes: "DATABASE_URL is not used: a demo never writes into a real database.",
  },
  {
    name: "config",
    summary: "print the effective configuration as JSON (secrets shown as set or not set)",
    example: "finance-mcp config",
    options: [],
    env: [{ name: "every variable of README's Configuration table", description: "checked as at start; a bad value is named" }],
  },
  {
    name: "migrate",
    summary: "bring the database to the latest schema (the server also does this at start)",
    example: "finance-mcp migrate",
    options: [{ name: "rollback-all", type: "boolean", description: "undo every migration instead (empties the database)" }],
    env: [DATABASE_URL],
  },
  {
    name: "user create",
    summary: "create a user who can sign in and own tokens",
    example: "finance-mcp user create --email me@example.com --timezone Europe/Berlin --currency EUR",
    options: [
      EMAIL,
      { name: "timezone", type: "string", value: "TZ", description: "IANA time zone of the user's calendar days", default: "UTC" },
      { name: "currency", type: "string", value: "CUR", description: "default ISO 4217 currency", default: "USD" },
    ],
    env: [DATABASE_URL, PASSWORD],
    notes: "Prints the user as JSON (never the password).",
  },
  {
    name: "token create",
    summary: "create an MCP token for a chatbot (shown once)",
    example: 'finance-mcp token create --email me@example.com --scopes meta:whoami,read:transactions --name "Claude on my laptop"',
    options: [
      EMAIL,
      { name: "scopes", type: "string", value: "A,B", description: "comma-separated scopes, listed in docs/security.md", required: true },
      { name: "name", type: "string", value: "NAME", description: "what the token is for", required: true },
      { name: "expires-in-days", type: "string", value: "D", description: "days until it expires", default: "90" },
    ],
    env: [
      DATABASE_URL,
      PASSWORD,
      { name: "RATE_LIMIT_TOKENS_PER_HOUR", description: "token creations per user per rolling hour", default: (c) => String(c.rateLimits.tokensPerHour) },
      { name: "TOKEN_PEPPER", description: "the same secret as the server's, when it has one", default: () => "(empty)" },
    ],
  },
  {
    name: "bank connect",
    summary: "connect a bank over SimpleFIN with a setup token (claimed once; the credential is stored sealed)",
    example: "finance-mcp bank connect --email me@example.com --setup-token aHR0cHM6Ly9icmlkZ2Uu...",
    options: [
      EMAIL,
      {
        name: "setup-token",
        type: "string",
        value: "TOKEN",
        description: "the SimpleFIN setup token from the bridge (never paste it into a chat)",
        required: true,
      },
      { name: "days", type: "string", value: "N", description: "how many days back the first sync reads", default: "90" },
      {
        name: "link",
        type: "string",
        value: "ACCOUNT=WALLET,…",
        description: "where each bank account syncs: a wallet id of its currency, new, or skip",
        default: "new for every account",
      },
    ],
    env: [
      DATABASE_URL,
      PASSWORD,
      { name: "BANK_CREDENTIALS_KEY", description: "the key sealing Access URLs, the same as the server's", default: () => "(a key kept in the database)" },
      { name: "BANK_BRIDGE_ALLOW_PRIVATE", description: "true allows a bridge on a private or loopback address", default: () => "false" },
    ],
    notes: "Prints the connection and each account's wallet (or why it is skipped), never the Access URL.",
  },
  {
    name: "bank sync",
    summary: "sync the user's bank connections now (audited and undoable like the tool sync_bank_connections)",
    example: "finance-mcp bank sync --email me@example.com",
    options: [EMAIL],
    env: [DATABASE_URL, PASSWORD],
    notes: "Prints the sync's answer as JSON: per account the transactions created, matched and pending, and the reconciliation.",
  },
  {
    name: "bank disconnect",
    summary: "disconnect all of the user's banks: each connection and its sealed credential are deleted (wallets and transactions stay)",
    example: "finance-mcp bank disconnect --email me@example.com",
    options: [EMAIL],
    env: [DATABASE_URL, PASSWORD],
    notes: "Prints each connection disconnected; none is not an error. Revoke the access at the bridge too.",
  },
  {
    name: "token list",
    summary: "list a user's tokens, one JSON line each, never the secret",
    example: "finance-mcp token list --email me@example.com",
    options: [EMAIL],
    env: [DATABASE_URL, PASSWORD],
  },
  {
    name: "token revoke",
    summary: "revoke one of a user's tokens, effective at once",
    example: "finance-mcp token revoke --email me@example.com --token-id tok_…",
    options: [EMAIL, { name: "token-id", type: "string", value: "ID", description: "the token's id (token list shows it)", required: true }],
    env: [DATABASE_URL, PASSWORD],
  },
  {
    name: "audit",
    summary: "a user's audit entries, newest first, one JSON line each",
    example: "finance-mcp audit --email me@example.com --limit 20",
    options: [EMAIL, { name: "limit", type: "string", value: "N", description: "how many entries (1 to 10000)", default: "50" }],
    env: [DATABASE_URL],
  },
  {
    name: "export",
    summary: "all of a user's data as JSON (or CSV files)",
    example: "finance-mcp export --email me@example.com > me.json",
    options: [
      EMAIL,
      { name: "format", type: "string", value: "json|csv", description: "json, or csv (one file per section)", default: "json" },
      { name: "out", type: "string", value: "PATH", description: "the JSON file, or the folder of CSV files (required for csv)", default: "standard output" },
    ],
    env: [DATABASE_URL],
  },
  {
    name: "import",
    summary: "a JSON export into a user's empty account",
    example: "finance-mcp import --email new@example.com me.json",
    options: [EMAIL],
    args: [{ name: "FILE", description: "a file written by finance-mcp export", required: true }],
    env: [DATABASE_URL],
  },
  {
    name: "backup",
    summary: "an online copy of a live SQLite database",
    example: "finance-mcp backup --to backup.sqlite",
    options: [{ name: "to", type: "string", value: "FILE", description: "the new backup file", required: true }],
    env: [DATABASE_URL],
    notes: "Postgres: use pg_dump (docs/operations.md).",
  },
  {
    name: "kb import",
    summary: "replace the help knowledge base with a folder's entries",
    example: "finance-mcp kb import kb/",
    options: [],
    args: [{ name: "FOLDER", description: "the folder of entries", default: "kb/ of the package" }],
    env: [DATABASE_URL],
  },
  {
    name: "help",
    summary: "this list, or one command's options: finance-mcp help <command>",
    example: "finance-mcp help token create",
    options: [],
    env: [],
  },
];

/** The first word of every two-word command: "user", "token", "kb". */
export const GROUPS = [...new Set(COMMANDS.filter((c) => c.name.includes(" ")).map((c) => c.name.split(" ")[0]!))];

/** The command named by the first one or two words of argv, and how many words that took. */
export function findCommand(argv: readonly string[]): { command: CommandSpec; words: number } | undefined {
  const two = COMMANDS.find((c) => c.name === `${argv[0]} ${argv[1]}`);
  if (two) return { command: two, words: 2 };
  const one = COMMANDS.find((c) => c.name === argv[0]);
  return one ? { command: one, words: 1 } : undefined;
}
