import type { Knex } from "knex";
import type { Config } from "../config.js";
import type { IdSource } from "../db/ids.js";

/** Who is calling: the token's user and the token itself. Built by src/auth, read by handlers. */
export interface Caller {
  readonly userId: string;
  readonly tokenId: string;
  readonly tokenName: string;
  readonly scopes: ReadonlySet<string>;
  readonly expiresAt: string | null;
  /** The OAuth grant behind the token (src/oauth); null or absent for a static token. */
  readonly grantId?: string | null;
  readonly timezone: string;
  readonly defaultCurrency: string;
}

/** What a read handler gets besides its params. No HTTP, no transport: the same for every caller. */
export interface ToolContext {
  readonly db: Knex;
  readonly caller: Caller;
  readonly requestId: string;
  readonly config: Config;
  /** The clock, injectable so tests can fix "today". */
  now(): Date;
  /** New ids, injectable so tests can know them in advance. */
  readonly ids: IdSource;
}
