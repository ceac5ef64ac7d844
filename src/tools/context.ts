import type { Knex } from "knex";
import type { Caller } from "../auth/caller.js";
import type { Config } from "../config.js";

export type { Caller };
import type { IdSource } from "../db/ids.js";


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
