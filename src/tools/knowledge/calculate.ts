import type { Handlers } from "../../../generated/handlers.js";
import { CalculationError, evaluateExpression } from "../../domain/calculator/evaluate.js";
import { AppError } from "../../errors.js";

export const calculate: Handlers["calculate"] = async (params) => {
  try {
    return evaluateExpression(params.expression);
  } catch (err) {
    if (err instanceof CalculationError) {
      throw new AppError("calculation_error", err.message, { field: "expression", position: err.position, reason: err.reason });
    }
    throw err;
  }
};
