/**
 * Change events. A committed write publishes its audit entry; open SSE streams of that user receive it.
 * On Postgres the write transaction also runs pg_notify, so every server process (including the one that
 * wrote) learns of the entry through LISTEN and delivers it to its own streams: a stream on one process
 * sees writes committed on another. On SQLite (one process) publishing is local.
 */
import { EventEmitter } from "node:events";
import type { Knex } from "knex";
import type pg from "pg";
import { dialect } from "../db/knex.js";
import { readAuditEntry, type AuditEntry } from "../writes/audit.js";

export const NOTIFY_CHANNEL = "finance_changes";

export interface ChangeBus {
  /** Called by the write pipeline after commit. */
  published(entry: AuditEntry): void;
  subscribe(userId: string, listener: (entry: AuditEntry) => void): () => void;
  close(): Promise<void>;
}

export async function createChangeBus(db: Knex): Promise<ChangeBus> {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  const deliver = (entry: AuditEntry) => emitter.emit(entry.user_id, entry);
  let listener: pg.Client | undefined;

  if (dialect(db) === "postgres") {
    // A dedicated connection outside the pool: LISTEN must stay on one session.
    const conn = (await db.client.acquireRawConnection()) as pg.Client;
    listener = conn;
    conn.on("notification", (msg) => {
      if (msg.channel !== NOTIFY_CHANNEL || !msg.payload) return;
      readAuditEntry(db, msg.payload)
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
    async close() {
      if (listener) await listener.end().catch(() => undefined);
    },
  };
}
