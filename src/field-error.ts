/**
 * A refused input field, thrown by the modules that know nothing of the service's errors (src/money,
 * src/calendar): `field` names it (an argument, or a path such as `schedule.day_of_month`), `expected`
 * says what is accepted, and the message starts with the field. The domain turns it into invalid_params
 * with the same three. MoneyError and ScheduleError are its two kinds.
 */
export class FieldError extends Error {
  /** The AppError name to convert to: `invalidParams(err.field, err.expected, err.message)` from src/errors.ts. */
  readonly errorName = "invalid_params" as const;
  readonly field: string;
  readonly expected: string;

  constructor(field: string, expected: string, message: string) {
    super(`${field}: ${message}`);
    this.field = field;
    this.expected = expected;
  }
}
