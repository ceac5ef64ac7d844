/**
 * Process entry: config → database → migrate → knowledge base → serve → shut down gracefully on
 * SIGTERM/SIGINT (src/serve.ts). `npm start`, bare `finance-mcp`, `finance-mcp serve` and `npm run dev` all
 * come here.
 *
 * The first log line says where the server is: its URL, the database (secrets masked) and the engine. A
 * database path that cannot be made or written is one line naming it and why, with exit code 2.
 */
import { describeDatabase, loadConfig } from "./config.js";
import { engineName } from "./db/engine.js";
import { DatabasePathError } from "./db/sqlite-file.js";
import { createLogger } from "./log.js";
import { startServer, stopOnSignals } from "./serve.js";

async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel, config.logFormat);
  const running = await startServer(config, { log });
  stopOnSignals(running);
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  log.info("listening", {
    url: `http://${host}:${running.port}/api/v1/mcp`,
    home: `http://${host}:${running.port}/`,
    database: describeDatabase(config.databaseUrl),
    engine: engineName(config.databaseUrl),
  });
  // No user yet: the owner creates their account at / with this code (src/web/setup-page.ts). It is meant
  // for whoever reads this log, and works once; `finance-mcp user create` is the other way in.
  if (running.setupCode) {
    log.info("first_run", {
      setup_code: running.setupCode,
      open: `http://${host}:${running.port}/`,
      message: "No account yet: open the address above in a browser and enter this setup code to create the owner account.",
    });
  }
}

main().catch((err: unknown) => {
  if (err instanceof DatabasePathError) {
    console.error(`finance-mcp: ${err.message}`);
    process.exit(2);
  }
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
