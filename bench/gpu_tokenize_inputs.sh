# gpu_tokenize_inputs.sh - issue 15's tokenize inputs on the GPU machine, sourced by
# bench/gpu_issue15.sh and bench/gpu_compressed.sh (scripts/gpu_issue15_bundle.sh carries it).
#
# tokenize_inputs D REPEAT: makes in the current folder, from bundle D: en.jsonl (tokref en_code)
# and multi.jsonl; parts/p0..p15.jsonl, part i being en_code (i < 8) or multi twice (946 MB in all)
# REPEAT times over; and the same as zst/pI.jsonl.zst and gz/pI.jsonl.gz, each part's one copy
# compressed (zstd -3, gzip -6) and then REPEAT times concatenated (REPEAT frames or members: one
# stream each).
tokenize_inputs() {
    local d=$1 repeat=$2 i k pids=
    python3 $d/tokenize_tokref.py jsonl $d/en_code.txt.zst $d/en_code.idx.tsv 0 > en.jsonl
    zstd -dcq $d/multi.jsonl.zst > multi.jsonl
    mkdir -p parts zst1 gz1 zst gz
    for i in $(seq 0 15); do
        if [ $i -lt 8 ]; then cat en.jsonl; else cat multi.jsonl multi.jsonl; fi > parts/q$i.jsonl
    done
    for i in $(seq 0 15); do
        zstd -q -3 -c parts/q$i.jsonl > zst1/q$i & pids="$pids $!"
        gzip -6 -c parts/q$i.jsonl > gz1/q$i & pids="$pids $!"
    done
    wait $pids
    for i in $(seq 0 15); do
        for k in $(seq $repeat); do cat parts/q$i.jsonl; done > parts/p$i.jsonl
        for k in $(seq $repeat); do cat zst1/q$i; done > zst/p$i.jsonl.zst
        for k in $(seq $repeat); do cat gz1/q$i; done > gz/p$i.jsonl.gz
    done
    rm -rf parts/q* zst1 gz1
}
