/**
 * The worker thread that reads large statements (bounded.ts starts it and keeps it for the next one):
 * for each request it is sent, parseStatement on the text, and the rows or the refusal posted back. An
 * AppError crosses as its parts (a class does not survive structured cloning); anything else is a fault
 * of the parser, posted as such.
 */
import { parentPort } from "node:worker_threads";
import { AppError } from "../errors.js";
import { parseStatement } from "./parse.js";
import type { WorkerReply, WorkerRequest } from "./bounded.js";

parentPort!.on("message", (request: WorkerRequest) => {
  let reply: WorkerReply;
  try {
    reply = { rows: parseStatement(request.text, request.format, request.mapping, request.hints) };
  } catch (err) {
    reply = err instanceof AppError ? { refused: { name: err.errorName, message: err.message, details: err.details } } : { fault: String(err).slice(0, 200) };
  }
  parentPort!.postMessage(reply);
});
