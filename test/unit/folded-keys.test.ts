/**
 * The folded keys a transaction or part stores beside its payee and category come from one function
 * (foldedKeys, src/domain/shared/text.ts): one key for each text given, null for none, nothing for a text
 * not given (a patch that leaves the payee keeps its key).
 */
import { expect } from "chai";
import { foldedKeys } from "../../src/domain/shared/text.js";

describe("foldedKeys", () => {
  it("folds each text given: NFC, trimmed, lower case; null stays null", () => {
    expect(foldedKeys({ payee: "  Cafe\u0301 Zur Post ", category: "Dining" })).to.deep.equal({ payee_key: "caf\u00e9 zur post", category_key: "dining" });
    expect(foldedKeys({ payee: null, category: null })).to.deep.equal({ payee_key: null, category_key: null });
  });

  it("gives no key for a text not given", () => {
    expect(foldedKeys({ payee: "Bakery" })).to.deep.equal({ payee_key: "bakery" });
    expect(foldedKeys({ category: "Rent" })).to.deep.equal({ category_key: "rent" });
    expect(foldedKeys({})).to.deep.equal({});
  });
});
