// Precompiled bytecode for the worker's boot (see build.py, boot_bytecode): `import micropip`
// would otherwise compile ~45 modules from source, most of its cost. A finder placed first on
// sys.meta_path gives each listed module the code object the build compiled with this same Pyodide,
// after checking that the module's source still has the hash it was compiled from; any other
// module, or a changed source, is imported the usual way. The finder is removed after the boot.

const FINDER = `
import importlib.util, marshal, sys, zipfile
from importlib.machinery import PathFinder


class PrecompiledLoader:
    """Runs a build-time code object if the real loader's source still matches it."""

    def __init__(self, loader, data):
        self.loader, self.data = loader, data

    def __getattr__(self, name):  # resources, is_package, get_source...: the real loader's
        return getattr(self.loader, name)

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        name = module.__name__
        source = self.loader.get_source(name)
        if source is not None and importlib.util.source_hash(source.encode()) == self.data[:8]:
            code = marshal.loads(self.data[8:])
        else:
            code = self.loader.get_code(name)
        exec(code, module.__dict__)


class PrecompiledFinder:
    def __init__(self, path):
        self.archive = zipfile.ZipFile(path)
        self.names = set(self.archive.namelist())

    def find_spec(self, name, path=None, target=None):
        if name not in self.names:
            return None
        spec = PathFinder.find_spec(name, path)
        if spec is not None and spec.loader is not None:
            spec.loader = PrecompiledLoader(spec.loader, self.archive.read(name))
        return spec


finder = PrecompiledFinder(PATH)
sys.meta_path.insert(0, finder)
`;

/**
 * Put the precompiled modules in `bytes` (the zip build.py made) in front of the import system;
 * returns a function that takes them out again.
 */
export function usePrecompiled(pyodide, bytes) {
  const path = "/tmp/twoclocks-boot-bytecode.zip";
  pyodide.FS.writeFile(path, bytes);
  const scope = pyodide.toPy({ PATH: path });
  pyodide.runPython(FINDER, { globals: scope });
  return () => {
    pyodide.runPython("import sys; sys.meta_path.remove(finder); finder.archive.close()", { globals: scope });
    scope.destroy();
  };
}
