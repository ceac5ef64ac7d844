/**
 * Entry of a server process for tests (several processes over one database, shutdown under load): serves
 * on an ephemeral loopback port of the DATABASE_URL it is given, prints {"port":N} on stdout, and stops
 * on SIGTERM/SIGINT exactly as `npm start` does (src/serve.ts: graceful, within SHUTDOWN_GRACE_SECONDS).
 */
import { loadConfig } from "../../src/config.js";
import { createLogger } from "../../src/log.js";
import { startServer, stopOnSignals } from "../../src/serve.js";

const config = loadConfig({ LOG_LEVEL: "silent", ...process.env, PORT: "0", HOST: "127.0.0.1" });
const running = await startServer(config, { log: createLogger(config.logLevel) });
stopOnSignals(running);
process.stdout.write(`${JSON.stringify({ port: running.port, pid: process.pid })}\n`);
