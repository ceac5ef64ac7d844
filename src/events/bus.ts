/**
 * Change events. A committed write publishes its audit entry; open SSE streams of that user receive it.
 * On Postgres the write transaction also runs pg_notify, so every server process (including the one that
 * wrote) learns of the entry through LISTEN and delivers it to its own streams: a stream on one process
 * sees writes committed on another. On SQLite (one process) publishing is local.
 *
 * The notification's payload is "<audit id> <user id>": a process reads the entry back only when one of
 * its streams belongs to that user, instead of one read per write in every process. A payload with the
 * id alone (a process of an earlier version during a rolling deploy) is still read and delivered.
 */
import { EventEmitter } from "node:events";
import type { Knex } from "knex";
import type pg from "pg";
import { dialect } from "../db/knex.js";
import { readAuditEntry, type AuditEntry } from "../writes/audit.js";

export const NOTIFY_CHANNEL = "finance_changes";

/** What the write transaction sends with pg_notify for its audit entry. */
export function notifyPayload(entry: Pick<AuditEntry, "id" | "user_id">): string {
  return `${entry.id} ${entry.user_id}`;
}

export interface ChangeBus {
  /** Called by the write pipeline after commit. */
  published(entry: AuditEntry): void;
  subscribe(userId: string, listener: (entry: AuditEntry) => void): () => void;
  /** Whether change events of other processes reach this one (always on SQLite: there are none). */
  listening(): boolean;
  close(): Promise<void>;
}

export async function createChangeBus(db: Knex): Promise<ChangeBus> {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  const deliver = (entry: AuditEntry) => emitter.emit(entry.user_id, entry);
  let listener: pg.Client | undefined;
  let connected = true;

  if (dialect(db) === "postgres") {
    // A dedicated connection outside the pool: LISTEN must stay on one session.
    const conn = (await db.client.acquireRawConnection()) as pg.Client;
    listener = conn;
    // Read by GET /readyz: a process whose LISTEN session is gone misses other processes' writes.
    conn.on("error", () => (connected = false));
    conn.on("end", () => (connected = false));
    conn.on("notification", (msg) => {
      if (msg.channel !== NOTIFY_CHANNEL || !msg.payload) return;
      const space = msg.payload.indexOf(" ");
      if (space >= 0 && emitter.listenerCount(msg.payload.slice(space + 1)) === 0) return; // no stream of that user here
      readAuditEntry(db, space >= 0 ? msg.payload.slice(0, space) : msg.payload)
        .then((entry) => entry && deliver(entry))
        .catch(() => undefined); // the stream's Last-Event-ID replay covers a missed read
    });
    await conn.query(`LISTEN ${NOTIFY_CHANNEL}`);
  }

  return {
    published(entry) {
      if (!listener) deliver(entry);
    },
    subscribe(userId, fn) {
      emitter.on(userId, fn);
      return () => emitter.off(userId, fn);
    },
    listening: () => connected,
    async close() {
      if (listener) await listener.end().catch(() => undefined);
    },
  };
}
