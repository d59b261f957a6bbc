#!/usr/bin/env python3
"""mutate.py - `make mutate`: do the tests notice a bug?

Each file tests/mutants/*.mut describes one small deliberate bug:

    # one or more comment lines: what the bug is and what should notice it
    file: core/json.c
    tests: build/tests/core_json tests/e2e/cli.sh
    equivalent: (optional) why no test can tell this mutant from the original
    --- find
    <lines that occur exactly once in FILE>
    --- replace
    <what they become>

For every mutant, one at a time, in a scratch copy of the tree (/tmp, made
once: the tracked and untracked-but-not-ignored files, plus build/ so builds
are incremental), the script replaces the snippet, rebuilds build/winnow and
the unit tests the mutant names, runs the named tests through prove, and puts
the file back. A mutant is killed when a test fails (or times out), survives
when all pass, and "does not apply" when its snippet is not found exactly once
(the code changed under it: update or delete the mutant). Mutants marked
equivalent are listed, not run (--all runs them too).

usage: scripts/mutate.py [--all] [--timeout S] [--keep] [MUTANT...]
  MUTANT: a .mut path, its name without the extension, or its number; default all.
Prints one line per mutant, then the score, the survivors and the stale ones;
exits 1 when any mutant survived or did not apply.
"""
import argparse
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
MUTANTS = ROOT / "tests" / "mutants"


class Mutant:
    def __init__(self, path):
        self.path = pathlib.Path(path)
        self.name = self.path.stem
        self.comment, self.file, self.tests, self.equivalent = [], None, [], None
        text = self.path.read_text(encoding="utf-8")
        head, sep, rest = text.partition("\n--- find\n")
        find, sep2, replace = rest.partition("\n--- replace\n")
        if not sep or not sep2:
            raise ValueError(f"{path}: needs a '--- find' and a '--- replace' section")
        self.find, self.replace = find + "\n", replace if replace.endswith("\n") else replace + "\n"
        for line in head.splitlines():
            if line.startswith("#"):
                self.comment.append(line[1:].strip())
            elif line.startswith("file:"):
                self.file = line[5:].strip()
            elif line.startswith("tests:"):
                self.tests = line[6:].split()
            elif line.startswith("equivalent:"):
                self.equivalent = line[11:].strip()
            elif line.strip():
                raise ValueError(f"{path}: unknown header line {line!r}")
        if not self.file or not self.tests:
            raise ValueError(f"{path}: needs file: and tests:")

    def unit_targets(self):
        return [t for t in self.tests if t.startswith("build/tests/")]


def copy_tree(dest):
    """The files git knows or would add, plus build/ (kept up to date by make)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, check=True, capture_output=True).stdout.split(b"\0")
    for rel in listed:
        if not rel:
            continue
        src = ROOT / os.fsdecode(rel)
        if not src.is_file():
            continue
        dst = dest / os.fsdecode(rel)
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)
    for keep in ("build", "bin"):
        if (ROOT / keep).is_dir():
            shutil.copytree(ROOT / keep, dest / keep, symlinks=True, dirs_exist_ok=True)
    # the second Parquet reader the tests compare with (make deps installs it; read only)
    modules = ROOT / "tests" / "parquet" / "node_modules"
    if modules.is_dir():
        (dest / "tests" / "parquet" / "node_modules").symlink_to(modules)


def run(cmd, cwd, env, timeout):
    """Runs cmd in its own process group; on timeout the whole group is killed
    (a mutant that loops forever must not outlive its test run)."""
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
        return p.returncode, out.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        return 124, out.decode("utf-8", "replace") + f"\n(timed out after {timeout} s)"


def build(tree, targets, env):
    return run(["make", "-j2", "--no-print-directory", "build/winnow", *targets], tree, env, 1800)


def test(tree, tests, env, timeout):
    return run(["prove", "--exec", "", *tests], tree, env, timeout)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mutants", nargs="*")
    ap.add_argument("--all", action="store_true", help="run the equivalent mutants too")
    ap.add_argument("--timeout", type=int, default=300, help="seconds for one mutant's tests (default 300)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch tree")
    ap.add_argument("--no-baseline", action="store_true", help="skip the unmutated run of the named tests")
    args = ap.parse_args()

    paths = []
    for m in args.mutants or sorted(str(p) for p in MUTANTS.glob("*.mut")):
        p = pathlib.Path(m)
        if not p.exists():
            p = MUTANTS / (m + ".mut")
        if not p.exists() and m.isdigit():  # a bare number: the mutant of that number
            found = sorted(MUTANTS.glob("%03d-*.mut" % int(m)))
            if len(found) != 1:
                sys.exit("mutate: %d mutants numbered %s" % (len(found), m))
            p = found[0]
        paths.append(p)
    mutants = [Mutant(p) for p in paths]
    if not mutants:
        sys.exit("mutate: no mutants in tests/mutants/")

    tree = pathlib.Path(tempfile.mkdtemp(prefix="winnow-mutate."))
    print(f"mutate: {len(mutants)} mutants, scratch tree {tree}", flush=True)
    copy_tree(tree)
    env = dict(os.environ)
    env.update(WINNOW=str(tree / "build" / "winnow"), BUILD=str(tree / "build"),
               SHARED=str((ROOT / ".." / "shared" / "data").resolve()))

    to_run = [m for m in mutants if args.all or not m.equivalent]
    if not args.no_baseline:
        units = sorted({t for m in to_run for t in m.unit_targets()})
        tests = sorted({t for m in to_run for t in m.tests})
        rc, out = build(tree, units, env)
        if rc:
            print(out[-3000:])
            sys.exit("mutate: the unmutated tree does not build")
        rc, out = test(tree, tests, env, args.timeout * 4)
        if rc:
            print(out[-5000:])
            sys.exit("mutate: the named tests fail on the unmutated tree; fix that first")
        print("mutate: the unmutated tree passes the named tests", flush=True)

    killed, survived, stale, broken, equivalent = [], [], [], [], []
    for m in mutants:
        if m.equivalent and not args.all:
            equivalent.append(m)
            print(f"{m.name}: equivalent, not run ({m.equivalent})", flush=True)
            continue
        target = tree / m.file
        original = target.read_text(encoding="utf-8") if target.exists() else None
        count = original.count(m.find) if original is not None else 0
        if count != 1:
            stale.append(m)
            why = "file missing" if original is None else f"snippet found {count} times, not once"
            print(f"{m.name}: DOES NOT APPLY to {m.file} ({why}): update or delete the mutant", flush=True)
            continue
        started = time.time()
        target.write_text(original.replace(m.find, m.replace), encoding="utf-8")
        try:
            rc, out = build(tree, m.unit_targets(), env)
            if rc:
                broken.append(m)
                print(f"{m.name}: DOES NOT BUILD (fix the mutant)\n" + out[-1500:], flush=True)
                continue
            rc, out = test(tree, m.tests, env, args.timeout)
        finally:
            target.write_text(original, encoding="utf-8")
        seconds = time.time() - started
        if rc:
            failed = sorted({line.split()[0] for line in out.splitlines()
                             if line.split() and line.split()[0] in m.tests and "ok" not in line.split()[-1:]})
            killed.append(m)
            print(f"{m.name}: killed ({', '.join(failed) or 'tests failed'}; {seconds:.0f} s)", flush=True)
        else:
            survived.append(m)
            print(f"{m.name}: SURVIVED ({seconds:.0f} s)", flush=True)

    # leave the scratch tree's objects matching the restored sources
    build(tree, sorted({t for m in to_run for t in m.unit_targets()}), env)
    ran = len(killed) + len(survived)
    score = 100.0 * len(killed) / ran if ran else 0.0
    print(f"\nmutation score: {len(killed)}/{ran} killed = {score:.1f}%"
          f" ({len(survived)} survived, {len(equivalent)} equivalent not run,"
          f" {len(stale)} do not apply, {len(broken)} do not build)")
    for m in survived:
        print(f"  survivor {m.name}: {m.file}: {' '.join(m.comment)}")
    for m in stale:
        print(f"  does not apply {m.name}: {m.file}")
    for m in broken:
        print(f"  does not build {m.name}: {m.file}")
    if not args.keep:
        shutil.rmtree(tree, ignore_errors=True)
    else:
        print(f"scratch tree kept: {tree}")
    sys.exit(1 if survived or stale or broken else 0)


if __name__ == "__main__":
    main()
