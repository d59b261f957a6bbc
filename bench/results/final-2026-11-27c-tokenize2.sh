#!/bin/bash
# run.sh - the lead's last tokenize A/B of 2026-11-27 (second session): main after i15t4 (new)
# against d79c555 (before i15t4: base) and 4244e3d (the session's start: start), 8.5 GB of JSONL
# (bench/gpu_issue15.sh's input) to --format bin on stdout, alternating, 4 runs each;
# new's bin against --device cpu's; the refusal without a GPU.
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
W=/tmp/final3; rm -rf $W; mkdir -p $W/bin && cd $W
exec > >(tee "$O/log-final3.txt") 2>&1
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$D/bin.tar.xz" $W/bin
B=$W/bin; V=$D/cl100k_base.tiktoken; TIMEFORMAT="%R %U %S"; export PATH=$B:$PATH
echo "== machine $(date -u)"; nproc; nvidia-smi --query-gpu=name --format=csv,noheader
python3 $D/tokenize_tokref.py jsonl $D/en_code.txt.zst $D/en_code.idx.tsv 0 > en.jsonl; zstd -dcq $D/multi.jsonl.zst > multi.jsonl
for i in $(seq 0 15); do for k in $(seq 9); do if [ $i -lt 8 ]; then cat en.jsonl; else cat multi.jsonl multi.jsonl; fi; done; done > in8g.jsonl
ls -l in8g.jsonl | awk '{print $5}'; cat in8g.jsonl > /dev/null
export WINNOW_TOKENIZE_TIMES=1
for r in 1 2 3 4; do
    for b in winnow winnow-base winnow-start; do
        t=$( { time $B/$b tokenize -q --encoding cl100k_base --vocab $V --device gpu --format bin -o - in8g.jsonl > /dev/null 2> err; } 2>&1 | tail -1)
        echo "$b: $t"; grep -h "times (s)\|clock" err | head -2
    done
done
unset WINNOW_TOKENIZE_TIMES
$B/winnow tokenize -q --encoding cl100k_base --vocab $V --device gpu --format bin -o - in8g.jsonl > new.bin
$B/winnow tokenize -q --encoding cl100k_base --vocab $V --device cpu --format bin -o - in8g.jsonl > cpu.bin
if cmp -s new.bin cpu.bin; then echo "SAME new.bin cpu.bin $(stat -c %s cpu.bin)"; else echo "DIFFERENT new.bin cpu.bin"; fi
rm -f new.bin cpu.bin
CUDA_VISIBLE_DEVICES= $B/winnow tokenize -q --encoding cl100k_base --vocab $V --device gpu --format bin -o - en.jsonl > refused.out 2> refused.err
echo "no GPU: exit $?, $(stat -c %s refused.out) bytes on stdout, stderr: $(head -c 200 refused.err)"
echo "== done $(date -u)"
