import type { Handlers } from "../../../generated/handlers.js";
import { prepareBankSync, syncBankConnections } from "../../domain/banks/tool.js";

const handle: Handlers["sync_bank_connections"] = async (params, ctx) => syncBankConnections(ctx, params);

// prepare reads the bridges before the write's transaction opens (src/writes/pipeline.ts, WriteHandler).
export const sync_bank_connections: Handlers["sync_bank_connections"] = Object.assign(handle, { prepare: prepareBankSync });
