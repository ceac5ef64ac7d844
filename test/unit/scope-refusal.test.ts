/**
 * A resource or prompt outside the token's scopes is refused as a tool call is: an OAuth client's token
 * with insufficient_scope and its 403 (the step-up cue), a static token with the same JSON-RPC error at
 * HTTP 200 and the way to get a token with the scope.
 */
import { expect } from "chai";
import type { Caller } from "../../src/context.js";
import { AppError } from "../../src/errors.js";
import { lacksScope } from "../../src/mcp/scope-refusal.js";
import { errorObject } from "../../src/rpc/message.js";

const caller = (grantId: string | null): Caller => ({
  userId: "usr_1",
  tokenId: "tok_1",
  tokenName: "t",
  scopes: new Set(["read:wallets"]),
  expiresAt: null,
  grantId,
  timezone: "UTC",
  defaultCurrency: "USD",
});

describe("lacksScope (resources and prompts outside the token's scopes)", () => {
  it("gives an OAuth client's token insufficient_scope with its 403", () => {
    const err = lacksScope(caller("grt_1"), "read:knowledge", "reading finance://knowledge/kb_x");
    expect(err).to.be.instanceOf(AppError);
    expect(err.httpStatus).to.equal(403);
    expect(errorObject(err).data).to.deep.include({ code: "insufficient_scope", scope: "read:knowledge" });
  });

  it("gives a static token the same JSON-RPC error at HTTP 200, saying how to get a token with the scope", () => {
    const err = lacksScope(caller(null), "read:knowledge", "reading finance://knowledge/kb_x");
    expect(err.httpStatus).to.equal(200);
    const oauth = lacksScope(caller("grt_1"), "read:knowledge", "reading finance://knowledge/kb_x");
    expect(err.code).to.equal(oauth.code);
    expect(errorObject(err).data).to.deep.equal({ code: "insufficient_scope", retryable: false, scope: "read:knowledge" });
    expect(err.message).to.include("lacks the scope read:knowledge").and.include("finance-mcp token create");
  });
});
