#!/usr/bin/env python3
"""demo_summary.py - prints what each stage of the demo kept and dropped, and why.
usage: demo_summary.py DEMO_OUT_DIR"""
import json
import os
import sys

out = sys.argv[1]
print()
print("%-9s %6s %6s %8s %7s %10s" % ("stage", "in", "out", "dropped", "failed", "MB in"))
for stage in ("ingest", "filter", "dedup", "tokenize"):
    path = os.path.join(out, stage + ".stats.json")
    if not os.path.exists(path):
        continue
    s = json.load(open(path))
    print("%-9s %6d %6d %8d %7d %10.3f" % (stage, s["in"], s["out"], s["dropped"], s["failed"], s["bytes_in"] / 1e6))
    for reason, n in sorted(s.get("dropped_by_reason", {}).items(), key=lambda kv: -kv[1]):
        print("          dropped %-34s %d" % (reason, n))
    for kind, n in sorted(s.get("failed_by_kind", {}).items(), key=lambda kv: -kv[1]):
        print("          failed  %-34s %d" % (kind, n))
clean = os.path.join(out, "clean.jsonl")
if os.path.exists(clean):
    print()
    print("documents that made it through:")
    for line in open(clean, encoding="utf-8"):
        d = json.loads(line)
        meta = d.get("metadata", {})
        first = d["text"].strip().split("\n")[0][:60]
        print("  %-45s %-3s %5d chars  %s" % (d.get("url", d.get("id", ""))[:45], meta.get("lang", "?"), len(d["text"]), first))
