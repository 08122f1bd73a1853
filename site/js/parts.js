// The report's optional parts (twoclocks.report.OPTIONAL_PARTS: sections that one view shows, such
// as the doubling cards' sensitivities) and which of them a model call computes. A drag re-runs the
// report every frame, so it asks only for the parts whose views are near the screen; those of the
// others the current view shows are filled in by one more call once the controls settle (`missing`,
// `displayed`), so a settled page shows the model's answer in every view it shows; a view that comes
// near asks for its part at once (`onNear`), and one the view hid until now (the guided path's
// switch to the lab) is filled at the next quiet moment (main.js gives it to lazyparts.js).

/** A view in main.js's list that shows one optional part: shown only reports that carry it. */
export const partView = (part, view) => ({ part, show: (report, state) => view.show(report, state) });

/** Does `view` take `report`? A view of a part the report left out keeps what it shows. */
const takes = (view, report) => !view.part || (report.parts ?? []).includes(view.part);

/** Show `report` in every view of `views` that takes it (`only`: in the views of these parts
 * alone). A view that fails is reported as the page's error (tests see it); the others still show. */
export function showInViews(views, report, state, only = null) {
  for (const view of views) {
    if (!takes(view, report) || (only && !only.includes(view.part))) continue;
    try {
      view.show(report, state);
    } catch (error) {
      reportError(error);
    }
  }
}

export class ReportParts {
  /** `views`: main.js's list (the part views among them are watched by `elements`: part -> element
   * or [elements], the part near when any of them is);
   * `onNear(parts)`: these parts' views came near the screen (ask the model if one is missing). */
  constructor(views, elements, onNear) {
    this.all = [...new Set(views.filter((view) => view.part).map((view) => view.part))];
    this.nearElements = new Set(); // watched elements within a screen's height of the viewport
    this.watched = Object.entries(elements).map(([part, list]) => [part, [list].flat()]);
    const observer = new IntersectionObserver((entries) => {
      const before = this.onScreen();
      for (const entry of entries) {
        if (entry.isIntersecting) this.nearElements.add(entry.target);
        else this.nearElements.delete(entry.target);
      }
      const came = this.onScreen().filter((part) => !before.includes(part));
      if (came.length) onNear(came);
    }, { rootMargin: "100% 0px" }); // as whenNear (dom.js): a screen's height ahead of a scroll
    for (const [, list] of this.watched) for (const element of list) observer.observe(element);
  }

  /** The parts a drag's call computes: those whose views are near the screen. */
  onScreen() {
    return this.watched.filter(([, list]) => list.some((element) => this.nearElements.has(element))).map(([part]) => part);
  }

  /** Those of `parts` whose views the current view shows (the guided path hides most of them). */
  displayed(parts) {
    return parts.filter((part) => this.watched.some(([name, list]) => name === part &&
      list.some((element) => element.checkVisibility?.() ?? element.getClientRects().length > 0)));
  }

  /** The parts `report` left out (none when it is null: nothing to fill in). */
  missing(report) {
    return report ? this.all.filter((part) => !(report.parts ?? []).includes(part)) : [];
  }
}
