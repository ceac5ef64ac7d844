/**
 * Change events. A committed write publishes its audit entry; open SSE streams of that user are told
 * that something new is there and read it back from the audit log (src/events/change-feed.ts). On
 * Postgres the write transaction also runs pg_notify, so every server process learns of writes committed
 * on another one through LISTEN.
 *
 * Subscribers receive each entry once: at once when this process committed it (local delivery never
 * waits for the listener; the NOTIFY that comes back for it is skipped), and read back from the audit log
 * when another process did. A stream never relies on that alone: it reads the audit log after the last
 * id it sent (src/events/change-feed.ts), so an entry that is lost, late or out of order delays an event
 * but never drops or repeats one. That is what makes the listener's failures survivable:
 *   - when the LISTEN session dies (a Postgres restart, pg_terminate_backend, a network cut), the bus
 *     logs it, reports listening() = false to GET /readyz, and reconnects with backoff;
 *   - after it reconnects, every onResync callback runs once, so whatever other processes committed
 *     during the outage reaches the open streams without a client reconnect.
 *
 * The notification's payload is "<audit id> <user id>" (an id alone, from an older process during a
 * rolling deploy, is read back as well).
 */
import { EventEmitter } from "node:events";
import type { Knex } from "knex";
import { listenSession, sharedByProcesses, type ListenSession, type Notification } from "../db/engine.js";
import type { Logger } from "../log.js";
import { readAuditEntry, type AuditEntry } from "../audit/log.js";

export const NOTIFY_CHANNEL = "finance_changes";
/**
 * A client's answer to a question another process asked (src/http/answer-stream.ts): the process that
 * received the answer's POST relays it here, and the process whose question waits for it takes it.
 */
export const RELAY_CHANNEL = "finance_client_answers";
/** A user's tokens (or what they carry of the user) changed: payload the user id (migration 20261125160000). */
export const TOKENS_CHANNEL = "finance_tokens";

/** Reconnect delays of the LISTEN session: doubling from the first to the last, then staying there. */
export const LISTEN_RETRY_FIRST_MS = 100;
export const LISTEN_RETRY_MAX_MS = 5_000;

const RESYNC = Symbol("resync");
const RELAY = Symbol("relay");
const TOKENS = Symbol("tokens");
/** Ids delivered by one path (publish or NOTIFY) whose other path has not come yet (bounded: the
 *  listener may be down, or another process's entry never has a local publish). */
const MAX_LOCAL_IDS = 10_000;

/**
 * What the write transaction sends with pg_notify for its audit entry, "<audit id> <user id>", as SQL:
 * the id is a column of the statement (`idSql`), the user id its one binding.
 */
export function notifyPayloadSql(idSql: string): string {
  return `${idSql}::text || ' ' || ?`;
}

export interface ChangeBus {
  /** Called by the write pipeline after commit. */
  published(entry: AuditEntry): void;
  /** Each committed entry of the user, once. */
  subscribe(userId: string, listener: (entry: AuditEntry) => void): () => void;
  /** Runs after the listener came back from an outage: entries of other processes may have been missed. */
  onResync(fn: () => void): () => void;
  /** Sends a message to every process's onRelay (Postgres only: with SQLite there is one process). False when not sent. */
  relay(payload: string): Promise<boolean>;
  onRelay(fn: (payload: string) => void): () => void;
  /** Whether change events of other processes reach this one (always on SQLite: there are none). */
  listening(): boolean;
  /**
   * Counts the LISTEN session's starts and losses: what was learnt under another value may have missed
   * a notification (src/auth/token-cache.ts keeps nothing across a change).
   */
  epoch(): number;
  /** Runs with the user id when a token of that user changed in any process (Postgres; committed). */
  onTokensChanged(fn: (userId: string) => void): () => void;
  close(): Promise<void>;
}

export async function createChangeBus(db: Knex, log?: Logger): Promise<ChangeBus> {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  const deliver = (entry: AuditEntry) => emitter.emit(entry.user_id, entry);
  const localIds = new Set<string>();
  const remember = (id: string) => {
    localIds.add(id);
    if (localIds.size > MAX_LOCAL_IDS) localIds.delete(localIds.values().next().value as string);
  };
  let session: ListenSession | undefined;
  let connected = !sharedByProcesses(db);
  let closed = false;
  let retryTimer: NodeJS.Timeout | undefined;

  let epoch = 0;
  const onNotification = (msg: Notification) => {
    if (msg.channel === RELAY_CHANNEL && msg.payload) {
      emitter.emit(RELAY, msg.payload);
      return;
    }
    if (msg.channel === TOKENS_CHANNEL && msg.payload) {
      emitter.emit(TOKENS, msg.payload);
      return;
    }
    if (msg.channel !== NOTIFY_CHANNEL || !msg.payload) return;
    const space = msg.payload.indexOf(" ");
    const id = space >= 0 ? msg.payload.slice(0, space) : msg.payload;
    if (localIds.delete(id)) return; // published here already
    if (space >= 0 && emitter.listenerCount(msg.payload.slice(space + 1)) === 0) return; // no stream of that user here
    remember(id); // the NOTIFY can overtake the writer's own publish: that publish is then skipped
    readAuditEntry(db, id)
      .then((entry) => entry && deliver(entry))
      .catch(() => undefined); // a stream's own read of the audit log covers a missed one
  };

  const lost = (conn: ListenSession, why: string) => {
    if (session !== conn) return; // an older session's late event
    session = undefined;
    connected = false;
    epoch++;
    conn.removeAllListeners("notification");
    conn.end().catch(() => undefined);
    if (closed) return;
    log?.error("change_listener_lost", { reason: why });
    retry();
  };

  // A dedicated connection outside the pool: LISTEN must stay on one session.
  const listen = async (): Promise<void> => {
    const conn = await listenSession(db);
    if (closed) {
      await conn.end().catch(() => undefined);
      return;
    }
    session = conn;
    conn.on("error", (err: Error) => lost(conn, (err as { code?: string }).code ?? "error"));
    conn.on("end", () => lost(conn, "end"));
    conn.on("notification", onNotification);
    await conn.query(`LISTEN ${NOTIFY_CHANNEL}; LISTEN ${RELAY_CHANNEL}; LISTEN ${TOKENS_CHANNEL}`);
    epoch++;
    connected = true;
  };

  let delayMs = LISTEN_RETRY_FIRST_MS;
  const retry = () => {
    if (closed || retryTimer) return;
    retryTimer = setTimeout(attempt, delayMs);
    retryTimer.unref();
    delayMs = Math.min(delayMs * 2, LISTEN_RETRY_MAX_MS);
  };
  const attempt = () => {
    retryTimer = undefined;
    listen().then(
      () => {
        if (closed || !connected) return;
        delayMs = LISTEN_RETRY_FIRST_MS;
        log?.info("change_listener_restored", {});
        emitter.emit(RESYNC); // bring every open stream up to date with what it missed
      },
      (err: unknown) => {
        if (session) lost(session, (err as { code?: string }).code ?? "error");
        else retry();
      },
    );
  };

  if (sharedByProcesses(db)) await listen();

  return {
    published(entry) {
      if (localIds.delete(entry.id)) return; // its NOTIFY came first and delivered it
      if (sharedByProcesses(db)) remember(entry.id);
      deliver(entry);
    },
    subscribe(userId, listener) {
      emitter.on(userId, listener);
      return () => emitter.off(userId, listener);
    },
    onResync(fn) {
      emitter.on(RESYNC, fn);
      return () => emitter.off(RESYNC, fn);
    },
    async relay(payload) {
      if (!sharedByProcesses(db)) return false;
      await db.raw("SELECT pg_notify(?, ?)", [RELAY_CHANNEL, payload]);
      return true;
    },
    onRelay(fn) {
      emitter.on(RELAY, fn);
      return () => emitter.off(RELAY, fn);
    },
    listening: () => connected,
    epoch: () => epoch,
    onTokensChanged(fn) {
      const listener = (userId: string) => fn(userId);
      emitter.on(TOKENS, listener);
      return () => emitter.off(TOKENS, listener);
    },
    async close() {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      const s = session;
      session = undefined;
      if (s) await s.end().catch(() => undefined);
    },
  };
}
