#!/usr/bin/env python3
"""thread_cpu.py CMD ARGS... - runs CMD and says where its CPU went, by thread name.

Polls /proc/PID/task/*/stat every 20 ms while CMD runs and keeps each thread's
last user + system time (threads that end between two polls lose at most 20 ms).
winnow names its threads (ingest-reader, ingest-worker, gzip-members; the main
thread is winnow), so this shows whether the readers were busy all the time
(the bound) or waited. Prints, on stderr, one line per name: threads, CPU
seconds, the busiest thread's CPU seconds and its share of the wall time.
CMD's stdout and stderr pass through."""
import os
import subprocess
import sys
import time

POLL_SECONDS = 0.02


def sample(pid, seen):
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                text = f.read()
        except OSError:
            continue
        name = text[text.index("(") + 1:text.rindex(")")]
        fields = text[text.rindex(")") + 2:].split()
        ticks = int(fields[11]) + int(fields[12])  # utime, stime
        seen[tid] = (name, ticks)


def main():
    hz = os.sysconf("SC_CLK_TCK")
    start = time.monotonic()
    child = subprocess.Popen(sys.argv[1:])
    seen = {}
    while child.poll() is None:
        sample(child.pid, seen)
        time.sleep(POLL_SECONDS)
    wall = time.monotonic() - start
    by_name = {}
    for name, ticks in seen.values():
        by_name.setdefault(name, []).append(ticks / hz)
    for name, cpu in sorted(by_name.items()):
        print(f"  threads {name:14s} {len(cpu):4d}  CPU s {sum(cpu):7.2f}  busiest {max(cpu):6.2f}"
              f" ({100 * max(cpu) / wall:3.0f}% of {wall:.2f} s wall)", file=sys.stderr)
    sys.exit(child.returncode)


if __name__ == "__main__":
    main()
