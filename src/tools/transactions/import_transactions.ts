import type { Handlers } from "../../../generated/handlers.js";
import { importTransactions, prepareImport } from "../../domain/imports/tool.js";

const handle: Handlers["import_transactions"] = async (params, ctx) => importTransactions(ctx, params);

// prepare reads the statement before the write's transaction opens (src/writes/pipeline.ts, WriteHandler).
export const import_transactions: Handlers["import_transactions"] = Object.assign(handle, { prepare: prepareImport });
