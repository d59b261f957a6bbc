#!/bin/sh
# dedup_modes.sh - the streaming mode (any -j) and the staged mode
# (signatures -> buckets -> apply, any --world-size, any --partitions, any -j)
# keep exactly the same documents and write the same rejects, on real
# documents (Dolma CC with ids, C4 and DCLM without) made hard on purpose:
# bad lines (bad JSON, no text) before originals, texts whose normal form is
# empty, numeric and escaped ids, four copies of one text over three files,
# edited copies (near duplicates) in later files. Both are also held to the
# rule computed here in Python from the raw texts (docs/dedup.md: the first
# copy is kept, every later one goes naming it). Also: --mark without
# --rejects marks what the drop mode drops (valid JSON, same dup_of, counts); apply -z writes NAME.zst;
# --verify's dup_of is the earliest holder that passed the check, checked on
# a document near two earlier ones whose exact Jaccard (Python) is 0.9+ and
# under 0.3.
. tests/lib.sh
J=$SHARED/jsonl
CC=$J/dolma/tests/data/formats/gz/CC-MAIN-20190717121559-20190717143559-00140.jsonl.gz
C4=$J/olmo/test_fixtures/c4-sample.01.json.gz
DCLM=$J/dclm/data/agreement_data.jsonl
require_file "$CC" "$C4" "$DCLM"
mkdir -p "$TMP/in"

# f1: CC 0-299 with a bad line and a line without text near its start, empty
# normal forms, odd ids; f2 (gzip): CC 300-696 with copies of f1's texts and
# edited copies; f3: C4 and DCLM (no ids) with more copies, an empty text
# first in its file, a bad line.
python3 - "$CC" "$C4" "$DCLM" "$TMP/in" > "$TMP/ref.json" <<'EOF'
import gzip, json, sys
cc_path, c4_path, dclm_path, out = sys.argv[1:]
cc = [json.loads(l) for l in gzip.open(cc_path, "rt", encoding="utf-8")]
c4 = [json.loads(l) for l in gzip.open(c4_path, "rt", encoding="utf-8")]
dclm = [json.loads(l) for l in open(dclm_path, encoding="utf-8")][:150]
long_docs = [d for d in cc[10:300] if len(d["text"].split()) > 300]
x, y, z = long_docs[0], long_docs[1], long_docs[3]     # x: four copies; y, z: edited copies (long_docs[2] is near y)
def edited(d):
    w = d["text"].split(" ")
    return " ".join(w[: len(w) // 2] + ["zqxj"] + w[len(w) // 2:])
files = {"f1.jsonl": [], "f2.jsonl": [], "f3.jsonl": []}
f1, f2, f3 = files["f1.jsonl"], files["f2.jsonl"], files["f3.jsonl"]
f1 += [json.dumps(d) for d in cc[:3]]
f1.append('{"id": "broken", "text": "no end')                         # bad JSON
f1.append(json.dumps({"id": "notext", "title": "no text field"}))      # no text
f1 += [json.dumps(d) for d in cc[3:100]]
f1.append(json.dumps({"id": 12345, "text": "!!! --- ???"}))           # empty normal form, numeric id
f1.append(json.dumps({"id": 777, "text": "A numbered document: " + cc[7]["text"][:60]}))
f1.append(json.dumps({"id": "x-copy-1", "text": x["text"]}))
f1 += [json.dumps(d) for d in cc[100:200]]
f1.append(json.dumps({"id": "empty-2", "text": ""}))
f1.append(json.dumps({"id": "q\"u\u00e9\\te", "text": "A text of its own, found nowhere else: " + cc[5]["text"][:40]}))
f1 += [json.dumps(d) for d in cc[200:300]]
f2 += [json.dumps(d) for d in cc[300:450]]
f2.append(json.dumps({"id": "x-copy-2", "text": x["text"]}))
f2.append(json.dumps({"id": "y-edited", "text": edited(y)}))
f2.append(json.dumps({"id": "num-copy", "text": "A numbered document: " + cc[7]["text"][:60]}))
f2.append(json.dumps({"id": "quote-copy", "text": "A text of its own, found nowhere else: " + cc[5]["text"][:40]}))
f2 += [json.dumps(d) for d in cc[450:]]
f2.append(json.dumps({"id": "empty-3", "text": "\u00a0\u200b  \t"}))
f3.append(json.dumps({"text": ""}))
f3 += [json.dumps(d) for d in c4]
f3.append("not json at all")
f3.append(json.dumps({"id": "x-copy-3", "text": x["text"]}))
f3 += [json.dumps({"text": d["text"]}) for d in dclm]
f3.append(json.dumps({"id": "z-edited", "text": edited(z)}))
f3 += [json.dumps({"text": d["text"]}) for d in dclm[:20]]       # exact copies without ids
for name, lines in files.items():
    opener = gzip.open if name == "f2.jsonl" else open
    with opener(f"{out}/{name}" + (".gz" if name == "f2.jsonl" else ""), "wt", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
print(json.dumps({"x": x["id"], "y": y["id"], "z": z["id"],
                  "lines": sum(len(v) for v in files.values())}))
EOF
FILES="$TMP/in/f1.jsonl $TMP/in/f2.jsonl.gz $TMP/in/f3.jsonl"
OUTS="f1.jsonl f2.jsonl f3.jsonl"

for j in 1 2 3; do
    "$WINNOW" dedup -q -j $j $FILES -o "$TMP/stream$j.jsonl" --rejects "$TMP/stream$j.rej" --stats "$TMP/stream$j.st" 2> /dev/null
done
ok "streaming: -j1, -j2 and -j3 keep the same documents" sh -c "cmp '$TMP/stream1.jsonl' '$TMP/stream2.jsonl' && cmp '$TMP/stream1.jsonl' '$TMP/stream3.jsonl'"
ok "streaming: -j1, -j2 and -j3 write the same rejects" sh -c "cmp '$TMP/stream1.rej' '$TMP/stream2.rej' && cmp '$TMP/stream1.rej' '$TMP/stream3.rej'"

# The rule from the raw texts: every text seen before goes as exact_dup
# naming the first copy's id ("" without a string id); the texts that
# normalise to nothing likewise; the edited copies go as near_dup naming
# their original; bad lines are failed; nothing else of the injected goes.
points 11 "streaming against the rule" python3 - "$FILES" "$TMP/stream1.jsonl" "$TMP/stream1.rej" "$TMP/stream1.st" "$TMP/ref.json" <<'EOF'
import gzip, json, sys
paths, out_path, rej_path, st_path, ref_path = sys.argv[1:]
ref = json.load(open(ref_path))
docs, bad = [], 0
for p in paths.split():
    for line in (gzip.open if p.endswith(".gz") else open)(p, "rt", encoding="utf-8"):
        try:
            d = json.loads(line)
        except ValueError:
            bad += 1
            continue
        if "text" not in d:
            bad += 1
            continue
        docs.append(d)
def ident(d):
    return d["id"] if isinstance(d.get("id"), str) else ""
def check(cond, name):
    print(("ok - " if cond else "not ok - ") + name)
def same(a, b):
    return a["text"] == b["text"] and a.get("id") == b.get("id")
# each document's fate: kept and rejected lines are both in input order
kept = [json.loads(l) for l in open(out_path, encoding="utf-8")]
rej = [json.loads(l) for l in open(rej_path, encoding="utf-8")]
fate, k, r = [], 0, 0
for d in docs:
    if k < len(kept) and same(kept[k], d):
        fate.append(None)
        k += 1
    elif r < len(rej) and same(rej[r], d):
        fate.append({"reason": rej[r]["reject"]["reason"], "dup_of": rej[r]["reject"]["dup_of"]})
        r += 1
    else:
        fate.append("lost")
check(k == len(kept) and r == len(rej) and "lost" not in fate,
      "every document is kept or rejected, each in input order")
def blank(d):
    return not d["text"].strip(" \t\u00a0\u200b!-?")
first, want = {}, {}
for i, d in enumerate(docs):
    key = "" if blank(d) else d["text"]
    if key in first:
        want[i] = {"reason": "exact_dup", "dup_of": first[key]}
    else:
        first[key] = ident(d)
def fates(pred):
    return [(fate[i], want.get(i)) for i, d in enumerate(docs) if pred(d)]
xs = fates(lambda d: d.get("id", "").startswith("x-copy") if isinstance(d.get("id"), str) else False)
check(len(xs) == 3 and all(f == {"reason": "exact_dup", "dup_of": ref["x"]} for f, w in xs),
      "the three later copies of one text (over three files) each name its first copy")
es = [(fate[i], ident(d)) for i, d in enumerate(docs) if blank(d)]
check(len(es) > 4 and es[0][0] is None and all(f == {"reason": "exact_dup", "dup_of": es[0][1]} for f, _ in es[1:])
      and 12345 in [d.get("id") for d in docs if blank(d)],
      "the %d texts that normalise to nothing (\"\", \"!!! --- ???\", NBSP and ZWSP): the first kept, the others exact_dup naming it" % len(es))
check(fates(lambda d: d.get("id") == "num-copy") == [({"reason": "exact_dup", "dup_of": ""},) * 2],
      "the copy of a document with a numeric id names \"\"")
check(fates(lambda d: d.get("id") == "quote-copy") == [({"reason": "exact_dup", "dup_of": "q\"u\u00e9\\te"},) * 2],
      "dup_of gives back an id with escapes exactly")
check(len(want) > 60 and all(fate[i] == w for i, w in want.items()),
      "every one of the %d raw repeats goes as exact_dup naming its first copy" % len(want))
near = [fate[i] for i, d in enumerate(docs) if d.get("id") in ("y-edited", "z-edited")]
check(near == [{"reason": "near_dup", "dup_of": ref["y"]}, {"reason": "near_dup", "dup_of": ref["z"]}],
      "the edited copies go as near_dup naming their originals")
check(all(f is None or f["reason"] in ("exact_dup", "near_dup") for f in fate), "only exact_dup and near_dup rejects")
check(sum(f is not None and f["reason"] == "near_dup" for f in fate) >= 4, "near duplicates of the real data go too")
st = json.load(open(st_path))
check(st["failed"] == bad == 3, "the 3 bad lines are failed")
check(st["in"] == ref["lines"] == st["out"] + st["dropped"] + st["failed"] and st["out"] == len(kept) and st["dropped"] == len(rej),
      "in (%d lines) == out + dropped + failed" % ref["lines"])
EOF

# staged_run NAME PARTITIONS SIG_RANKS BUCKET_RANKS APPLY_RANKS -jN [apply options]
staged_run() {
    name=$1 parts=$2 ns=$3 nb=$4 na=$5 jobs=$6; shift 6
    W=$TMP/work-$name
    r=0; while [ $r -lt "$ns" ]; do "$WINNOW" dedup signatures -q $jobs --work "$W" --partitions "$parts" --rank $r --world-size "$ns" $FILES 2> /dev/null || echo fail >> "$TMP/err-$name"; r=$((r + 1)); done
    r=0; while [ $r -lt "$nb" ]; do "$WINNOW" dedup buckets -q --work "$W" --rank $r --world-size "$nb" || echo fail >> "$TMP/err-$name"; r=$((r + 1)); done
    r=0; while [ $r -lt "$na" ]; do "$WINNOW" dedup apply -q $jobs --work "$W" -o "$TMP/out-$name" --rejects "$TMP/rej-$name" --stats "$TMP/st-$name" --rank $r --world-size "$na" "$@" 2> /dev/null || echo fail >> "$TMP/err-$name"; r=$((r + 1)); done
    ok "staged $name: every rank of every step exits 0" test ! -e "$TMP/err-$name"
}
for run in "a 1 1 1 1 -j1" "b 7 3 2 4 -j2" "c 16 2 5 3 -j3"; do
    set -- $run
    staged_run "$@"
    for f in $OUTS; do cat "$TMP/out-$1/$f"; done > "$TMP/staged-$1.jsonl"
    for f in $OUTS; do cat "$TMP/rej-$1/$f.rejects.jsonl"; done > "$TMP/staged-$1.rej"
    ok "staged $1 (partitions $2, ranks $3/$4/$5, $6): the streaming run's output, byte for byte" cmp "$TMP/staged-$1.jsonl" "$TMP/stream1.jsonl"
    ok "staged $1: the streaming run's rejects (reasons, dup_of)" cmp "$TMP/staged-$1.rej" "$TMP/stream1.rej"
done
is "$(python3 -c "
import json, sys
s = [json.load(open('$TMP/st-b/%s.stats.json' % f)) for f in '$OUTS'.split()]
print(*(sum(x[k] for x in s) for k in ('in', 'out', 'dropped', 'failed')))")" \
   "$(python3 -c "import json; s = json.load(open('$TMP/stream1.st')); print(s['in'], s['out'], s['dropped'], s['failed'])")" \
   "staged apply's stats summed over the files: the streaming run's in, out, dropped, failed"

# apply -z: NAME.zst, the same lines once decompressed
staged_run z 5 1 1 2 -j2 -z
ok "apply -z writes each output as NAME.zst, the same lines as without -z" sh -c "
    for f in $OUTS; do zstd -dcq '$TMP/out-z/'\$f.zst | cmp - '$TMP/out-b/'\$f || exit 1; done"

# --mark (without --rejects): the drop mode's duplicates, with its reasons and dup_of
"$WINNOW" dedup -q -j2 --mark $FILES -o "$TMP/mark.jsonl" --stats "$TMP/mark.st" 2> /dev/null
is "$(python3 - "$TMP/mark.jsonl" "$TMP/stream1.rej" <<'EOF'
import json, sys
marked = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
marked = [(d["text"], d["metadata"]["dup_reason"], d["metadata"]["dup_of"]) for d in marked if "dup_reason" in d.get("metadata", {})]
rej = [json.loads(l) for l in open(sys.argv[2], encoding="utf-8")]
print(len(marked), marked == [(d["text"], d["reject"]["reason"], d["reject"]["dup_of"]) for d in rej])
EOF
)" "$(wc -l < "$TMP/stream1.rej" | tr -d ' ') True" "--mark without --rejects: the dropped documents marked, each with the drop mode's dup_reason and dup_of"
is "$(python3 - "$TMP/mark.st" "$TMP/stream1.st" <<'EOF'
import json, sys
m, d = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
print(m["out"] == d["in"] - d["failed"], m["extra"]["marked_exact_dup"] == d["dropped_by_reason"]["exact_dup"],
      m["extra"]["marked_near_dup"] == d["dropped_by_reason"]["near_dup"],
      m["extra"]["indexed_docs"] == d["extra"]["indexed_docs"] == d["in"] - d["failed"])
EOF
)" "True True True True" "--mark's stats: every good document out, marked_exact_dup and marked_near_dup the drop mode's counts, indexed_docs = in - failed"

# --verify: C is an edited copy of B (exact Jaccard of word 5-grams 0.9+)
# and shares a band with A, B's first quarter and other text (under 0.3);
# with one row per band, C and B each meet A in some bands. Without --verify
# C names A (the earliest holder); with --verify 0.7 B stays (A is not
# similar enough) and C goes naming B, the earliest holder it is similar to.
zcat "$C4" | python3 -c "
import json, re, sys
docs = [json.loads(l)['text'] for l in sys.stdin]
b = docs[1].split()
a = b[: len(b) // 4] + docs[2].split()
c = b[:]
c[len(c) // 2] = 'zqxj'
def grams(w):
    w = [t.lower() for t in w]
    return {tuple(w[i:i + 5]) for i in range(max(1, len(w) - 4))}
jac = lambda x, y: len(grams(x) & grams(y)) / len(grams(x) | grams(y))
print('jaccard', round(jac(a, c), 2) < 0.3, round(jac(b, c), 2) >= 0.9, file=open('$TMP/jac', 'w'))
with open('$TMP/abc.jsonl', 'w') as f:
    for i, t in (('A', a), ('B', b), ('C', c)):
        print(json.dumps({'id': i, 'text': ' '.join(t)}), file=f)"
is "$(cat "$TMP/jac")" "jaccard True True" "exact Jaccard (Python): A-C under 0.3, B-C 0.9 or more"
P="--bands 20 --rows 1"
dup_of() { python3 -c "import json, sys; print(' '.join(json.loads(l)['id'] + '>' + json.loads(l)['reject']['dup_of'] for l in open(sys.argv[1])))" "$1"; }
"$WINNOW" dedup -q $P "$TMP/abc.jsonl" -o /dev/null --rejects "$TMP/abc.rej"
is "$(dup_of "$TMP/abc.rej")" "B>A C>A" "without --verify: B and C name A, the earliest band holder"
"$WINNOW" dedup -q $P --verify 0.7 "$TMP/abc.jsonl" -o /dev/null --rejects "$TMP/abc-v.rej"
is "$(dup_of "$TMP/abc-v.rej")" "C>B" "--verify 0.7: B stays, C names B (A is a holder that fails the check)"
done_testing
