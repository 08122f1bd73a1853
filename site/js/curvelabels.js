// Where a curve's point labels go (the load curve's numbers of users): a layout in CSS pixels, no
// drawing. Points that lie on top of each other are one mark to the eye, so they get one label, a
// range ("512–1,024"); a label goes above, left of, right of or below its mark, only where it stays
// on the canvas, meets no other text or mark, is not crossed by the curve, and is nearer its own
// mark than any other point (so "512" never sits by the 1,024 users' point); where no place is
// left it is not drawn.

const NEAR_PX = 9; // points closer than this (two 3.5 px dots touching) are one mark
const ABOVE_PX = 6; // from a point's centre to the label above or below it
const BESIDE_PX = 8; // from a point's centre to the label left or right of it
const CLEAR_PX = 3; // from a larger mark's edge (a point's `r`, as a ring round it) to its label
const GAP_PX = 2; // the least room between a label and another text or mark (as canvas.js keeps)

/** Consecutive points each within `near` px of the one before are one group: [{first, last}]
 * (indices into `points`, [{x, y}]). */
export function groupPoints(points, near = NEAR_PX) {
  const groups = [];
  points.forEach((point, i) => {
    const before = points[i - 1];
    if (before && Math.hypot(point.x - before.x, point.y - before.y) < near) groups.at(-1).last = i;
    else groups.push({ first: i, last: i });
  });
  return groups;
}

const meets = (a, b) => a.left < b.right + GAP_PX && b.left < a.right + GAP_PX &&
  a.top < b.bottom + GAP_PX && b.top < a.bottom + GAP_PX;

/** Does the segment from `a` to `b` ({x, y}) cross `box` (Liang-Barsky clipping)? */
function crosses(box, a, b) {
  let [t0, t1] = [0, 1];
  const [dx, dy] = [b.x - a.x, b.y - a.y];
  for (const [p, q] of [[-dx, a.x - box.left], [dx, box.right - a.x], [-dy, a.y - box.top], [dy, box.bottom - a.y]]) {
    if (p === 0) {
      if (q < 0) return false;
    } else if (p < 0) {
      t0 = Math.max(t0, q / p);
    } else {
      t1 = Math.min(t1, q / p);
    }
  }
  return t0 <= t1;
}

/** How far the point (x, y) is from `box` (0 inside it). */
const distance = (box, { x, y }) => Math.hypot(Math.max(box.left - x, 0, x - box.right), Math.max(box.top - y, 0, y - box.bottom));

/**
 * The labels of `points` ([{x, y, text, r}], in the curve's order; `r`, if given, the half size of
 * a mark drawn round the point, which its label clears) as [{text, x, y, align, baseline,
 * box}], to draw with fillText at that alignment and baseline; `box` {left, top, right, bottom} is
 * what it covers. `measure(text, align, baseline)` gives the text's box around its origin as
 * TextMetrics do ({actualBoundingBoxLeft, actualBoundingBoxRight, actualBoundingBoxAscent,
 * actualBoundingBoxDescent}); `avoid` holds the boxes already taken (other texts, the marks);
 * `width` and `height` are the canvas's. Groups are placed in order, each where it first fits; the
 * curve is the line through the points in order.
 */
export function curveLabels(points, { measure, avoid = [], width, height }) {
  const placed = [];
  for (const { first, last } of groupPoints(points)) {
    const own = points.slice(first, last + 1);
    const text = first === last ? points[first].text : `${points[first].text}–${points[last].text}`;
    const [left, right] = [Math.min(...own.map((p) => p.x)), Math.max(...own.map((p) => p.x))];
    const [top, bottom] = [Math.min(...own.map((p) => p.y)), Math.max(...own.map((p) => p.y))];
    const [cx, cy] = [(left + right) / 2, (top + bottom) / 2];
    const r = Math.max(0, ...own.map((p) => p.r ?? 0)) + CLEAR_PX;
    const [above, beside] = [Math.max(ABOVE_PX, r), Math.max(BESIDE_PX, r)];
    const others = points.filter((_, i) => i < first || i > last);
    for (const [align, baseline, x, y] of [["center", "bottom", cx, top - above], ["right", "middle", left - beside, cy],
      ["left", "middle", right + beside, cy], ["center", "top", cx, bottom + above]]) {
      const m = measure(text, align, baseline);
      const box = { left: x - m.actualBoundingBoxLeft, right: x + m.actualBoundingBoxRight,
        top: y - m.actualBoundingBoxAscent, bottom: y + m.actualBoundingBoxDescent };
      if (box.left < 0 || box.right > width || box.top < 0 || box.bottom > height || [...avoid, ...placed.map((p) => p.box)].some((b) => meets(box, b))) continue;
      if (points.some((p, i) => i && crosses(box, points[i - 1], p))) continue;
      const nearest = Math.min(...own.map((p) => distance(box, p)));
      if (others.some((p) => distance(box, p) <= nearest)) continue; // it would read as another point's
      placed.push({ text, x, y, align, baseline, box });
      break;
    }
  }
  return placed;
}
