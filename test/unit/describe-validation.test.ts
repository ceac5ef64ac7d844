/**
 * A bound refusal reads as a phrase after the field ("limit: at most 50 (got 51)"), not ajv's wording
 * ("limit: expected must be <= 50"): each bound keyword the spec uses, through the validator options
 * codegen compiles with (allErrors, verbose).
 */
import { expect } from "chai";
import Ajv from "ajv";
import { AppError } from "../../src/errors.js";
import { validationError } from "../../src/rpc/describe-validation.js";

const ajv = new Ajv.default({ allErrors: true, verbose: true, strict: true });
const validate = ajv.compile({
  type: "object",
  additionalProperties: false,
  properties: {
    limit: { type: "integer", minimum: 1, maximum: 50 },
    ratio: { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1 },
    name: { type: "string", minLength: 1, maxLength: 3 },
    tags: { type: "array", items: { type: "string" }, minItems: 1, maxItems: 2, uniqueItems: true },
  },
});

function refusal(params: Record<string, unknown>): AppError {
  expect(validate(params), "the params are refused").to.equal(false);
  return validationError("some_tool", validate.errors!);
}

describe("bound refusals read naturally", () => {
  const cases: [Record<string, unknown>, string, string][] = [
    [{ limit: 51 }, "limit", "at most 50"],
    [{ limit: 0 }, "limit", "at least 1"],
    [{ ratio: 1 }, "ratio", "less than 1"],
    [{ ratio: 0 }, "ratio", "more than 0"],
    [{ name: "abcd" }, "name", "at most 3 characters"],
    [{ name: "" }, "name", "at least 1 character"],
    [{ tags: ["a", "b", "c"] }, "tags", "at most 2 items"],
    [{ tags: [] }, "tags", "at least 1 item"],
    [{ tags: ["a", "a"] }, "tags", "no item twice"],
  ];
  for (const [params, field, expected] of cases) {
    it(`${JSON.stringify(params)} → "${field}: ${expected}"`, () => {
      const err = refusal(params);
      expect(err.details).to.include({ field, expected });
      expect(err.message).to.include(`${field}: ${expected} (got `);
      expect(err.message).to.not.match(/must|expected/);
    });
  }
});
