/**
 * Reading a statement without holding up anyone else (issue 41): a statement above INLINE_CHARS is parsed
 * in a worker thread, so the event loop keeps answering other calls while it runs, within a time budget.
 * Past the budget the worker is stopped and the call is refused naming the statement: nothing has been
 * written yet (parsing comes before any write), so nothing is. The parsers are linear (a 4,000,000-
 * character statement reads in about a second); the budget is the bound on what linear still allows.
 * At most WORKERS statements are read at once per process; a further one waits for a free worker before
 * its budget starts. docs/security.md#bounded-work, docs/decisions.md#statement-parse-worker.
 */
import { Worker } from "node:worker_threads";
import { AppError, internalError, invalidParams, unavailable, type ErrorDetails, type ErrorName } from "../errors.js";
import { parseStatement, type CsvHints } from "./parse.js";
import type { CsvMapping, ParsedStatement, StatementFormat } from "./types.js";

/** Below this many characters a statement is read in place: a worker's start costs more than the parse. */
export const INLINE_CHARS = 65_536;
/** The most one statement may take to read, in milliseconds. */
export const PARSE_BUDGET_MS = 20_000;
/** Statements read at once per process (the machine's cores are shared with the request work). */
const WORKERS = 2;
/** A worker's heap: a 4,000,000-character statement's tree fits well inside it. */
const WORKER_HEAP_MB = 512;

export interface WorkerRequest {
  text: string;
  format: StatementFormat | undefined;
  mapping: Partial<CsvMapping>;
  hints: CsvHints;
}

export type WorkerReply = { rows: ParsedStatement } | { refused: { name: ErrorName; message: string; details: ErrorDetails } } | { fault: string };

// The worker runs the same module kind as this one: JavaScript in dist/, or TypeScript under tsx (tests,
// scripts), whose loader a worker does not inherit: it is then started by a line that registers tsx first.
const UNDER_TSX = import.meta.url.endsWith(".ts");
const WORKER_URL = new URL(`./parse-worker${UNDER_TSX ? ".ts" : ".js"}`, import.meta.url);
const WORKER_ENTRY: [URL | string, { eval?: boolean }] = UNDER_TSX
  ? [
      `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(WORKER_URL.href)}); });`,
      { eval: true },
    ]
  : [WORKER_URL, {}];

/**
 * The parse queue: at most WORKERS statements read at once, at most QUEUED waiting, and at most PER_OWNER
 * (reading or waiting) of one person, so one person's six large statements no longer make another's
 * ordinary import wait a minute behind them (issue 51). A free worker goes to the waiting statement whose
 * owner has the fewest being read, the earliest first among them. A statement that finds its owner's
 * share or the queue full is refused at once with `unavailable` and a Retry-After
 * (docs/decisions.md#bounded-at-the-cap).
 */
export const QUEUED = 8;
export const PER_OWNER = 2;
/** What a refused statement is told to wait: about one large statement's read. */
const RETRY_AFTER_S = 5;

interface Waiter {
  owner: string;
  start: () => void;
}
const reading = new Map<string, number>();
const waiting: Waiter[] = [];
let running = 0;

const ofOwner = (owner: string) => (reading.get(owner) ?? 0) + waiting.filter((w) => w.owner === owner).length;

async function slot(owner: string): Promise<() => void> {
  if (ofOwner(owner) >= PER_OWNER)
    throw unavailable(RETRY_AFTER_S, `statement: ${PER_OWNER} of your statements are being read already; this one was not read and nothing was imported.`);
  if (running >= WORKERS) {
    if (waiting.length >= QUEUED)
      throw unavailable(RETRY_AFTER_S, "statement: the server is reading as many statements as it can; this one was not read and nothing was imported.");
    await new Promise<void>((start) => waiting.push({ owner, start }));
  }
  running++;
  reading.set(owner, (reading.get(owner) ?? 0) + 1);
  return () => {
    running--;
    const left = (reading.get(owner) ?? 1) - 1;
    if (left === 0) reading.delete(owner);
    else reading.set(owner, left);
    if (waiting.length === 0) return;
    // The owner with the fewest statements being read goes first; the earliest among equals.
    let next = 0;
    for (let i = 1; i < waiting.length; i++) if ((reading.get(waiting[i]!.owner) ?? 0) < (reading.get(waiting[next]!.owner) ?? 0)) next = i;
    waiting.splice(next, 1)[0]!.start();
  };
}

/** The parse queue as it stands (tests). */
export const parseQueue = () => ({ running, waiting: waiting.length });

const overBudget = (ms: number) =>
  invalidParams(
    "statement",
    `a statement that reads within ${ms / 1000} s`,
    `statement: reading this statement took longer than ${ms / 1000} s, the limit for one statement; nothing was imported. Send it in parts (a month or a quarter each).`,
  );

/** Statements read so far by this process (test/tools/import-read-once.test.ts counts them). */
export const statementReads = { count: 0 };

/** The statement's rows, read in a worker when it is large; the same answer and refusals as parseStatement. */
export async function parseStatementBounded(
  text: string,
  format?: StatementFormat,
  mapping: Partial<CsvMapping> = {},
  budgetMs: number = PARSE_BUDGET_MS,
  hints: CsvHints = {},
  /** Whose statement it is: the queue's shares are per owner (a user id; one shared share when absent). */
  owner = "",
): Promise<ParsedStatement> {
  statementReads.count++;
  if (text.length <= INLINE_CHARS) return parseStatement(text, format, mapping, hints);
  const release = await slot(owner);
  try {
    return await inWorker({ text, format, mapping, hints }, budgetMs);
  } finally {
    release();
  }
}

/**
 * Workers kept between statements (at most WORKERS, the slots' count): a new worker's start (an isolate,
 * the parsers' modules loaded and compiled, their code run cold) cost more than the parse of a
 * 5,000-row statement (docs/performance.md, "Statement previews of 5,000 rows"). A worker that overran
 * its budget, ran out of heap or failed is stopped and not kept. An idle worker does not keep the process
 * alive (unref).
 */
const idle: Worker[] = [];

function startWorker(): Worker {
  return new Worker(WORKER_ENTRY[0], { ...WORKER_ENTRY[1], resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
}

function inWorker(request: WorkerRequest, budgetMs: number): Promise<ParsedStatement> {
  const worker = idle.pop() ?? startWorker();
  worker.ref();
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (keep: boolean, fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      worker.off("message", onMessage);
      worker.off("error", onError);
      worker.off("exit", onExit);
      if (keep && idle.length < WORKERS) {
        worker.unref();
        idle.push(worker);
      } else void worker.terminate();
      fn();
    };
    const onMessage = (reply: WorkerReply) =>
      settle(true, () => {
        if ("rows" in reply) resolve(reply.rows);
        else if ("refused" in reply) reject(new AppError(reply.refused.name, reply.refused.message, reply.refused.details));
        else reject(Object.assign(internalError(), { cause: reply.fault }));
      });
    // Out of heap (ERR_WORKER_OUT_OF_MEMORY) is the statement's size, not a fault of the server.
    const onError = (err: Error & { code?: string }) => settle(false, () => reject(err.code === "ERR_WORKER_OUT_OF_MEMORY" ? overBudget(budgetMs) : err));
    const onExit = () => settle(false, () => reject(new Error("the statement worker stopped without an answer")));
    const timer = setTimeout(() => settle(false, () => reject(overBudget(budgetMs))), budgetMs);
    worker.on("message", onMessage);
    worker.once("error", onError);
    worker.once("exit", onExit);
    worker.postMessage(request);
  });
}
