// Tabs of one lesson keep one progress. Each tab reads its own copy of local storage, which another
// tab's writes reach a moment later, so a tab that saved before another's answer reached it wrote
// without that answer (Progress.save() merges only what its copy holds). The `storage` event brings
// each write of another tab: what it left out of this tab's is put back. Loaded once Python is
// live (not part of the first load's bytes); a write missed before then is checked once at start.
import { parseProgress } from "./progress.js";

/** Keep `progress` (a Progress) in step with the lesson's other tabs from now on. */
export function syncTabs(progress) {
  addEventListener("storage", (event) => event.key === progress.store.key && otherTabWrote(progress, event.newValue));
  otherTabWrote(progress, progress.store.read());
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
