// What a worker does after its boot waits for two things: that no lesson of the site is booting
// (so two lessons on one course page never slow each other's boot with it), and that the page has
// been quiet for QUIET_MS (so it never competes with a drag).
//
// Each boot holds the shared Web Lock BOOT_LOCK; later work asks for it exclusively, which is
// granted once every boot of the origin (every tab and iframe) has ended. Where there are no Web
// Locks (insecure contexts, opaque origins) or the lock never comes, the wait ends after
// LATER_WORK_MAX_MS.
const BOOT_LOCK = "two-clocks-boot";
const LATER_WORK_MAX_MS = 10_000;
// "Quiet": nothing asked for this long. Later work waits for it, so it never competes with a drag
// (the worker's keeping of the wasm, the page's lazily filled parts: lazyparts.js).
export const QUIET_MS = 1000;

/** Hold BOOT_LOCK (shared) until the promise `booting` settles. */
export function holdLockWhileBooting(booting) {
  try {
    navigator.locks?.request(BOOT_LOCK, { mode: "shared" }, () => booting.catch(() => {})).catch(() => {});
  } catch {
    // no Web Locks here: nothing to hold
  }
}

/** Resolves once no lesson of the site is booting (or after LATER_WORK_MAX_MS). */
export function noLessonBooting() {
  const timeout = new Promise((resolve) => setTimeout(resolve, LATER_WORK_MAX_MS));
  try {
    const lock = navigator.locks?.request(BOOT_LOCK, { mode: "exclusive" }, () => {}).catch(() => {});
    return lock ? Promise.race([lock, timeout]) : Promise.resolve();
  } catch {
    return Promise.resolve();
  }
}

/** Resolves once `quietMs` have passed since `lastRequestAt()` (a performance.now() time). */
export async function quietFor(quietMs, lastRequestAt) {
  for (;;) {
    const wait = lastRequestAt() + quietMs - performance.now();
    if (wait <= 0) return;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}
