import { toolsByName } from "../../generated/registry.js";
import { invalidParams } from "../errors.js";

// currency only says what an amount is in (docs/ledger.md, "A named currency"): it changes nothing by itself.
const NOT_A_CHANGE = new Set(["idempotency_key", "dry_run", "currency"]);

/**
 * An update must change something: at least one param besides the id, the idempotency key and dry_run.
 * The list of changeable fields comes from the tool's params in openrpc.json, so it cannot drift.
 */
export function requireSomeChange(tool: string, idParam: string, params: object): void {
  const fields = toolsByName.get(tool)!.paramNames.filter((n) => n !== idParam && !NOT_A_CHANGE.has(n));
  const given = params as Record<string, unknown>;
  if (!fields.some((f) => given[f] !== undefined)) {
    throw invalidParams("(params)", `at least one of ${fields.join(", ")}`, `${tool} needs at least one field to change besides ${idParam}: ${fields.join(", ")}.`);
  }
}
