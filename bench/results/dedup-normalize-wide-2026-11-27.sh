#!/bin/bash
# dedup_normalize_wide.sh - the dedup normaliser's 64-byte AVX-512 path on the
# dev machine (issue 15's dedup point, host work per byte): CPU-seconds, not
# wall (the machine is shared). bench/dedup_add (the GPU worker's add:
# normalise, exact hash, keep the normal form) with the normaliser of an
# earlier commit (BASE_COMMIT, its dedup/normalize.c linked in), with this
# one's baseline 16-byte path and with the best the CPU has, alternating, 3
# runs each, on 104 MB of
# unique en_code documents, the UDHR translations and tokref multi (both
# mostly non-ASCII); its page faults for 1 and 4 rounds and 1 and 2
# threads (buffers reused across batches?); then the whole stage, `winnow
# dedup --device cpu` of an earlier build (BASE) and this one, -j1 and -j2
# alternating, task-clock by perf stat, outputs and stats compared.
#   usage: bench/dedup_normalize_wide.sh BASE_WINNOW [BASE_COMMIT]
#   (after make build/winnow build/bench/dedup_add; BASE_COMMIT defaults to 42b79bb)
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
base=$1
base_commit=${2:-42b79bb}
SHARED=${SHARED:-$here/../shared/data}
W=${W:-/tmp/dedup-normalize-wide}; rm -rf "$W"; mkdir -p "$W"; cd "$W"
add=$here/build/bench/dedup_add; new=$here/build/winnow
# the libraries of the Makefile's LDLIBS (CUDA's where the library was built with it)
LIBS="-Wl,--as-needed -lzstd -lxxhash -lcrypto -larchive -luchardet -lutf8proc -lxml2 -lpcre2-8 -lz -ldeflate -licui18n
  -licuuc -licudata -lbrotlidec -lsnappy -lsentencepiece -lsentencepiece_train -Wl,--push-state,--no-as-needed -lcld2_full
  -Wl,--pop-state -lcld2 -lstdc++ -lm -pthread -L/usr/local/cuda/lib64/ -lcudart_static -ldl -lrt"
# dedup_add with the earlier commit's normaliser (its symbols come before the library's)
git -C "$here" show "$base_commit:dedup/normalize.c" > "$W/normalize_base.c"
cc -I"$here" -D_GNU_SOURCE -std=c11 -O2 -pthread -march=x86-64-v2 -o "$W/dedup_add_base" "$here/bench/dedup_add.c" \
    "$W/normalize_base.c" "$here/build/libwinnow.a" $LIBS
echo "== machine $(date -u), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), load $(cut -d' ' -f1-3 /proc/loadavg)"
grep -m1 flags /proc/cpuinfo | tr ' ' '\n' | grep -E "^(avx2|avx512bw|avx512_vbmi2|bmi2)$" | tr '\n' ' '; echo
SHARED=$SHARED python3 "$here/bench/dedup_unique_inputs.py" long long 3 > /dev/null
python3 - "$SHARED/tokref/multi.txt.zst" "$SHARED/tokref/multi.idx.tsv" > multi.jsonl <<'PY'
import json, subprocess, sys
text = subprocess.run(["zstd", "-dc", sys.argv[1]], capture_output=True, check=True).stdout
for line in open(sys.argv[2]):
    start, length = map(int, line.split("\t")[:2])
    print(json.dumps({"text": text[start:start + length].decode("utf-8", "replace")}, ensure_ascii=False))
PY
echo "== dedup_add, MB of text per CPU-second of adds (1 thread)"
for f in long/part-000.jsonl:2 "$SHARED/multilingual/udhr/udhr_text_DERIVED.jsonl:20" multi.jsonl:10; do
    for r in 1 2 3; do
        echo "$(basename ${f%%:*}) $base_commit: $($W/dedup_add_base ${f%%:*} 1 ${f##*:} baseline | grep thread)"
        for m in baseline best; do echo "$(basename ${f%%:*}) $m: $($add ${f%%:*} 1 ${f##*:} $m | grep thread)"; done
    done
done
echo "== dedup_add page faults (rounds 1 and 4, threads 1 and 2)"
for a in "1 1" "1 4" "2 1" "2 4"; do echo "threads rounds $a: $($add long/part-000.jsonl $a | tr '\n' ' ')"; done
echo "== winnow dedup --device cpu, 311 MB of unique long documents, task-clock ms (perf stat)"
for j in 1 2; do
    for r in 1 2 3; do
        for b in base new; do
            bin=$base; [ $b = new ] && bin=$new
            perf stat -x, -e task-clock,page-faults -o ps.txt $bin dedup -q -j$j --device cpu long/*.jsonl -o /dev/null
            echo "-j$j $b: $(grep -v '^#' ps.txt | grep -v '^$' | cut -d, -f1,3 | tr '\n' ' ')"
        done
    done
done
$base dedup -q -j2 long/*.jsonl -o out.base --stats st.base; $new dedup -q -j2 long/*.jsonl -o out.new --stats st.new
cmp out.base out.new && echo "outputs SAME ($(wc -l < out.new) lines)" || echo "outputs DIFFERENT"
diff <(grep -v seconds st.base) <(grep -v seconds st.new) > /dev/null && echo "stats SAME" || echo "stats DIFFERENT"
cd /; rm -rf "$W"
