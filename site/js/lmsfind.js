// Is there a course site (an LMS) above the lesson? Its SCORM API is looked for the standard way, so
// cheaply that every page does it: the code that talks to an LMS (scorm.js, lmsapi.js) is loaded only
// where one is found. The search is ADL's sample findAPI, the API discovery the SCORM 1.2 and 2004
// Run-Time Environment documents describe.

// ADL's sample findAPI gives up after this many parents: deeper nesting than any LMS player uses.
const MAX_PARENTS = 7;
const OBJECT_NAMES = { "1.2": "API", "2004": "API_1484_11" };

/** The object called `name` in the first window up the chain from `win` that has one, or null.
 * A window of another origin is not readable (SecurityError): the search stops there. */
function findInChain(win, name) {
  try {
    for (let hops = 0; win; hops++) {
      if (win[name]) return win[name];
      if (hops >= MAX_PARENTS || win.parent === win) return null;
      win = win.parent;
    }
  } catch { /* another origin's window: no LMS of ours above it */ }
  return null;
}

/** The LMS's API, or null: each name up the parents, then up the opener's (a popup player), the
 * package's own version first (`prefer`: "1.2" or "2004", from the page's data-scorm). Returns
 * {api, version}: the version its functions speak (an `API` object with 2004's names speaks 2004). */
export function findApi(win = window, prefer = document.documentElement.dataset.scorm) {
  const order = prefer === "2004" ? ["2004", "1.2"] : ["1.2", "2004"];
  for (const version of order) {
    const name = OBJECT_NAMES[version];
    const api = findInChain(win, name) ?? (win.opener ? findInChain(win.opener, name) : null);
    if (!api) continue;
    const speaks2004 = typeof api.Initialize === "function" && typeof api.LMSInitialize !== "function";
    return { api, version: speaks2004 ? "2004" : version };
  }
  return null;
}
