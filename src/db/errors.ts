/**
 * Driver errors → the AppError a caller can act on. The one place that knows SQLite's and Postgres's
 * error codes; dispatch and src/rpc/message.ts#toJsonRpcError ask it before anything becomes
 * internal_error (docs/reliability.md):
 *
 * - the database is busy or unreachable (SQLITE_BUSY/SQLITE_LOCKED, a Postgres serialization failure,
 *   deadlock, lost connection or shutdown) or a bound of request work was reached (no pooled connection,
 *   a lock or a statement past its timeout): `unavailable`, retryable with the same key;
 * - a running total would leave BIGINT (the SQLite guard triggers' RAISE, Postgres 22003): `conflict`
 *   on `amount` (the bounds in info.x-limits normally refuse such a write before it is made);
 * - text Postgres cannot store (22021 NUL, 22P05): `invalid_params` (the input checks normally refuse it first).
 *
 * Anything else is left as it is: an unexpected failure stays internal_error.
 */
import { AppError, conflict, unavailable } from "../errors.js";

/** The message the guard triggers of migration 20261124020000 RAISE with. */
export const TOTAL_OVERFLOW = "finance_total_overflow";

interface DriverError {
  code?: unknown;
  message?: unknown;
}

const PG_BUSY = new Set(["40001", "40P01", "55P03", "57014", "25P03", "57P01", "57P02", "57P03", "53300"]);

function driverCode(err: unknown): string | undefined {
  if (err === null || typeof err !== "object") return undefined;
  const code = (err as DriverError).code;
  return typeof code === "string" ? code : undefined;
}

/**
 * A connection that died under a query: pg reports it without a code ("Connection terminated
 * unexpectedly", or a client that is no longer queryable), knex a pool that could not hand one out in time.
 * knex puts the statement in front ("ROLLBACK - Connection terminated unexpectedly").
 */
const LOST_CONNECTION =
  /(?:^|- )(Connection terminated|Client has encountered a connection error|Client was closed|Connection ended unexpectedly)|^Knex: Timeout acquiring a connection/;

/**
 * Which bound of request work (src/db/knex.ts#RequestBounds) ended the call, if one did: no connection
 * from the pool in time, a lock not granted in time (55P03 lock_not_available, the user's write lock
 * included), a statement past statement_timeout (57014), or a transaction left idle past its bound
 * (25P03: Postgres ended the session).
 */
export type BoundKind = "pool" | "lock" | "statement" | "idle_transaction";

export function boundReached(err: unknown): BoundKind | undefined {
  const code = driverCode(err);
  if (code === "55P03") return "lock";
  if (code === "57014") return "statement";
  if (code === "25P03") return "idle_transaction";
  const message = (err as DriverError | null)?.message;
  if (code === undefined && typeof message === "string" && /^Knex: Timeout acquiring a connection/.test(message)) return "pool";
  return undefined;
}

/** Seconds a caller is told to wait when a bound was reached: a wait clears as soon as the work ahead ends, a long statement less soon. */
const RETRY_AFTER: Record<BoundKind, number> = { pool: 2, lock: 2, statement: 5, idle_transaction: 2 };

/** True for the failures a retry can fix: the database was busy or could not be reached. */
export function isBusy(err: unknown): boolean {
  const code = driverCode(err);
  if (!code) {
    const message = (err as DriverError | null)?.message;
    return typeof message === "string" && LOST_CONNECTION.test(message);
  }
  return (
    code.startsWith("SQLITE_BUSY") ||
    code.startsWith("SQLITE_LOCKED") ||
    PG_BUSY.has(code) ||
    code.startsWith("08") ||
    code === "ECONNREFUSED" ||
    code === "ECONNRESET"
  );
}

function overflowed(err: unknown): boolean {
  const code = driverCode(err);
  const message = String((err as DriverError | null)?.message ?? "");
  return (
    code === "22003" ||
    (code?.startsWith("SQLITE_CONSTRAINT") === true && message.includes(TOTAL_OVERFLOW)) ||
    (code === "SQLITE_ERROR" && message.endsWith("integer overflow"))
  );
}

/** The AppError a driver error means, or the error itself when it means nothing a caller could act on. */
export function translateDriverError(err: unknown): unknown {
  if (err instanceof AppError) return err;
  const bound = boundReached(err);
  if (bound !== undefined)
    return unavailable(
      RETRY_AFTER[bound],
      bound === "statement"
        ? "The database did not finish this call's work within the server's time bound (it may be overloaded)."
        : "The database is busy with other work and this call could not wait longer for it.",
    );
  if (isBusy(err)) return unavailable(1, "The database is busy with another write (or was unreachable) and this call could not finish.");
  if (overflowed(err)) {
    return conflict(
      "amount",
      "amount: this change would take a wallet's running total beyond what the service can store. Use a smaller amount or another wallet.",
    );
  }
  const code = driverCode(err);
  if (code === "23503" || code === "SQLITE_CONSTRAINT_FOREIGNKEY") {
    // A record the call refers to was deleted by another call between this call's check and its write.
    return conflict(
      "(params)",
      "A record this call refers to was deleted or changed by another call at the same moment. Look it up again (a list tool), then decide anew.",
    );
  }
  if (code === "22001") {
    // Postgres refuses text longer than its column (SQLite stores it). The schemas bound what comes in
    // and the folded keys are text (migration 20261127090000): a safety net, not an expected path.
    return new AppError("invalid_params", "A text argument is longer than the service can store once normalised. Shorten it and call again.", {
      field: "(params)",
      expected: "shorter text",
    });
  }
  if (code === "22021" || code === "22P05") {
    return new AppError("invalid_params", "A text argument contains a character that cannot be stored (such as NUL, \\u0000). Remove it and call again.", {
      field: "(params)",
      expected: "text without control characters",
    });
  }
  return err;
}

/**
 * What a log line may say about a failure: the error's kind, the driver's code, the statement (knex
 * puts it before " - "; with compileSqlOnError off it holds placeholders, never bound values) and the
 * stack's frames. Never a driver's message, which can quote values ('invalid input syntax for type
 * bigint: "…"', a constraint's "Key (…)=(…)"), and never the stack's first line, which repeats it.
 */
export function describeForLog(err: unknown): { error: string; driver_code?: string; statement?: string; stack?: string } {
  if (!(err instanceof Error)) return { error: typeof err };
  const frames = err.stack
    ?.split("\n")
    .filter((line) => line.startsWith("    at "))
    .join("\n");
  const code = driverCode(err);
  if (code === undefined && !isBusy(err)) return { error: `${err.name}: ${err.message}`, stack: frames };
  const cut = err.message.indexOf(" - ");
  return { error: err.name, driver_code: code, statement: cut > 0 ? err.message.slice(0, cut) : undefined, stack: frames };
}

/** A unique-index violation from either driver (stores check first and translate this at their boundary, e.g. a duplicate name into conflict). */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e?.code === "23505" || e?.code === "SQLITE_CONSTRAINT_UNIQUE" || (typeof e?.message === "string" && e.message.includes("UNIQUE constraint failed"));
}
