/**
 * The worker thread that reads one large statement (bounded.ts starts it): parseStatement on the text it
 * is given, and the rows or the refusal posted back. An AppError crosses as its parts (a class does not
 * survive structured cloning); anything else is a fault of the parser, posted as such.
 */
import { parentPort, workerData } from "node:worker_threads";
import { AppError } from "../errors.js";
import { parseStatement } from "./parse.js";
import type { WorkerReply, WorkerRequest } from "./bounded.js";

const request = workerData as WorkerRequest;
let reply: WorkerReply;
try {
  reply = { rows: parseStatement(request.text, request.format, request.mapping, request.hints) };
} catch (err) {
  reply = err instanceof AppError ? { refused: { name: err.errorName, message: err.message, details: err.details } } : { fault: String(err).slice(0, 200) };
}
parentPort!.postMessage(reply);
