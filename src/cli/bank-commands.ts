/**
 * `finance-mcp bank connect`, `bank sync` and `bank disconnect` (docs/history/bank-connections.md): the setup token is typed into a terminal,
 * never into a chat; the sync runs the tool sync_bank_connections through the same dispatcher and write
 * pipeline as a chatbot's call (audited, undoable), as the user whose password was given.
 */
import { randomUUID } from "node:crypto";
import type { Knex } from "knex";
import type { Config } from "../config.js";
import type { User } from "../auth/users.js";
import { createServices, closeServices } from "../app.js";
import { randomIds } from "../db/ids.js";
import { connectBank, disconnectBank, linkAccounts, type LinkChoice } from "../domain/banks/connect.js";
import { connectionsOf } from "../domain/banks/store.js";

function contextOf(db: Knex, config: Config, user: User) {
  return {
    db,
    config,
    caller: { userId: user.id, timezone: user.timezone, defaultCurrency: user.default_currency },
    now: () => new Date(),
    ids: randomIds,
  };
}

export async function bankConnectCommand(db: Knex, config: Config, user: User, input: { setupToken: string; days?: number; link?: string }): Promise<void> {
  const ctx = contextOf(db, config, user);
  const connected = await connectBank(ctx, { setupToken: input.setupToken, days: input.days });
  const named = new Map<string, LinkChoice>();
  for (const part of (input.link ?? "").split(",").filter((p) => p.trim() !== "")) {
    const [account, choice] = part.split("=").map((p) => p.trim());
    if (!account || !choice) throw new Error(`--link: ${JSON.stringify(part)} is not ACCOUNT=WALLET (a wallet id, new or skip)`);
    named.set(account, choice);
  }
  const choices: Record<string, LinkChoice> = {};
  for (const a of connected.accounts) if (a.skip_reason === null) choices[a.account_id] = named.get(a.account_id) ?? "new";
  const accounts = await linkAccounts(ctx, { connectionId: connected.connection_id, choices });
  console.log(
    JSON.stringify(
      {
        connection_id: connected.connection_id,
        bridge: connected.bridge,
        accounts: accounts.map((a) => ({ account_id: a.account_id, account: a.name, currency: a.currency, wallet_id: a.wallet_id, skipped: a.skip_reason })),
        errors: connected.errors,
      },
      null,
      2,
    ),
  );
}

export async function bankSyncCommand(db: Knex, config: Config, user: User): Promise<void> {
  const services = await createServices({ ...config, logLevel: "silent" }, db);
  try {
    const answer = await services.dispatch(
      "sync_bank_connections",
      { idempotency_key: randomUUID() },
      {
        caller: {
          userId: user.id,
          tokenId: "cli-bank-sync",
          tokenName: "finance-mcp bank sync",
          scopes: new Set(["write:transactions"]),
          expiresAt: null,
          timezone: user.timezone,
          defaultCurrency: user.default_currency,
        },
        requestId: `cli-${randomUUID()}`,
      },
    );
    console.log(JSON.stringify(answer, null, 2));
  } finally {
    await closeServices(services);
  }
}

/**
 * Deletes every bank connection of the user, and so each sealed Access URL, with the same domain function
 * as the Disconnect button on /account/banks. The wallets and their transactions stay.
 */
export async function bankDisconnectCommand(db: Knex, config: Config, user: User): Promise<void> {
  const ctx = contextOf(db, config, user);
  const disconnected: { connection_id: string; bridge: string }[] = [];
  for (const c of await connectionsOf(db, user.id)) {
    await disconnectBank(ctx, { connectionId: c.id });
    disconnected.push({ connection_id: c.id, bridge: c.bridge });
  }
  console.log(JSON.stringify({ disconnected, wallets_kept: true }, null, 2));
}
