// The learner's progress on the guided path: which steps are done, each prediction and whether it
// was right, and the step last shown. Kept per lesson address in local storage, or in memory where
// storage is blocked (a sandboxed frame, a strict privacy setting): progress then lasts the visit.

const VERSION = 1;

function openStore(key) {
  try {
    const storage = window.localStorage;
    storage.setItem(`${key}:probe`, "1");
    storage.removeItem(`${key}:probe`);
    return {
      read: () => storage.getItem(key),
      write: (text) => { try { storage.setItem(key, text); } catch { /* full: keep it in memory */ } },
      remove: () => storage.removeItem(key),
      persistent: true,
    };
  } catch {
    let text = null;
    return { read: () => text, write: (t) => { text = t; }, remove: () => { text = null; }, persistent: false };
  }
}

const empty = () => ({ version: VERSION, done: [], predictions: {}, current: null });

export class Progress {
  /** `key`: the storage key, one per lesson address (e.g. "twoclocks:path:/course/week3/"). */
  constructor(key) {
    this.store = openStore(key);
    this.data = empty();
    this.restore(this.store.read());
  }

  /** Take the progress `text` holds (what `text()` gave, e.g. kept by a course site); returns
   * whether it could be read (otherwise the progress is unchanged). */
  restore(text) {
    try {
      const saved = JSON.parse(text ?? "null");
      if (saved?.version !== VERSION || !Array.isArray(saved.done) || !saved.predictions) return false;
      this.data = saved;
      this.save();
      return true;
    } catch {
      return false; // unreadable: keep what there is
    }
  }

  /** The progress as compact text (JSON): what `restore()` reads. */
  text() {
    return JSON.stringify(this.data);
  }

  save() {
    this.store.write(this.text());
  }

  reset() {
    this.data = empty();
    this.store.remove();
  }

  get currentId() {
    return this.data.current;
  }

  setCurrent(id) {
    this.data.current = id;
    this.save();
  }

  prediction(id) {
    return this.data.predictions[id] ?? null;
  }

  isDone(id) {
    return this.data.done.includes(id);
  }

  markDone(id) {
    if (!this.isDone(id)) this.data.done.push(id);
    this.save();
  }

  predict(id, choice, correct) {
    this.data.predictions[id] = { choice, correct };
    this.markDone(id);
  }

  /** {done, predictions, complete, score, current}: `score` is the share of the path's predictions
   * the learner got right, 0-100 (null before the first); `complete` once every step is done. */
  summary(steps) {
    const order = steps.map((s) => s.id);
    const done = order.filter((id) => this.isDone(id));
    const predictions = structuredClone(this.data.predictions);
    const asked = steps.filter((s) => s.choices.length).length;
    const right = Object.values(predictions).filter((p) => p.correct).length;
    const score = Object.keys(predictions).length && asked ? Math.round((100 * right) / asked) : null;
    return { done, predictions, complete: done.length === order.length, score, current: this.data.current };
  }
}

/** The hosts' progress listeners (TwoClocks.lesson.onProgress): each hears every change of step or
 * answer; one host's broken listener never stops the path, nor the other listeners. */
export class ProgressListeners {
  constructor() {
    this.listeners = [];
  }

  add(listener) {
    if (typeof listener !== "function") throw new TypeError("TwoClocks.lesson.onProgress expects a function");
    this.listeners.push(listener);
  }

  tell(progress) {
    for (const listener of this.listeners) {
      try {
        listener(progress);
      } catch (error) {
        console.error("A TwoClocks.lesson.onProgress listener failed:", error);
      }
    }
  }
}
