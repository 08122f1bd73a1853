// Reading a number a person wrote: the one place the page turns text into a number (the number
// boxes of every control, and the address's settings). Written out rather than Intl or Number():
// Number() reads "0x10" as 16 and "" as 0, and a browser's <input type=number> drops a comma.
//
// The rule (README, "Typing a number"), the same for every box and the address:
// - An optional sign, digits, an optional exponent ("1e3" is 1000); spaces around are trimmed.
// - A point or a comma may be the decimal separator: "2.5" and "2,5" are both 2.5.
// - Both in one number: the one that comes last is the decimal separator and may appear once; the
//   other groups thousands ("1,000.5" and "1.000,5" are both 1000.5).
// - One of them more than once groups thousands ("1,000,000", "1.000.000"). Spaces (also no-break
//   and thin spaces) and apostrophes group thousands too ("1 000", "1'000").
// - One of them once, after 1 to 3 digits not starting with 0 and before exactly 3 digits ("1,000",
//   "2.500"): for a whole-number setting it groups thousands (1000, 2500: a token count has no
//   decimal part). For a setting with decimals a point is the decimal separator, the page's own
//   ("2.500" is 2.5, as the address writes it), and a comma could be either, so "1,000" is refused
//   with both readings in words. Any other single separator is the decimal one ("0,125", "12,5").
// - Thousands groups are 1 to 3 digits, then exactly 3 digits each; other groupings are refused.
// - Every other text ("abc", "0x10", "Infinity", "1/2") is refused, never guessed.
// Range and whole-number checks are the caller's (limits.js's checkValue, urlstate.js's clamp).

const GROUP_SPACES = /[ \u00a0\u202f\u2009'\u2019]/;
const SHAPE = /^([+\-\u2212]?)([0-9.,\u0020\u00a0\u202f\u2009'\u2019]*)(?:[eE]([+\-\u2212]?[0-9]+))?$/u;
const PLAIN = /^-?[0-9]+(\.[0-9]+)?$/; // what the page itself writes: String(value)

/** Digits grouped by thousands ("1,000,000", "12 345") as plain digits, or null if a group is not 3 digits. */
function ungroup(text, separators) {
  const groups = text.split(new RegExp(`[${separators}]`, "u"));
  if (groups.length === 1) return /^[0-9]*$/.test(text) ? text : null;
  const [first, ...rest] = groups;
  return /^[0-9]{1,3}$/.test(first) && rest.every((group) => /^[0-9]{3}$/.test(group)) ? groups.join("") : null;
}

/**
 * Read `text` as a number under the rule above. `integer` is true for a whole-number setting (a
 * lone separator before exactly three digits then groups thousands). Returns {value, plain} where
 * `plain` says the text was already a plain decimal ("-12.5"), or {problem}: a phrase that follows
 * the quoted text, e.g. `"abc"` + ` is not a number` (with `readings`, the two numbers it could mean,
 * when a lone comma could group thousands or be decimal). Range and whole-number checks are the caller's.
 */
export function parseNumber(text, { integer = false } = {}) {
  const trimmed = String(text).trim();
  if (trimmed === "") return { problem: "is empty" };
  const match = SHAPE.exec(trimmed);
  if (!match || !/[0-9]/.test(match[2])) {
    return { problem: /^[+-]?0[box]/i.test(trimmed) ? "is not a decimal number (0x, 0b and 0o forms are not read)" : "is not a number" };
  }
  const [, sign, body, exponent = "0"] = match;
  const spaced = GROUP_SPACES.test(body);
  const commas = body.split(",").length - 1;
  const points = body.split(".").length - 1;
  let whole = body;
  let fraction = "";
  let groupedBy = " \u00a0\u202f\u2009'\u2019"; // the characters that group thousands here
  const lastComma = body.lastIndexOf(",");
  const lastPoint = body.lastIndexOf(".");
  const decimal = commas && points ? (lastComma > lastPoint ? "," : ".") : null;
  if (decimal) { // both: the last one is the decimal separator
    if ((decimal === "," ? commas : points) > 1) return { problem: "has more than one decimal separator" };
    groupedBy += decimal === "," ? "." : ",";
    [whole, fraction] = body.split(decimal);
  } else if (commas + points > 1) { // one of them, more than once: thousands
    groupedBy += commas ? "," : ".";
  } else if (commas + points === 1) {
    const separator = commas ? "," : ".";
    const [before, after] = body.split(separator);
    // A point alone is the page's own decimal separator ("2.500" is 2.5, as the address writes it),
    // except in a whole number; a comma alone before three digits is anyone's guess in a decimal.
    const couldGroup = !spaced && /^[1-9][0-9]{0,2}$/.test(before) && /^[0-9]{3}$/.test(after) &&
      (integer || separator === ",");
    if (couldGroup && !integer) {
      const asGroups = `${before}${after}`;
      const asDecimal = String(Number(`${before}.${after}`));
      return { problem: `could mean ${asGroups} or ${asDecimal}: type ${asGroups} or ${asDecimal}`, readings: [Number(asGroups), Number(asDecimal)] };
    }
    if (couldGroup) groupedBy += separator;
    else [whole, fraction] = [before, after];
  }
  if (GROUP_SPACES.test(fraction) || !/^[0-9]*$/.test(fraction)) return { problem: "has a space or separator after its decimal separator" };
  const digits = ungroup(whole, groupedBy);
  if (digits === null) return { problem: "has a thousands separator that is not followed by three digits" };
  if (digits === "" && fraction === "") return { problem: "is not a number" };
  const value = Number(`${sign === "+" ? "" : sign ? "-" : ""}${digits || "0"}.${fraction || "0"}e${exponent.replace("\u2212", "-")}`);
  if (!Number.isFinite(value)) return { problem: "is too large" };
  return { value, plain: PLAIN.test(trimmed) && value === Number(trimmed) };
}
