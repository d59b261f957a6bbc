#!/bin/sh
# shards-writer - what the shard writer's threads cost (issue 15, -o shards/
# at GB/s): `winnow shard` and `winnow tokenize -o DIR/` (the block path the
# GPU uses, forced on the CPU encoder with WINNOW_TOKENIZE_BLOCKS=cpu, and
# the engine path), this build against BASE_WINNOW (main's) in alternating
# rounds, best of RUNS (the machine is shared); the writer fed from memory
# (bench/shard_writer_bench: the calling thread's CPU, copied against lent
# ids); zstd per level and advanced parameter on real ids
# (bench/zstd_params). Markdown on stdout.
. bench/lib.sh
set -eu
W=${WINNOW:-bin/winnow}
BASE=${BASE_WINNOW:-}
SWB=${BUILD:-build}/bench/shard_writer_bench
ZP=${BUILD:-build}/bench/zstd_params
T=$BENCH_TMP/shards-writer
RUNS=${RUNS:-5}
rm -rf "$T"; mkdir -p "$T"
V=$SHARED/vocab/tiktoken/cl100k_base.tiktoken
for c in en_code multi; do zstd -dcq "$SHARED/tokref/$c.cl100k_base.bin.zst" > "$T/$c.bin"; done
for c in en_code multi; do
    python3 scripts/tokenize_tokref.py jsonl "$SHARED/tokref/$c.txt.zst" "$SHARED/tokref/$c.idx.tsv" 0
done > "$T/in.jsonl"
jsonl=$(stat -c %s "$T/in.jsonl")
"$W" tokenize -q --device cpu --encoding cl100k_base --vocab "$V" --format bin -o "$T/ids.bin" "$T/in.jsonl"
ids=$(stat -c %s "$T/ids.bin")

echo "# Shard writer threads: CPU and wall per GB of ids"
echo
echo "$(machine_line)."
echo
echo "Input: tokref en_code + multi as JSONL ($(awk -v b=$jsonl 'BEGIN{printf "%.1f", b/1e6}') MB), cl100k_base; its --format bin id"
echo "stream $(awk -v b=$ids 'BEGIN{printf "%.1f", b/1e6}') MB. Best of $RUNS rounds; in each round every configuration runs once,"
echo "one after another. 'writer' = the seconds the block path's writer thread spent handing ids to the"
echo "shard writer (WINNOW_TOKENIZE_TIMES 'writer: format'), waits for the compression pool included."
echo
configs=""
add() { configs="$configs$1|$2|$3|$4
"; }
tok="tokenize -q --device cpu --encoding cl100k_base --vocab $V"
for who in base this; do
    bin=$W; [ $who = base ] && bin=$BASE
    [ -n "$bin" ] || continue
    for j in 1 2; do add "$who, winnow shard -j$j" "$bin" "" "shard -q -j$j -o $T/out --vocab-size 100277 --eos 100257 $T/ids.bin"; done
    for j in 1 2; do add "$who, tokenize -o DIR/ -j$j, block path" "$bin" cpu "$tok -j$j -o $T/out/ $T/in.jsonl"; done
    add "$who, tokenize -o DIR/ -j2, engine path" "$bin" "" "$tok -j2 -o $T/out/ $T/in.jsonl"
    add "$who, tokenize --format bin -j2, block path" "$bin" cpu "$tok -j2 --format bin -o $T/b.bin $T/in.jsonl"
done
for round in $(seq $RUNS); do
    echo "$configs" | while IFS='|' read -r label bin blocks cmd; do
        [ -n "$label" ] || continue
        rm -rf "$T/out"
        set -- $(WINNOW_TOKENIZE_BLOCKS=$blocks WINNOW_TOKENIZE_TIMES=1 /usr/bin/time -f "%e %U %S" -o "$T/time" $bin $cmd 2> "$T/err" > /dev/null; cat "$T/time")
        writer=$(grep -o 'writer: format [0-9.]*' "$T/err" | awk '{print $3}')
        echo "$round|$label|$1|$(awk -v u=$2 -v s=$3 'BEGIN{print u + s}')|${writer:--}"
    done
done > "$T/rounds"
echo "| configuration | wall s | CPU s | MB of ids per CPU-s | writer s | writer CPU-s per GB of ids |"
echo "|---|---|---|---|---|---|"
echo "$configs" | while IFS='|' read -r label bin blocks cmd; do
    [ -n "$label" ] || continue
    awk -F'|' -v l="$label" -v ids=$ids '$2 == l { if (!n++ || $3 < w) w = $3; if (n == 1 || $4 < c) c = $4; if ($5 != "-" && (m == "" || $5 < m)) m = $5 }
        END { printf "| %s | %.3f | %.3f | %.0f | %s | %s |\n", l, w, c, ids / 1e6 / c, m == "" ? "-" : m, m == "" ? "-" : sprintf("%.2f", m * 1e9 / ids) }' "$T/rounds"
done
echo
echo "## The writer fed from memory (bench/shard_writer_bench, this build, the ids of the input x2)"
echo
for round in $(seq $RUNS); do
    for m in copy borrowed; do for j in 1 2; do rm -rf "$T/out"; "$SWB" 100277 100257 "$T/ids.bin" "$T/out" $j 1 $m 2; done; done
done > "$T/swb"
for m in copy borrowed; do for j in 1 2; do
    grep "^$m -j$j " "$T/swb" | sort -t, -k2 | awk -v m=$m -v j=$j '{ split($0, a, "calling thread "); split(a[3], b, " CPU-s"); v = b[1]; if (NR == 1 || v < best) { best = v; line = $0 } } END { print "    best calling thread: " line }'
done; done
echo
echo "## zstd per level and parameter, one thread, 1 MiB frames (bench/zstd_params, best of 5)"
for c in en_code multi; do
    echo
    echo "### $c, cl100k_base (uint32)"
    echo
    "$ZP" 100277 "$T/$c.bin" 5 1 2 -1 -2 -3 -5 1,hlog=13 1,hlog=12 1,hlog=11 1,mml=6 1,wlog=17 -1,lit=1 -2,lit=1 -3,lit=1 -3,lit=1,hlog=12 -5,lit=1 1,lit=2 1,frame=256k 1,frame=4M
done
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf "$T"
