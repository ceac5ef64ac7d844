/**
 * Entry of a second server process for tests (two processes over one database): serves on an ephemeral
 * loopback port of the DATABASE_URL it is given, prints {"port":N} on stdout, stops on SIGTERM.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { closeServices, createApp, createServices } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { createDb } from "../../src/db/knex.js";

const config = loadConfig({ LOG_LEVEL: "silent", ...process.env });
const db = createDb(config.databaseUrl);
const services = await createServices(config, db);
const server = createServer(createApp(services));
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.on("SIGTERM", () => {
  server.closeAllConnections();
  server.close(() => void closeServices(services).then(() => db.destroy()).then(() => process.exit(0)));
  setTimeout(() => process.exit(1), 3000).unref();
});
