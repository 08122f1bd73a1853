// The JavaScript objects Python holds in the lesson's memory snapshot, by name. A snapshot stores
// the heap, not JavaScript: each object Python refers to is written as a name when the snapshot is
// made (buildtools/make_snapshot.mjs) and found again by that name after a restore (snapshot.js).
// micropip's import keeps four: pyodide.loadPackage, the pyodide module itself, and the internal
// API's install and loadBinaryFile (Pyodide 314.0.7; pinned with it, like the snapshot API).

// Where the snapshot's wheels are unpacked (by make_snapshot.mjs, and again after each restore):
// where micropip installs, so the log tools' wheel lands in the same `twoclocks` package folder.
export const SITE_PACKAGES = "/lib/python3.14/site-packages";

/** makeMemorySnapshot's serializer: an object Python holds -> {root, key, kind}. */
export function snapshotSerializer(pyodide) {
  return (object) => {
    if (object === pyodide) return { root: "pyodide", key: null, kind: typeof object };
    for (const [root, owner] of [["pyodide", pyodide], ["api", pyodide._api]]) {
      const key = Object.getOwnPropertyNames(owner).find((name) => owner[name] === object);
      if (key) return { root, key, kind: typeof object };
    }
    throw new Error("the snapshot's Python holds a JavaScript object snapshotrefs.js cannot name");
  };
}

/**
 * loadPyodide's _snapshotDeserializer, and `attach(pyodide)` to call once loadPyodide has resolved.
 * Pyodide asks for each object while it restores, before it hands the new runtime out, so each
 * is a stand-in that forwards to the real one from `attach` on (nothing calls them earlier).
 */
export function snapshotDeserializer() {
  let live = null;
  const target = ({ root, key }) => {
    if (!live) throw new Error("a snapshot object was used before the restore finished");
    const owner = root === "api" ? live._api : live;
    return key === null ? owner : owner[key];
  };
  const deserialize = (ref) => new Proxy(ref.kind === "function" ? function () {} : {}, {
    get: (_, name) => {
      const real = target(ref);
      const value = Reflect.get(real, name);
      return typeof value === "function" ? value.bind(real) : value;
    },
    set: (_, name, value) => Reflect.set(target(ref), name, value),
    has: (_, name) => Reflect.has(target(ref), name),
    apply: (_, self, args) => Reflect.apply(target(ref), self, args),
  });
  return { deserialize, attach: (pyodide) => { live = pyodide; } };
}
