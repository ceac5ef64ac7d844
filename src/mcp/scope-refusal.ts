/**
 * A resource or prompt outside the token's scopes, as calling a tool without its scope is answered
 * (src/mcp/tools.ts): an OAuth client's token gets insufficient_scope with its 403 challenge, the cue for
 * the client's step-up (docs/oauth.md); a static token pasted into a client gets the same error with HTTP
 * 200, since bridges such as mcp-remote take a 403 for an OAuth step-up that cannot replace a pasted
 * header, and the message says how the user gets a token that has the scope.
 */
import type { Caller } from "../context.js";
import { AppError } from "../errors.js";
import { ProtocolError } from "../rpc/protocol-error.js";

export function lacksScope(caller: Caller, scope: string, what: string): AppError | ProtocolError {
  const err = new AppError("insufficient_scope", `This token lacks the scope ${scope}, which ${what} needs.`, { scope });
  if (caller.grantId) return new AppError("insufficient_scope", `${err.message} Ask the user to grant it.`, { scope });
  return new ProtocolError(
    err.code,
    `${err.message} The user must give this client a token with that scope: create one (finance-mcp token create, POST /api/v1/mcp-tokens or the account page) and replace the token in the client's configuration.`,
    err.toData(),
  );
}
