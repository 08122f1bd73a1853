// Tabs of one lesson keep one progress. Each tab reads its own copy of local storage, which another
// tab's writes reach a moment later, so a tab that saved before another's answer reached it wrote
// without that answer (Progress.save() merges only what its copy holds). The `storage` event brings
// each write of another tab: what it left out of this tab's is put back. Loaded once Python is
// live (not part of the first load's bytes); a write missed before then is checked once at start.
import { parseProgress } from "./progress.js";

/** Keep `progress` (a Progress) in step with the lesson's other tabs from now on, and `path` (the
 * GuidedPath) showing it. */
export function syncTabs(progress, path) {
  const took = (text) => {
    otherTabWrote(progress, text);
    showElsewhere(path, progress);
  };
  addEventListener("storage", (event) => event.key === progress.store.key && took(event.newValue));
  took(progress.store.read());
}

/** Show in this tab's guided path what another tab changed: each step's dot, and the current
 * step's answer given there (so this tab never asks it again) or, after a Start over there, the
 * step afresh from its setup (its question, and the clocks as they were before any action). The
 * step is redrawn only then: a choice made here and not yet locked in stays. */
function showElsewhere(path, progress) {
  path.renderDots();
  const step = path.current;
  const answered = Boolean(progress.prediction(step.id));
  const shown = document.documentElement.classList.contains("path"); // the path's view, not the lab's
  if (!shown || !step.choices.length || answered !== (path.phase === "predict")) return path.changed();
  if (!answered) return path.go(step.id); // its setup again: an action's state would give the answer away
  path.phase = "revealed";
  path.render();
  path.changed();
}

/** Another tab kept `text` under this lesson's key: `progress` takes in its steps done and answers
 * (this tab's place stays) and, if it lacks any of this tab's, saves the union, so every tab ends
 * with every answer of each (an answer marks its step done). A later attempt (Start over) replaces
 * an earlier one. */
export function otherTabWrote(progress, text) {
  const other = parseProgress(text);
  const mine = progress.data;
  if (!other || other.attempt > mine.attempt) {
    if (other) progress.data = { ...other, current: mine.current };
    return;
  }
  if (other.attempt < mine.attempt || mine.done.some((id) => !other.done.includes(id))) progress.save();
  else progress.takeIn(other); // the same attempt, nothing of this tab's missing: no write
}
