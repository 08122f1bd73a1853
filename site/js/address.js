// The page's address follows the lab (its state and view, as urlstate.js writes them), at most every
// URL_SYNC_MS while the learner drags; "Copy link" copies the address of exactly what is shown.
const URL_SYNC_MS = 300; // the address follows the controls, at most this often

export class Address {
  /** `lesson`: the LessonState; `view`: the view the address asked for (kept up to date by main.js). */
  constructor(lesson, view) {
    Object.assign(this, { lesson, view });
    this.timer = 0;
  }

  /** The query string of what is shown: the lab's settings, or the path's step. */
  query() {
    return this.lesson.toQuery(this.view);
  }

  /** The whole lab an address holds (Back or Forward to it): the defaults, its scenario, its settings. */
  stateOf(search) {
    return this.lesson.read(search, structuredClone(this.lesson.defaults)).state;
  }

  /** Write the current state and view into the address (soon, once). */
  sync() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.write(), URL_SYNC_MS);
  }

  /** Write a pending change now: before the view changes, so this entry keeps what it showed. */
  flush() {
    if (this.timer) this.write();
  }

  write() {
    clearTimeout(this.timer);
    this.timer = 0;
    history.replaceState(history.state, "", `${location.pathname}${this.query()}${location.hash}`);
  }

  /** Write the current state and view into the address now, as a new entry of the tab's history, so
   * the browser's Back returns to the last one; the new place takes no #anchor of the old one. Only
   * in a tab of its own: framed (an embed, a course site) the host's Back stays the host's, and the
   * address is replaced instead. */
  push() {
    if (this.view.embed || window.top !== window) return this.sync();
    clearTimeout(this.timer);
    this.timer = 0;
    history.pushState(null, "", `${location.pathname}${this.query()}`);
  }

  /** "Copy link": the address of this view (embedded or not, a link opens the page itself), said in `status`. */
  async copy(status) {
    clearTimeout(this.timer);
    const link = new URL(`${location.pathname}${this.lesson.toQuery({ ...this.view, embed: false })}`, location.href);
    // A fitted model stays in this tab: a log's coefficients are not put in links.
    const caveat = this.lesson.value.toy_constants ? " It opens with the toy numbers: your fitted model is not part of links." : "";
    try {
      await navigator.clipboard.writeText(link.href);
      status.textContent = caveat ? `Link copied.${caveat}` : "Link copied: it opens this exact view.";
    } catch {
      status.textContent = `Copy this link: ${link.href}${caveat}`;
    }
  }
}
