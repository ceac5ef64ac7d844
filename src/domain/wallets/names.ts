/** Wallet names are unique per user, compared case-insensitively (folded in JavaScript, the same on both engines). */
import type { Knex } from "knex";
import { AppError } from "../../errors.js";
import { foldKey } from "../shared/text.js";

export function normalizeWalletName(name: string): { name: string; key: string } {
  const trimmed = name.normalize("NFC").trim();
  return { name: trimmed, key: foldKey(trimmed) };
}

/** Refuses a name another of the user's wallets already has (conflict naming `name`, with its id). */
export async function assertNameFree(db: Knex, userId: string, key: string, exceptId?: string): Promise<void> {
  const q = db("wallets").where({ user_id: userId, name_normalized: key });
  if (exceptId) q.andWhereNot("id", exceptId);
  const clash = await q.first("id", "name");
  if (clash) {
    throw new AppError(
      "conflict",
      `name: the user already has a wallet named ${JSON.stringify(String(clash.name))} (names are compared case-insensitively). Choose another name, or use that wallet.`,
      {
        field: "name",
        existing_id: String(clash.id),
      },
    );
  }
}
