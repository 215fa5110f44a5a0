# Wrappers for the PGO benchmark's python3.11 build: one .c file per object that `make python` links,
# which #defines the -D flags of that object's compile line in make.log and #includes its source,
# so that build() can compile all of them with one set of flags. Writes CFG/w/list (the wrappers)
# and CFG/w/incs (the union of the -I flags, absolute). Usage: py-wrappers.py CFG SRCDIR
import os, shlex, sys
c, d = sys.argv[1], sys.argv[2]
lines = {}
for line in open(os.path.join(c, "make.log")).read().replace("\\\n", " ").splitlines():
    if not line.startswith("gcc ") or " -c " not in line:
        continue
    t = shlex.split(line)
    if "-o" in t:
        lines[t[t.index("-o") + 1]] = t
out, incs = [], []
for o in open(os.path.join(c, "w", "objs")).read().split():
    t = lines[o]
    src = [a for a in t if a.endswith(".c")][-1]
    src = src if os.path.isabs(src) else os.path.join(c, src)
    w = os.path.join(c, "w", o[:-2].replace("/", "_") + ".c")
    with open(w, "w") as f:
        for a in t:
            if a.startswith("-D"):
                k, _, v = a[2:].partition("=")
                f.write("#define %s %s\n" % (k, v or "1"))
        f.write('#include "%s"\n' % src)
    out.append(w)
    for a in t:
        if a.startswith("-I"):
            i = a[2:] if os.path.isabs(a[2:]) else os.path.normpath(os.path.join(c, a[2:]))
            if i not in incs:
                incs.append(i)
open(os.path.join(c, "w", "incs"), "w").write(" ".join("-I" + i for i in incs) + "\n")
open(os.path.join(c, "w", "list"), "w").write("\n".join(out) + "\n")
