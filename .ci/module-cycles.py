#!/usr/bin/env python3
"""Import cycles between source files, for the library (src/) and the binary (src/bin/bloomlab/).

A file depends on another when one of its `use` items (outside `#[cfg(test)]` code) names an item
the other file defines. Re-exports (`pub use child::Item` in a parent) are followed to the file
that defines the item, so a parent re-exporting its children is not an edge by itself. Prints the
cycles (strongly connected components with more than one file) and exits 1 when there is one;
`--graph` prints every edge.
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def strip(src):
    """Source without comments, string literals and `#[cfg(test)]` modules."""
    src = re.sub(r"//[^\n]*", "", src)
    src = re.sub(r"/\*.*?\*/", "", src, flags=re.S)
    src = re.sub(r'"(?:\\.|[^"\\])*"', '""', src)
    m = re.search(r"#\[cfg\(test\)\]\s*(pub(\(crate\))?\s+)?mod\s+\w+\s*(;|\{)", src)
    if m:
        src = src[: m.start()]
    return src


def expand(tree):
    """`a::{b, c::{d, e}}` -> ['a::b', 'a::c::d', 'a::c::e']."""
    tree = re.sub(r"\s+", "", tree)
    tree = re.sub(r"\bas\w+", "", tree)  # `as Name` (whitespace already removed: asName)
    out = []

    def walk(prefix, s):
        depth, start, parts = 0, 0, []
        for i, ch in enumerate(s):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                parts.append(s[start:i])
                start = i + 1
        parts.append(s[start:])
        for p in parts:
            if not p:
                continue
            if "{" in p and "}" in p:
                head, rest = p.split("{", 1)
                walk(prefix + head, rest[: rest.rindex("}")])
            else:
                out.append(prefix + p)

    walk("", tree)
    return out


class Crate:
    def __init__(self, root_file):
        self.root_file = root_file
        self.base = root_file.parent
        self.files = {}  # module path tuple -> file
        self._scan(root_file, ())

    def _children(self, file, modpath):
        if file.name in ("lib.rs", "main.rs", "mod.rs"):
            return file.parent
        return file.parent / file.stem

    def _scan(self, file, modpath):
        self.files[modpath] = file
        src = strip(file.read_text())
        for m in re.finditer(r"(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", src):
            name = m.group(1)
            d = self._children(file, modpath)
            for cand in (d / f"{name}.rs", d / name / "mod.rs"):
                if cand.exists():
                    self._scan(cand, modpath + (name,))
                    break

    def module_of(self, file):
        for k, v in self.files.items():
            if v == file:
                return k
        raise KeyError(file)

    def uses(self, file):
        src = strip(file.read_text())
        # `pub use` lines are re-exports, followed by `resolve`, not dependencies of their own.
        for m in re.finditer(r"^\s*(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", src, re.M):
            if m.group(1):
                continue
            for p in expand(m.group(2)):
                yield p.split("::")

    def reexports(self, file):
        """name -> full path segments, for `pub use` items of `file`."""
        src = strip(file.read_text())
        out = {}
        for m in re.finditer(r"^\s*pub(?:\([^)]*\))?\s+use\s+([^;]+);", src, re.M):
            for p in expand(m.group(1)):
                segs = p.split("::")
                out[segs[-1]] = segs
        return out

    def resolve(self, segs, here, seen=None):
        """The file defining the item `segs` used from module `here` (None: outside the crate)."""
        seen = seen or set()
        key = (tuple(segs), here)
        if key in seen:
            return None
        seen.add(key)
        segs = list(segs)
        if not segs:
            return None
        if segs[0] == "crate":
            mod, segs = (), segs[1:]
        elif segs[0] == "self":
            mod, segs = here, segs[1:]
        elif segs[0] == "super":
            mod = here
            while segs and segs[0] == "super":
                mod, segs = mod[:-1], segs[1:]
        elif (here + (segs[0],)) in self.files:
            mod = here
        else:
            return None  # std, an external crate, or a local item
        while segs and (mod + (segs[0],)) in self.files:
            mod, segs = mod + (segs[0],), segs[1:]
        if not segs or segs == ["*"] or segs == ["self"]:
            return self.files[mod]
        item = segs[0]
        rex = self.reexports(self.files[mod])
        if item in rex:
            target = self.resolve(rex[item], mod, seen)
            if target is not None:
                return target
        return self.files[mod]

    def edges(self):
        out = set()
        for modpath, file in self.files.items():
            for segs in self.uses(file):
                t = self.resolve(segs, modpath)
                if t is not None and t != file:
                    out.add((file, t))
        return out


def sccs(nodes, edges):
    adj = {n: [] for n in nodes}
    for a, b in edges:
        adj[a].append(b)
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in adj[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    sys.setrecursionlimit(10000)
    for n in nodes:
        if n not in index:
            visit(n)
    return [c for c in out if len(c) > 1]


def main():
    bad = 0
    for name, root in (("library", ROOT / "src/lib.rs"), ("binary", ROOT / "src/bin/bloomlab/main.rs")):
        crate = Crate(root)
        edges = crate.edges()
        if "--graph" in sys.argv:
            for a, b in sorted(edges):
                print(f"{name}: {a.relative_to(ROOT)} -> {b.relative_to(ROOT)}")
        cycles = sccs(list(crate.files.values()), edges)
        print(f"{name}: {len(crate.files)} files, {len(edges)} import edges, {len(cycles)} cycles")
        for c in cycles:
            bad += 1
            files = sorted(str(f.relative_to(ROOT)) for f in c)
            print("  cycle:", " <-> ".join(files))
            for a, b in sorted(edges):
                if a in c and b in c:
                    print(f"    {a.relative_to(ROOT)} uses {b.relative_to(ROOT)}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
