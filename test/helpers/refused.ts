/** The AppError a statement reader throws (a test's expected refusal); any other error is rethrown. */
import { AppError } from "../../src/errors.js";

export function refused(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error("expected an AppError");
}
