// The clocks' dials' one scale (no DOM: Node's tests import it): logarithmic, from 10 ms (an empty
// dial) to 10 min (a full one), the same for both dials and every state, so a longer time always
// fills more of its dial and a clock whose time did not change is drawn identically.

/** The scale, as TwoClocks.drawn().scale reports it. */
export const SCALE = Object.freeze({ kind: "log", min_ms: 10, max_ms: 600_000 });
const DECADES = Math.log10(SCALE.max_ms / SCALE.min_ms);

/**
 * Where `ms` sits on the scale, 0..1: 0 at 10 ms or less (and for NaN), 1 at 10 min or more, and in
 * between log10(ms / 10 ms) / log10(10 min / 10 ms), strictly increasing. A dial fills this share of
 * its arc: TwoClocks.drawn()'s `size`.
 */
export function dialSize(ms) {
  if (!(ms > SCALE.min_ms)) return 0;
  if (ms >= SCALE.max_ms) return 1;
  return Math.log10(ms / SCALE.min_ms) / DECADES;
}

/** The scale's labelled marks: [ms, label, a phone's shorter label]. */
export const MARKS = Object.freeze([[10, "10 ms", "10ms"], [100, "100 ms", "100ms"], [1000, "1 s", "1s"],
  [10_000, "10 s", "10s"], [60_000, "1 min", "1min"], [600_000, "10 min", "10min"]]);

/** The labelled marks in words, for the canvas's text alternative. */
export const SCALE_WORDS = `${MARKS.slice(0, -1).map((m) => m[1]).join(", ")} and ${MARKS.at(-1)[1]}`;
