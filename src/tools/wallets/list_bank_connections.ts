import type { Handlers } from "../../../generated/handlers.js";
import { listBankConnections } from "../../domain/banks/tool.js";

export const list_bank_connections: Handlers["list_bank_connections"] = async (params, ctx) => listBankConnections(ctx, params);
