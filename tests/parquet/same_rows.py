#!/usr/bin/python3
"""same_rows.py OURS.jsonl HYPARQUET.jsonl: prints how many rows differ (then the first few) between
winnow's rows of a Parquet file and hyparquet's (tests/parquet/read_back.mjs), compared as JSON values:
numbers by value (1 and 1.0 are equal; hyparquet's 64-bit integers pass through doubles, so integers
are compared as doubles too), timestamps to the millisecond (hyparquet's are JavaScript Dates, written
with a Z whether or not the column is in UTC), and hyparquet's last line {"_file": ...} left out."""
import json, re, sys

STAMP = re.compile(r'([+-]\d{6}|\d{4})-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z?')

def to_millis(s):
    """An ISO timestamp cut to milliseconds, without its Z."""
    s = s.rstrip('Z')
    if '.' not in s:
        return s + '.000'
    head, frac = s.split('.')
    return head + '.' + (frac + '000')[:3]

def same(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b if isinstance(a, bool) and isinstance(b, bool) else False
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, str) and isinstance(b, str) and STAMP.fullmatch(a) and STAMP.fullmatch(b):
        return to_millis(a) == to_millis(b)
    return a == b

def main():
    ours = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
    theirs = [r for r in (json.loads(l) for l in open(sys.argv[2]) if l.strip()) if '_file' not in r]
    bad = [i for i, (a, b) in enumerate(zip(ours, theirs)) if not same(a, b)]
    print(len(bad) + abs(len(ours) - len(theirs)))
    for i in bad[:3]:
        print('# row %d: winnow %s' % (i, json.dumps(ours[i])[:300]))
        print('#   hyparquet %s' % json.dumps(theirs[i])[:300])
    if len(ours) != len(theirs):
        print('# rows: winnow %d, hyparquet %d' % (len(ours), len(theirs)))


if __name__ == '__main__':
    main()
