#!/usr/bin/env python3
"""json_doc_verdicts.py - what Python's json module makes of document lines:
an independent reference for core/json.c's scanner (RFC 8259).

    python3 tests/ref/json_doc_verdicts.py < lines.jsonl > verdicts.txt

For each input line (bytes, without its newline) writes one line: "bad" when
it is not one JSON object in strict UTF-8, else "ok" and the hex of the UTF-8
of its top-level "text" member (the last one; names compared after decoding
their escapes, as json.loads does), or "ok -" when it has no string "text".
Python accepts NaN, Infinity and -Infinity, which RFC 8259 does not: they are
refused here. A lone surrogate escape is written as U+FFFD (winnow's choice;
json.loads keeps it in the str, which has no UTF-8)."""
import json
import sys


def refuse_constant(name):
    raise ValueError(f"{name} is not JSON (RFC 8259)")


def verdict(raw: bytes) -> str:
    try:
        line = raw.decode("utf-8")
        if not line.lstrip(" \t\r\n").startswith("{"):
            return "bad"
        # objects as lists of (name, value) in order: the last "text" counts
        members = json.loads(line, object_pairs_hook=list, parse_constant=refuse_constant)
    except (ValueError, RecursionError):
        return "bad"
    last = None
    for key, value in members:
        if key == "text":
            last = value
    if not isinstance(last, str):
        return "ok -"
    utf8 = last.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace").encode("utf-8")
    return "ok " + (utf8.hex() or "=")


for raw in sys.stdin.buffer.read().split(b"\n")[:-1]:
    print(verdict(raw))
