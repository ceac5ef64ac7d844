/**
 * The shipped privacy text (GET /privacy, src/web/privacy-page.ts), in the plain-text form an operator's
 * PRIVACY_POLICY_FILE takes. Its own module, free of the web layer, so that codegen writes the same text
 * as PRIVACY.md, the privacy address of the registry's entry (codegen/emit-server-json.ts).
 */
import type { Config } from "../config.js";

/** The shipped text, as the same plain-text form an operator's file takes. */
export function defaultPrivacyText(config: Config): string {
  return `# Who runs this server
finance-mcp is software that whoever runs this server installed on their own machine. Its authors receive nothing from it.

# What is stored
Your account: your email address and a hash of your password (scrypt); never the password itself.

Your finances as you or your chatbots enter or import them: wallets, transactions, budgets, savings goals, bill reminders, rules and exchange rates. An imported statement is read for its rows and not kept as a file.

The history of changes: every change made through the tools, with the values before and after, so that a change can be looked up and undone.

Access: each token's name, permissions, creation and last use, and a hash of the token, never the token; the chatbots you connected through OAuth; your browser sign-ins (ended after 30 minutes without use, 12 hours at most). A browser that has signed in also keeps a cookie for a year, so that other people's failed sign-ins cannot lock it out; it holds none of your data.

Short-lived records: the answer to each change, kept ${config.idempotencyRetentionHours} hours so that a repeated request is not applied twice, and request counters for the rate limits, kept up to an hour.

# How long
Everything above stays until you delete it or delete your account, except the short-lived records, which expire as said.

# Who can read it
You, and the chatbots you connect, each only within the permissions you gave its token. No other person with an account on this server can read or change your data. Whoever runs the server can read its database and its backups.

# What leaves the server
Nothing but the answers to your own clients' requests. The server sends no analytics or telemetry and calls no other service with your data. When you connect a chatbot through OAuth, the server may fetch that chatbot's public description from the address it names; that request carries none of your data. What a chatbot reads through the tools is then handled by that chatbot's provider under its own terms.

The server's log has one line per request: the time, the method, the path, the answer's status and its duration, with secrets in paths removed. It never holds your data, the values you send, tokens or passwords.

# Download and delete
On your account page (/account), "Download my data" gives you everything as one file. "Delete my account" deletes everything listed above, the history of changes included, in one step. Copies in backups last as long as whoever runs the server keeps them.`;
}
