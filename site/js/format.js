// Number formatting for reading: "12,000 tokens", "850 ms", "1.24 s", "3 min 20 s".

// Written out rather than Intl.NumberFormat or toLocaleString: the first use of either loads ICU's
// locale data, 15-50 ms on the main thread while the page starts (measured, headless Chromium).

/**
 * `value` as en-US prints it: thousands separated, at most `decimals` decimals, trailing zeros
 * dropped ("12,000", "2.5"). Non-finite values and magnitudes of 1e21 or more print as String().
 */
export function formatNumber(value, decimals = 0) {
  if (!Number.isFinite(value) || Math.abs(value) >= 1e21) return String(value);
  const [whole, fraction = ""] = Math.abs(value).toFixed(decimals).split(".");
  const digits = fraction.replace(/0+$/, "");
  const sign = value < 0 && (Number(whole) > 0 || digits) ? "-" : "";
  return `${sign}${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}${digits ? `.${digits}` : ""}`;
}

/**
 * A count with its noun or unit, the one rule for every text the page writes (visible or spoken):
 * the singular only when the number as shown is 1 ("1 token", "1 call per second", "0.5 calls per
 * second", "2,048 tokens"). `one` and `many` are the unit's two forms (BUILD.settings carries a
 * setting's as `unit_one` and `unit`); `decimals` as for formatNumber. Python's twin is
 * twoclocks.counts.format_counted.
 */
export function formatCounted(value, one, many = `${one}s`, decimals = 0) {
  const shown = formatNumber(value, decimals);
  return `${shown} ${shown === "1" ? one : many}`;
}

export function formatTokens(tokens) {
  return formatCounted(tokens, "token");
}

export function formatCount(value) {
  return formatNumber(value);
}

// `value` rounded to `decimals` places, as it will be shown.
const shown = (value, decimals) => Math.round(value * 10 ** decimals) / 10 ** decimals;

/** A duration for reading. Each unit is chosen by the value as shown, so rounding never gives
 *  "1000 ms", "10.00 s", "60.0 s" or "59 min 60 s". */
export function formatMs(ms) {
  if (!Number.isFinite(ms)) return "–";
  if (shown(ms, 1) < 10) return `${ms.toFixed(1)} ms`;
  if (Math.round(ms) < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (shown(seconds, 2) < 10) return `${seconds.toFixed(2)} s`;
  if (shown(seconds, 1) < 60) return `${seconds.toFixed(1)} s`;
  const wholeSeconds = Math.round(seconds);
  if (wholeSeconds < 3600) return `${Math.floor(wholeSeconds / 60)} min ${wholeSeconds % 60} s`;
  const hours = seconds / 3600;
  if (shown(hours, 1) < 48) return `${hours.toFixed(1)} h`;
  return `${formatNumber(hours / 24)} days`;
}

// Bytes are counted in thousands (SI: 1 kB = 1,000 bytes), as the model's own sentences and presets
// write them (an "80 GB" device, "131 kB a slot", bandwidth in GB/s) and as Safari and macOS show file
// sizes: one rule on the page, so a size here never disagrees with one Python wrote beside it.
const BYTE_UNITS = [[1e12, "TB"], [1e9, "GB"], [1e6, "MB"], [1e3, "kB"]];

/** A size for reading, to 3 significant digits: "512 bytes", "1.5 kB", "14.2 GB". The unit is
 *  chosen by the value as shown, so rounding never gives "1000 kB". */
export function formatBytes(bytes) {
  if (!Number.isFinite(bytes)) return "–";
  for (const [scale, unit] of BYTE_UNITS) {
    const value = +(bytes / scale).toPrecision(3);
    if (value >= 1) return `${formatNumber(value, 2)} ${unit}`;
  }
  return formatCounted(Math.round(bytes), "byte");
}

export function formatPercent(fraction) {
  return `${Math.round(fraction * 100)}%`;
}

export function formatUsd(usd) {
  if (usd >= 1) return `$${usd.toFixed(2)}`;
  if (usd >= 0.01) return `$${usd.toFixed(3)}`;
  return `$${usd.toFixed(4)}`;
}

/** A signed change: "+832 ms", "−1.2 s", or "no change". */
export function formatChangeMs(ms) {
  if (Math.abs(ms) < 1e-9) return "no change";
  return `${ms > 0 ? "+" : "−"}${formatMs(Math.abs(ms))}`;
}

/** `text` with its first letter upper-cased (a clause made a sentence). */
export const capital = (text) => text[0].toUpperCase() + text.slice(1);
