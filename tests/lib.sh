# lib.sh - TAP helpers for the shell tests. Source it, then:
#   ok CMD...            one test point that passes when CMD succeeds
#   is GOT WANT NAME     compare two strings
#   skip_all REASON      plan 0 with a skip
#   skip REASON          one test point that did not run, with why (ok N # SKIP REASON)
#   require_file PATH... a missing or unreadable data file (or folder) fails the
#                        whole test with a message naming it: data is never optional
#   points N PREFIX CMD...  runs a checker whose output lines "ok - NAME" / "not ok - NAME"
#                        become test points "PREFIX: NAME" (other lines: comments), then
#                        one more point: it exited 0 after printing exactly N of them
#   stats_value FILE KEY.PATH  the value at a dotted path of a --stats JSON file
#                        (0 when absent; JSON's true/false as true/false)
#   done_testing         print the plan; exit non-zero if anything failed
WINNOW=${WINNOW:-$(pwd)/bin/winnow}
SHARED=${SHARED:-$(pwd)/../shared/data}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/winnow-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
_n=0; _fail=0
ok() { _n=$((_n+1)); name=$1; shift; if "$@" >/dev/null 2>&1; then echo "ok $_n - $name"; else echo "not ok $_n - $name"; _fail=$((_fail+1)); fi; }
is() { _n=$((_n+1)); if [ "$1" = "$2" ]; then echo "ok $_n - $3"; else echo "not ok $_n - $3"; echo "#   got: '$1'"; echo "#  want: '$2'"; _fail=$((_fail+1)); fi; }
skip() { _n=$((_n+1)); echo "ok $_n # SKIP $1"; }
skip_all() { echo "1..0 # SKIP $1"; exit 0; }
require_file() {
    for f in "$@"; do
        [ -r "$f" ] && continue
        _n=$((_n+1)); echo "not ok $_n - data file missing or unreadable: $f"
        echo "# (SHARED=$SHARED; the test data is ../shared/data, see its MANIFEST.md)"
        echo "1..$_n"; exit 1
    done
}
points() {
    _want=$1 _prefix=$2; shift 2
    "$@" > "$TMP/points.out" 2>&1
    _rc=$? _got=0
    while IFS= read -r _line; do
        case $_line in
            "ok - "*) _n=$((_n+1)); _got=$((_got+1)); echo "ok $_n - $_prefix: ${_line#ok - }" ;;
            "not ok - "*) _n=$((_n+1)); _got=$((_got+1)); _fail=$((_fail+1)); echo "not ok $_n - $_prefix: ${_line#not ok - }" ;;
            *) echo "# $_line" ;;
        esac
    done < "$TMP/points.out"
    is "exit $_rc, $_got checks" "exit 0, $_want checks" "$_prefix: the checker ran to the end"
}
# full_pipeline INPUT WORK OUTPUT [INGEST_LINE]: a pipeline file (on stdout) of
# every step, ingest to shards, tokenizing with cl100k_base from $VOCAB.
full_pipeline() {
    printf 'input = %s\nwork = %s\noutput = %s\ntasks = 1\n[ingest]\n%s\n' "$1" "$2" "$3" "${4:-}"
    printf '[filter]\n[dedup]\n[tokenize]\nencoding = cl100k_base\nvocab = %s\n' "$VOCAB"
    printf '[shard]\nvocab-size = 100277\ntokenizer = cl100k_base\nvocab = %s\neos = 100257\n' "$VOCAB"
}
stats_value() {
    python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    v = v.get(k, 0) if isinstance(v, dict) else 0
print(json.dumps(v))' "$1" "$2"
}
done_testing() { echo "1..$_n"; [ $_fail -eq 0 ]; }
