// The log section's formatters: a fitted coefficient, a file size, a counted noun. Durations,
// counts and numbers come from ../format.js, as everywhere on the page.
import { formatCounted, formatNumber } from "../format.js";

const SUPERSCRIPT = { "-": "⁻", 0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶", 7: "⁷", 8: "⁸", 9: "⁹" };

/** A coefficient for reading: 3 significant figures, "5.04 × 10⁻⁷" when very small or large. */
export function formatCoefficient(value) {
  if (value === null || value === undefined || !Number.isFinite(value)) return "–";
  if (value === 0) return "0";
  const exponent = Math.floor(Math.log10(Math.abs(value)));
  if (exponent < -3 || exponent > 5) {
    let mantissa = value / 10 ** exponent;
    let power = exponent;
    if (Math.abs(Number(mantissa.toFixed(2))) >= 10) { mantissa /= 10; power += 1; }
    const sup = String(power).split("").map((ch) => SUPERSCRIPT[ch]).join("");
    return `${mantissa.toFixed(2)} × 10${sup}`;
  }
  return formatNumber(Number(value.toPrecision(3)), 10);
}

/** A count with its noun: the page's one rule (format.js, formatCounted). */
export const plural = (n, one, many) => formatCounted(n, one, many);
