/**
 * A person changes their own password (the account page's form). The current password is checked by
 * signIn (same throttle as every sign-in), so a borrowed session cannot guess it. The new hash and the end
 * of every web session of the person commit together: a session stolen before the change dies with it
 * (docs/decisions.md#web-sessions). API tokens and OAuth grants are not touched: they are revoked on their own.
 */
import type { Knex } from "knex";
import { hashPassword } from "./passwords.js";
import { passwordProblem, UserInputError } from "./users.js";
import { endAllSessions } from "./web-sessions.js";

/** Sets the new password and ends every web session of the user; UserInputError when the password is unfit. */
export async function changePassword(db: Knex, userId: string, newPassword: string, now: Date): Promise<void> {
  const problem = passwordProblem(newPassword);
  if (problem) throw new UserInputError(problem);
  const hash = await hashPassword(newPassword);
  await db.transaction(async (trx) => {
    await trx("users").where({ id: userId }).update({ password_hash: hash, updated_at: now.toISOString() });
    await endAllSessions(trx, userId);
  });
}
