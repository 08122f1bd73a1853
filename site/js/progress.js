// The learner's progress on the guided path: which steps are done, each prediction and whether it
// was right, and the step last shown. Kept per lesson address in local storage, or in memory where
// storage is blocked (a sandboxed frame, a strict privacy setting): progress then lasts the visit.
// A course site (scorm.js) keeps a copy too: `lmsText()` writes it, `merge()` takes it back.

const VERSION = 1;
const LESSON = "two-clocks"; // marks the text as this lesson's own, e.g. in an LMS's suspend_data

function openStore(key) {
  if (key === null) return memoryStore();
  try {
    const storage = window.localStorage;
    storage.setItem(`${key}:probe`, "1");
    storage.removeItem(`${key}:probe`);
    return {
      key,
      read: () => storage.getItem(key),
      write: (text) => { try { storage.setItem(key, text); } catch { /* full: keep it in memory */ } },
      persistent: true,
    };
  } catch {
    return memoryStore();
  }
}

function memoryStore() {
  let text = null;
  return { read: () => text, write: (t) => { text = t; }, persistent: false };
}

// `attempt` counts Start over: a later attempt replaces an earlier one's progress, while two copies
// of one attempt are merged (see merge()). `unsaved`: a course site refused this progress.
const empty = (attempt = 0) => ({ version: VERSION, lesson: LESSON, attempt, done: [], predictions: {}, current: null });

/** The progress `text` holds, if it is this lesson's (a version it reads), else null. */
export function parseProgress(text) {
  try {
    const saved = JSON.parse(text || "null");
    if (saved?.version !== VERSION || (saved.lesson ?? LESSON) !== LESSON) return null;
    if (!Array.isArray(saved.done) || typeof saved.predictions !== "object" || !saved.predictions) return null;
    return { ...empty(Number.isInteger(saved.attempt) ? saved.attempt : 0), ...saved, lesson: LESSON };
  } catch {
    return null; // unreadable: not ours
  }
}

/** Progress `a` and `b` as one, keeping the furthest: the later attempt wins whole; within one
 * attempt, every step done and every prediction in either (one with its choice before one without),
 * and the current step further along `order` (the path's step ids). */
export function mergeProgress(a, b, order) {
  if (a.attempt !== b.attempt) return structuredClone(a.attempt > b.attempt ? a : b);
  const done = order.filter((id) => a.done.includes(id) || b.done.includes(id));
  const predictions = { ...b.predictions };
  for (const [id, p] of Object.entries(a.predictions)) {
    if (!predictions[id] || (p.choice !== undefined && predictions[id].choice === undefined)) predictions[id] = p;
  }
  const rank = (id) => order.indexOf(id);
  const current = rank(a.current) >= rank(b.current) ? a.current : b.current;
  return { ...empty(a.attempt), done, predictions: structuredClone(predictions), current, unsaved: a.unsaved || b.unsaved };
}

export class Progress {
  /** `key`: the storage key, one per lesson address (e.g. "twoclocks:path:/course/week3/"). */
  constructor(key) {
    this.key = key;
    this.store = openStore(key);
    this.data = parseProgress(this.store.read()) ?? empty();
  }

  /** Keep the progress under `key` from now on (null: in memory only), starting from what is kept
   * there if `take(kept)` says so (else afresh). A course site's learner gets their own key. */
  useStore(key, take = () => true) {
    this.store = openStore(key);
    const kept = parseProgress(this.store.read());
    this.data = kept && take(kept) ? kept : empty();
    this.store.write(JSON.stringify(this.data)); // not save(): a copy not taken is not merged in either
  }

  /** The key of a course site learner's copy (`who`: the SCORM version and learner id); the last
   * one used is remembered, for a lesson whose LMS session will not start again (lastLmsStore). */
  lmsStore(who) {
    const key = `${this.key}:lms:${who}`;
    openStore(`${this.key}:lms-last`).write(key);
    return key;
  }

  lastLmsStore() {
    return openStore(`${this.key}:lms-last`).read();
  }

  /** Take in `other` (parsed progress, e.g. a course site's copy), keeping the furthest of both. */
  merge(other, order) {
    this.data = mergeProgress(this.data, other, order);
    this.save();
  }

  /** The progress as compact text (JSON): what `parseProgress()` reads. */
  text() {
    const { unsaved, ...data } = this.data;
    return JSON.stringify(data);
  }

  /** The progress as text of at most `limit` characters (a course site's suspend_data limit) and
   * whether all of it fits. What does not fit is left out in this order: the choices made (their
   * right/wrong stays), then the predictions, then the steps done; the place always stays. The full
   * progress stays in this browser, and merge() takes both back together. */
  lmsText(limit) {
    const { unsaved, ...data } = this.data;
    const rightOnly = Object.fromEntries(Object.entries(data.predictions).map(([id, p]) => [id, { correct: p.correct }]));
    const forms = [data, { ...data, predictions: rightOnly }, { ...data, predictions: {} }, { ...data, predictions: {}, done: [] }];
    for (const [i, form] of forms.entries()) {
      const text = JSON.stringify(form);
      if (text.length <= limit) return { text, whole: i === 0 };
    }
    return { text: null, whole: false };
  }

  get unsaved() {
    return Boolean(this.data.unsaved);
  }

  /** Mark whether a course site holds this progress (false) or refused it (true). */
  setUnsaved(unsaved) {
    if (this.unsaved === unsaved) return;
    if (unsaved) this.data.unsaved = true;
    else delete this.data.unsaved;
    this.save();
  }

  /** Keep the progress, with what another tab of the lesson kept meanwhile under the same key: its
   * steps done and answers are taken in (this tab's place stays), so no tab writes an emptier
   * progress over a fuller one; a later attempt (Start over) replaces an earlier one. */
  save() {
    const stored = parseProgress(this.store.read());
    if (stored && stored.attempt > this.data.attempt) this.data = stored;
    else if (stored && stored.attempt === this.data.attempt) this.takeIn(stored);
    this.store.write(JSON.stringify(this.data));
  }

  /** The steps done and answers of `stored` (the same attempt) added to this tab's. */
  takeIn(stored) {
    this.data.done = [...new Set([...this.data.done, ...stored.done])];
    this.data.predictions = { ...stored.predictions, ...this.data.predictions };
  }

  /** Start over: a new attempt, which replaces this one wherever it was kept. */
  reset() {
    const unsaved = this.unsaved;
    this.data = empty(this.data.attempt + 1);
    if (unsaved) this.data.unsaved = true;
    this.save();
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
