#!/bin/bash
# gpu_issue15.sh - the measurements of issue 15's "Done when", on the GPU
# machine, from a bundle made by scripts/gpu_issue15_bundle.sh. Files in the
# page cache, wall / user / sys seconds. Two parts, each fitting one device
# call (the tool's limit is 600 s):
#   PART=tokenize  ceilings (page-cache read, host memcpy, pinned PCIe copy);
#                  `winnow tokenize` cl100k_base on 8.5 GB of JSONL (tokref
#                  en_code x72 + multi x144 in 16 parts) with --device gpu to
#                  --format bin and to -o shards/, the same as 16 .jsonl.zst and
#                  16 .jsonl.gz files, --device cpu (16 threads); --device auto
#                  against cpu at 10 MB, 300 MB and 8.5 GB; every GPU output
#                  compared with the CPU's; the Python peers (tiktoken
#                  encode_ordinary_batch and HF tokenizers encode_batch, 16
#                  threads) on tokref en_code.
#   PART=shards    `-o shards/ --level tlz` (winnow's token encoder) against level
#                  1 on the same 8.5 GB, the CPU's tlz shards compared byte for
#                  byte; with SHARD_IDS=1 also `winnow shard` on the 9.28 GB of ids.
#   PART=dedup     `winnow dedup` on unique documents (bench/dedup_unique_inputs.py):
#                  5.4 GB of long ones and 2 M short ones, gpu (its default workers:
#                  one less than the cores) and cpu (-j16), outputs
#                  compared; `winnow run` on a JSONL dataset (filter -> dedup ->
#                  tokenize -> shard) beside the README's shell pipe.
# With winnow-base in the bundle (an earlier build) the main GPU rows run for
# it too, alternating, as "base". Writes log.txt under $OUT.
#   usage: PART=tokenize|shards|dedup bash DIR/gpu_issue15.sh   (RUNS=2)
set -u
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
PART=${PART:-tokenize}; RUNS=${RUNS:-2}; REPEAT=${REPEAT:-9} # REPEAT: copies of the 946 MB in the tokenize input
W=/tmp/i15-$PART; rm -rf $W; mkdir -p $W/bin && cd $W
exec > >(tee "$O/log-$PART.txt") 2>&1
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$D/bin.tar.xz" $W/bin
B=$W/bin; V=$D/cl100k_base.tiktoken; export PATH=$B:$PATH
TIMEFORMAT='%R %U %S'
echo "== machine $(date -u)"; nproc; grep -m1 'model name' /proc/cpuinfo; free -g | head -2
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
HAVE_BASE=0; [ -x $B/winnow-base ] && HAVE_BASE=1

# timed TAG CMD...: one run, "TAG: wall user sys"
timed() { local tag=$1 t; shift; t=$( { time "$@" > /dev/null 2> $W/err; } 2>&1 | tail -1); echo "$tag: $t"; grep -h "times\|library\|shard writer" $W/err | head -4; grep -v "times\|library\|shard writer" $W/err | head -2; }
same() { if cmp -s "$1" "$2" 2>/dev/null || diff -rq "$1" "$2" > /dev/null 2>&1; then echo "SAME $1 $2"; else echo "DIFFERENT $1 $2"; fi; }
# each TAG RUNS CMD...: RUNS runs of CMD (and of the same with winnow-base, alternating, when bundled)
each() {
    local tag=$1 runs=$2 r; shift 2
    for r in $(seq $runs); do
        timed "$tag new" "$@"
        if [ $HAVE_BASE = 1 ] && [ "$1" = $B/winnow ]; then timed "$tag base" $B/winnow-base "${@:2}"; fi
    done
}
tok() { $B/winnow tokenize -q --encoding cl100k_base --vocab $V "$@"; }

if [ "$PART" = tokenize ]; then
    . $D/gpu_tokenize_inputs.sh
    tokenize_inputs $D $REPEAT
    cat parts/p*.jsonl > in8g.jsonl
    head -c 10000000 in8g.jsonl | sed '$d' > in10m.jsonl
    { cat en.jsonl en.jsonl; for k in 1 2 3 4 5 6 7; do cat multi.jsonl; done; } > in300m.jsonl
    ls -l in*.jsonl | awk '{print $5, $9}'; du -sh parts zst gz; date -u
    GB=$(stat -c %s in8g.jsonl)
    cat in8g.jsonl > /dev/null; cat parts/* zst/* gz/* > /dev/null

    echo "== ceilings"
    timed "page-cache read, cat, 1 thread, 8.5 GB" cat in8g.jsonl
    timed "page-cache read, cat, 16 files on 16 threads, 8.5 GB" sh -c "ls parts/* | xargs -P16 -n1 cat"
    $B/gpu_bandwidth

    export WINNOW_TOKENIZE_TIMES=1 WINNOW_SHARD_TIMES=1
    echo "== 8.5 GB ($GB bytes) to --format bin on stdout"
    each "gpu bin stdout" $((RUNS + 1)) $B/winnow tokenize -q --encoding cl100k_base --vocab $V --device gpu --format bin -o - in8g.jsonl
    timed "cpu bin stdout" tok --device cpu --format bin -o - in8g.jsonl
    timed "gpu bin -o file" tok --device gpu --format bin -o gpu.bin in8g.jsonl
    timed "cpu bin -o file" tok --device cpu --format bin -o cpu.bin in8g.jsonl
    same gpu.bin cpu.bin; rm -f gpu.bin
    timed "ceiling for shards: zstd -1 -T16 on the bin stream (ids), $(stat -c %s cpu.bin) bytes" zstd -q -1 -T16 -c cpu.bin
    echo "== 8.5 GB to -o shards/"
    each "gpu shards" $RUNS $B/winnow tokenize -q --encoding cl100k_base --vocab $V --device gpu -o $W/sh-gpu/ in8g.jsonl
    timed "cpu shards" tok --device cpu -o sh-cpu/ in8g.jsonl
    same sh-gpu sh-cpu; rm -rf sh-cpu sh-gpu
    echo "== the 8.5 GB as 16 .jsonl.zst and as 16 .jsonl.gz, --format bin"
    for c in zst gz; do
        each "gpu $c bin stdout" $RUNS $B/winnow tokenize -q --encoding cl100k_base --vocab $V --device gpu --format bin -o - $c/*
        timed "gpu $c bin -o file" tok --device gpu --format bin -o $c.bin $c/*
        same $c.bin cpu.bin; rm -f $c.bin
    done
    rm -f cpu.bin
    echo "== --device auto against cpu, to stdout, best of $RUNS each"
    for f in in10m in300m in8g; do
        for r in $(seq $RUNS); do
            for dev in cpu auto; do timed "$f $dev" tok --device $dev --format bin -o - $f.jsonl; done
        done
    done
    unset WINNOW_TOKENIZE_TIMES WINNOW_SHARD_TIMES
    echo "== peers (tokref en_code, 80.8 MB of text, 16 threads)"
    mkdir -p shared/tokref shared/vocab/tiktoken shared/vocab/gpt2
    cp $D/en_code.idx.tsv shared/tokref/; cp $D/*.tiktoken shared/vocab/tiktoken/; cp $D/encoder.json $D/vocab.bpe shared/vocab/gpt2/
    zstd -dcq $D/en_code.txt.zst > en_code.txt
    PYTHONUNBUFFERED=1 timeout 200 python3 $D/gpu_tokenize_peers.py $W/shared en_code.txt 1 16 2>&1
    timed "winnow cpu 16 threads, the same text as JSONL (en_code, 84 MB)" tok --device cpu --format bin -o - en.jsonl
fi

if [ "$PART" = shards ]; then # `-o shards/ --level tlz` (winnow's token encoder) beside level 1
    . $D/gpu_tokenize_inputs.sh
    tokenize_inputs $D $REPEAT
    cat parts/p*.jsonl > in8g.jsonl; rm -rf parts zst gz
    GB=$(stat -c %s in8g.jsonl); echo "input: $GB bytes"; cat in8g.jsonl > /dev/null
    export WINNOW_TOKENIZE_TIMES=1 WINNOW_SHARD_TIMES=1
    for r in $(seq $RUNS); do
        rm -rf sh-tlz; timed "gpu shards --level tlz" tok --device gpu --level tlz -o sh-tlz/ in8g.jsonl
        rm -rf sh-l1; timed "gpu shards (level 1)" tok --device gpu -o sh-l1/ in8g.jsonl
    done
    if [ -n "${SHARD_IDS:-}" ]; then # `winnow shard` on the ids alone
        tok --device gpu --no-eos --format bin -o ids.bin in8g.jsonl; echo "ids: $(stat -c %s ids.bin) bytes"
        export WINNOW_SHARD_TIMES=1
        for r in 1 2; do rm -rf s1; timed "shard level 1" $B/winnow shard -q --vocab-size 100277 -o s1/ ids.bin; done
        for r in 1 2; do rm -rf st; timed "shard --level tlz" $B/winnow shard -q --vocab-size 100277 --level tlz -o st/ ids.bin; done
        unset WINNOW_SHARD_TIMES
        rm -rf s1 st ids.bin
    fi
    timed "cpu shards --level tlz" tok --device cpu --level tlz -o sh-tlz-cpu/ in8g.jsonl
    unset WINNOW_TOKENIZE_TIMES WINNOW_SHARD_TIMES
    same sh-tlz sh-tlz-cpu
    echo "bytes: tlz $(cat sh-tlz/*.tok.zst | wc -c), level 1 $(cat sh-l1/*.tok.zst | wc -c)"
    timed "verify tlz" $B/winnow shards verify sh-tlz
    zstd -dcq sh-tlz/shard_00003.tok.zst | cmp - <(zstd -dcq sh-l1/shard_00003.tok.zst) && echo "SAME zstd -d of shard 3, tlz and level 1"
    $B/winnow shards cat sh-tlz --format bin | cmp - <($B/winnow shards cat sh-l1 --format bin) && echo "SAME shards cat, tlz and level 1"
fi

if [ "$PART" = dedup ]; then
    mkdir -p shared/tokref; cp $D/en_code.txt.zst $D/en_code.idx.tsv shared/tokref/
    COPIES=${COPIES:-52}; SHORT=${SHORT:-2000000}
    timed "make long inputs ($COPIES files)" env SHARED=$W/shared python3 $D/dedup_unique_inputs.py long long $COPIES
    timed "make short inputs" env SHARED=$W/shared python3 $D/dedup_unique_inputs.py short short.jsonl $SHORT
    L=$(ls long/*.jsonl); L20=$(ls long/*.jsonl | head -20)
    echo "long bytes: $(cat $L | wc -c) (20 files: $(cat $L20 | wc -c)); short bytes: $(wc -c < short.jsonl)"
    cat $L short.jsonl > /dev/null
    echo "== dedup, 2 M short unique documents"
    each "dedup short gpu" $RUNS $B/winnow dedup -q --device gpu short.jsonl -o /dev/null
    timed "dedup short gpu -o file" $B/winnow dedup -q --device gpu short.jsonl -o S.gpu
    timed "dedup short cpu -o file" $B/winnow dedup -q -j16 --device cpu short.jsonl -o S.cpu
    same S.gpu S.cpu; rm -f S.*
    echo "== dedup, long unique documents ($COPIES files)"
    each "dedup long gpu -o /dev/null" $RUNS $B/winnow dedup -q --device gpu $L -o /dev/null
    timed "dedup long cpu -o /dev/null" $B/winnow dedup -q -j16 --device cpu $L -o /dev/null
    timed "dedup long gpu -o file" $B/winnow dedup -q --device gpu $L -o L.gpu
    timed "dedup long cpu -o file" $B/winnow dedup -q -j16 --device cpu $L -o L.cpu
    same L.gpu L.cpu; rm -f L.*
    echo "== winnow run on a JSONL dataset (the 20 first long files) and the shell pipe"
    mkdir -p long20; for f in $L20; do ln -s $W/$f long20/; done
    printf 'input = %s/long20/*.jsonl\nwork = %s/work\noutput = %s/shards-run\ntasks = 16\n[filter]\n[dedup]\n[tokenize]\nencoding = cl100k_base\nvocab = %s\nno-eos\n[shard]\nvocab-size = 100277\ntokenizer = cl100k_base\neos = 100257\n' $W $W $W $V > p.ini
    echo "input bytes: $(cat long20/*.jsonl | wc -c)"
    for r in $(seq $RUNS); do
        rm -rf work shards-run; timed "winnow run -j16 (16 tasks)" $B/winnow run -q -j16 p.ini
        if [ $HAVE_BASE = 1 ]; then rm -rf work shards-run; timed "winnow run -j16 (16 tasks) base" $B/winnow-base run -q -j16 p.ini; fi
        rm -rf shards-pipe; timed "the shell pipe" sh -c "$B/winnow filter -q long20/*.jsonl | $B/winnow dedup -q | $B/winnow tokenize -q --encoding cl100k_base --vocab $V --no-eos -o shards-pipe/"
    done
    $B/winnow shards verify shards-run; $B/winnow shards verify shards-pipe
fi
echo "== done $(date -u)"
