// The model's limits (BUILD.limits, derived from twoclocks/settings.py) applied to a value: the
// State's validation (state.js owns it; the widgets ask it too, so a typed value and
// TwoClocks.setState are checked by the same rule).
import { formatNumber } from "./format.js";

/** A limit or a value as a message names it: "0.01", "1,000", "0.9" (never rounded to a whole number). */
export const formatLimit = (value) => formatNumber(value, 3);
const clamp = (value, low, high) => Math.min(high, Math.max(low, value));

/** Check one value against the model's limits; returns an error message naming the key, or null. */
export function checkValue(key, value, limits, state) {
  const limit = Object.hasOwn(limits, key) ? limits[key] : null;
  if (!limit) return `unknown setting "${key}"; known: ${Object.keys(limits).join(", ")}`;
  switch (limit.kind) {
    case "bool":
      return typeof value === "boolean" ? null : `${key} must be true or false`;
    case "choice":
      return limit.choices.includes(value) ? null : `${key} must be one of ${limit.choices.join(", ")}`;
    case "object": {
      if (value === null && limit.nullable) return null;
      if (value === null || typeof value !== "object" || Array.isArray(value)) {
        return `${key} must be an object of settings`;
      }
      const missing = Object.keys(limit.fields).filter((field) => !Object.hasOwn(value, field));
      if (limit.complete && missing.length) return `${key} needs every field; missing: ${missing.join(", ")}`;
      for (const [field, fieldValue] of Object.entries(value)) {
        const problem = checkValue(field, fieldValue, limit.fields, value);
        if (problem) return `${key}: ${problem}`;
      }
      return null;
    }
    default: {
      if (value === null && limit.nullable) return null;
      const max = limit.at_most ? Math.min(limit.max, state[limit.at_most]) : limit.max;
      const integral = limit.kind === "int" ? Number.isInteger(value) : Number.isFinite(value);
      if (typeof value !== "number" || !integral || value < limit.min || value > max) {
        const what = limit.kind === "int" ? "an integer" : "a number";
        return `${key} must be ${what} from ${formatLimit(limit.min)} to ${formatLimit(max)}`;
      }
      return null;
    }
  }
}

/** The allowed value nearest a typed number: rounded for a whole-number setting, then clamped. */
export function nearestAllowed(value, limit, state) {
  const max = limit.at_most ? Math.min(limit.max, state[limit.at_most]) : limit.max;
  return clamp(limit.kind === "int" ? Math.round(value) : value, limit.min, max);
}
