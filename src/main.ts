/**
 * Process entry: config → database → migrate → knowledge base → serve → shut down gracefully.
 */
import { createServer } from "node:http";
import { loadConfig } from "./config.js";
import { createDb } from "./db/knex.js";
import { migrateLatest } from "./db/migrate.js";
import { closeServices, createApp, createServices } from "./app.js";
import { purgeExpiredKeys } from "./writes/idempotency.js";
import { seedKnowledgeBase } from "./domain/knowledge/store.js";

const PURGE_EVERY_MS = 10 * 60_000;

async function main(): Promise<void> {
  const config = loadConfig();
  const db = createDb(config.databaseUrl);
  await migrateLatest(db);
  await seedKnowledgeBase(db);
  const services = await createServices(config, db);
  const server = createServer(createApp(services));
  const purge = setInterval(() => void purgeExpiredKeys(db, new Date()).catch(() => undefined), PURGE_EVERY_MS);
  purge.unref();
  await purgeExpiredKeys(db, new Date());

  server.listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : config.port;
    services.log.info("listening", { url: `http://${config.host}:${port}/api/v1/mcp`, database: config.databaseUrl.startsWith("sqlite:") ? config.databaseUrl : "postgres" });
  });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    services.log.info("stopping", { signal });
    clearInterval(purge);
    server.close(() => {
      void closeServices(services).then(() => db.destroy()).then(() => process.exit(0));
    });
    server.closeAllConnections();
    setTimeout(() => process.exit(1), 5000).unref();
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
