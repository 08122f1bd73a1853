// The page's address follows the lab (its state and view, as urlstate.js writes them), at most every
// URL_SYNC_MS while the learner drags; "Copy link" copies the address of exactly what is shown.
const URL_SYNC_MS = 300; // the address follows the controls, at most this often

export class Address {
  /** `lesson`: the LessonState; `view`: the view the address asked for (kept up to date by main.js). */
  constructor(lesson, view) {
    Object.assign(this, { lesson, view });
    this.timer = 0;
  }

  /** Write the current state and view into the address (soon, once). */
  sync() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      history.replaceState(history.state, "", `${location.pathname}${this.lesson.toQuery(this.view)}${location.hash}`);
    }, URL_SYNC_MS);
  }

  /** Write the current state and view into the address now, as a new entry of the tab's history, so
   * the browser's Back returns to the last one. Only in a tab of its own: framed (an embed, a course
   * site) the host's Back stays the host's, and the address is replaced instead. */
  push() {
    if (this.view.embed || window.top !== window) return this.sync();
    clearTimeout(this.timer);
    history.pushState(null, "", `${location.pathname}${this.lesson.toQuery(this.view)}${location.hash}`);
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
