// The guided path's wiring: the path card (path.js) on the page's state, the switch between the path
// and the whole lab, and the buttons that move between them. main.js hands in what it owns.
import { BUILD } from "./build.js";
import { bringIntoView, scrollToStart, setHidden } from "./dom.js";
import { GuidedPath, markStepKeys } from "./path.js";
import { applySections } from "./sections.js";
import { SECTIONS } from "./urlstate.js";

const $ = (id) => document.getElementById(id);

/** A step's whole starting state: the defaults with the step's own settings over them. */
const stepState = (step) => ({ ...structuredClone(BUILD.defaults), ...step.setup });

/**
 * `view`: the page's view (pageview.js); `openedWith`: the state the address opened with; `applyState(partial)`, `whenSettled()`, `showOnClocks(state,
 * options)`, `syncUrl()`, `address` (address.js: its history entries), `callControls` (locked until a
 * prediction), `logs` (the log section), `progress`, `progressListeners`. Returns {guidedPath, showView(name)}.
 */
export function wirePath({ view, openedWith, applyState, whenSettled, showOnClocks, syncUrl, address, callControls, logs, progress, progressListeners }) {
  // The step on screen; the one Back or Forward is bringing (no new entry for it); and whether the
  // learner is coming from the lab (a new entry even for the step they left).
  let shownStep = null;
  let arriving = null;
  let fromLab = false;
  const pushUrl = () => address.push();
  /** Show the guided path or the whole lab (no reload: the state stays). */
  function showView(name) {
    view.view = name;
    const path = name === "path";
    document.documentElement.classList.toggle("path", path);
    setHidden($("path"), !path);
    applySections(path ? SECTIONS : view.sections);
    if (!path) {
      delete document.documentElement.dataset.pathShow;
      delete document.documentElement.dataset.pathPhase;
      document.documentElement.removeAttribute("data-path-veil");
      callControls.setLocked(view.readonly);
    }
  }

  const guidedPath = new GuidedPath($("path"), BUILD.path, progress, {
    setup: (step) => {
      applyState(stepState(step)); // every setting, so nothing of the last step or the lab stays
      return whenSettled();
    },
    settled: whenSettled,
    act: (action) => {
      if (action.play) {
        $("play").click();
        return bringIntoView($("screen")); // in view already where the clocks are sticky
      }
      if (action.run) {
        $("run").click();
        return $("output").scrollIntoView({ block: "start" }); // the whole printout, as it fills
      }
      showOnClocks({ ...stepState(guidedPath.current), ...action.state }, { scroll: false });
    },
    gate: (step, unlocked) => {
      markStepKeys($("controls"), step.keys);
      if (view.view === "path") callControls.setLocked(!unlocked || view.readonly);
    },
    show: (step) => { document.documentElement.dataset.pathShow = step.show ?? ""; },
    deeper: ({ section, state, sample }) => {
      showView("lab");
      if (state) applyState(state);
      pushUrl(); // Back returns to the step
      scrollToStart($(section)); // lands on the section, not short of it as the lab lays out
      if (sample) logs.loadSample(sample); // the example trace, into the log section once it has loaded
    },
    onChange: (summary, step) => {
      if (view.view === "path") {
        const moved = shownStep !== null && (shownStep !== step.id || fromLab) && arriving !== step.id;
        fromLab = false;
        view.step = step.id;
        if (moved) pushUrl(); // each step its own entry: the browser's Back is the previous step
        else syncUrl();
        shownStep = step.id;
        arriving = null;
      }
      progressListeners.tell({ ...summary, step: step.id });
    },
  });

  // Back and Forward: to a step's address, that step on the path; to the lab's, the lab as it held.
  addEventListener("popstate", () => {
    const step = new URLSearchParams(location.search).get("step");
    if (view.view === "path" && step === view.step) return; // an in-page link's entry: this step stays as it is
    if (!BUILD.path.some((s) => s.id === step)) {
      if (view.view === "lab" && location.search === address.query()) return; // the same lab, an in-page link
      showView("lab");
      return applyState(address.stateOf(location.search)); // which writes the address back as it was
    }
    arriving = step;
    if (view.view !== "path") showView("path");
    guidedPath.go(step);
  });

  $("open-lab").addEventListener("click", () => {
    showView("lab");
    pushUrl();
    $("lab").scrollIntoView({ block: "start" });
  });
  /** Leave the lab for the path: its entry keeps the lab as the learner left it, the path gets its own. */
  function leaveLab() {
    address.flush();
    fromLab = view.view !== "path";
    showView("path");
  }

  $("open-path").addEventListener("click", () => {
    leaveLab();
    guidedPath.go(progress.currentId ?? BUILD.path[0].id);
  });
  for (const button of document.querySelectorAll(".start-over")) {
    button.addEventListener("click", () => {
      progress.reset();
      // The lab alone (an instructor's embed) starts over from the state its address set.
      if (document.documentElement.classList.contains("lab-only")) return applyState(openedWith);
      leaveLab();
      guidedPath.go(BUILD.path[0].id);
      scrollTo({ top: 0 });
    });
  }
  return { guidedPath, showView };
}
