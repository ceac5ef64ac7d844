import type { Handlers } from "../../../generated/handlers.js";
import { whoAmI } from "../../domain/meta/whoami.js";

export const whoami: Handlers["whoami"] = async (params, ctx) => whoAmI(ctx, params);
