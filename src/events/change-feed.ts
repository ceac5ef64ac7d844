/**
 * One stream's view of its user's audit log: sends every entry after `afterId`, oldest first, each once.
 *
 * poke() says "there may be something new"; the feed then reads the log after the last id it sent. Reads
 * never overlap: a poke during a read makes one more read after it. Because a user's audit ids commit in
 * order (the write pipeline's per-user lock), reading "after the last id sent" has no gaps, whichever
 * process committed the entry and whichever signal (a local publish, a NOTIFY, a listener resync) came.
 */
import type { Knex } from "knex";
import { auditEntriesAfter, type AuditEntry } from "../audit/log.js";

const PAGE = 500;

export interface ChangeFeed {
  poke(): void;
  /** Resolves when no read is running or pending (tests, and the first replay). */
  idle(): Promise<void>;
}

export function createChangeFeed(options: {
  db: Knex;
  userId: string;
  /** The last id the client has: Last-Event-ID, or the newest entry when the stream opened. */
  afterId: string;
  send(entry: AuditEntry): void;
  /** Whether the stream is gone (stop reading). */
  closed(): boolean;
  /** A read failed: the stream should close so the client reconnects with Last-Event-ID. */
  failed(err: unknown): void;
}): ChangeFeed {
  let lastId = options.afterId;
  let running: Promise<void> | undefined;
  let again = false;

  const readAll = async () => {
    do {
      again = false;
      for (;;) {
        const page = await auditEntriesAfter(options.db, options.userId, lastId, PAGE);
        for (const entry of page) {
          if (options.closed()) return;
          options.send(entry);
          lastId = entry.id;
        }
        if (page.length < PAGE) break;
      }
    } while (again && !options.closed());
  };

  const poke = () => {
    if (options.closed()) return;
    if (running) {
      again = true;
      return;
    }
    running = readAll()
      .catch((err: unknown) => options.failed(err))
      .finally(() => (running = undefined));
  };

  return { poke, idle: async () => running };
}
