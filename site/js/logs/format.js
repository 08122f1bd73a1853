// The log section's one formatter of its own: a counted noun, for the pictures' text alternatives.
// Durations, counts and numbers come from ../format.js, as everywhere on the page; the section's
// sentences and coefficients come written from Python (twoclocks.logs.sentences).
import { formatCounted } from "../format.js";

/** A count with its noun: the page's one rule (format.js, formatCounted). */
export const plural = (n, one, many) => formatCounted(n, one, many);
