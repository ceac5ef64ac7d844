/**
 * What every tool call gets besides its params, in a neutral module: the transports, the dispatcher and
 * the write pipeline build it, handlers read it, and domain writes read the part they need
 * (DomainContext). No HTTP, no transport: the same for every caller.
 */
import type { Knex } from "knex";
import type { Caller } from "./auth/caller.js";
import type { Config } from "./config.js";
import type { IdSource } from "./db/ids.js";

export type { Caller };

/** What a read handler gets besides its params. */
export interface ToolContext {
  readonly db: Knex;
  readonly caller: Caller;
  readonly requestId: string;
  readonly config: Config;
  /** The origin the request reached (scheme://host), when it came over HTTP: PUBLIC_URL's stand-in. */
  readonly origin?: string;
  /** The clock, injectable so tests can fix "today". */
  now(): Date;
  /** New ids, injectable so tests can know them in advance. */
  readonly ids: IdSource;
}

/**
 * What a domain function reads of a call: the database (the write pipeline's transaction for a write),
 * who calls, the clock and the id source; dryRun only where a warning's wording depends on it.
 */
export interface DomainContext {
  readonly db: Knex;
  readonly caller: Pick<Caller, "userId" | "timezone" | "defaultCurrency">;
  now(): Date;
  readonly ids: IdSource;
  readonly dryRun?: boolean;
  /**
   * A bulk write names the rows it would touch, before it writes any (src/writes/preview.ts): a dry run's
   * answer then carries a preview_id bound to them, and a commit passing one is refused with stale_preview
   * when they changed since. Set by the write pipeline only.
   */
  readonly bindPreview?: (basis: PreviewBasis) => void;
}

/** One row a bulk write would touch: its id as the answers name it, and what it holds now. */
export interface PreviewRow {
  id: string;
  /** The row's content (any JSON-able value; bigints allowed): hashed, never stored. */
  content: unknown;
  /** When the row last changed, if it keeps that (ISO): names the rows changed since, in the refusal. */
  updatedAt?: string | null;
}

/** What a bulk write binds its preview to; `noun` names the rows in the refusal ("transactions"). */
export interface PreviewBasis {
  noun: string;
  rows: readonly PreviewRow[];
  /**
   * The count the preview shows and a commit's expected_count must equal, when it is not rows.length: a
   * selection larger than expected (`rows` holds only the first), or rows bound beside the counted ones
   * (the rule save_rule replaces).
   */
  total?: number;
  /**
   * Binds only the commit that a confirmation through the client makes after showing this dry run (a delete,
   * which takes no preview_id): its answer does not carry the preview_id, the confirmation keeps it.
   */
  dialogOnly?: boolean;
}
