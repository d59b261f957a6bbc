#!/usr/bin/env python3
"""scale_plan - a worked plan for one Common Crawl dump on NODES machines.

Reads the measured rates from bench/results (the GPU machine's whole-pipeline
and staged-dedup runs, the tokenizer's CPU and GPU rates, the shard writer's
rate, the staged dedup steps' rates) and prints, per step of `winnow slurm`:
files created and opened, bytes, and time, with one task per node; then the
shards step as it was (one process) next to the shards step in ranks, and the
next bottleneck. The assumptions that are not measurements (the size of a
dump, the share of text that survives, the file system's metadata rate) are
named constants below, each with where it comes from.

    python3 scripts/scale_plan.py [--nodes 1000] [--partitions 1000] [--results bench/results]

Prints Markdown (docs/pipeline.md, "A worked plan for 1,000 nodes", is its output).
"""
import argparse
import os
import re
import sys

# ---- assumptions (not measured here) ----
# CC-MAIN-2024-51 (Common Crawl's announcement, December 2024): 2.64 billion
# pages, 394 TiB of uncompressed content; recent crawls are 100 segments of
# about 900 WARC files each.
DUMP_PAGES = 2.64e9
DUMP_WARC_BYTES = 394 * 2**40
DUMP_WARC_FILES = 90_000
# A recent crawl's .warc.gz files are about 1.1 GB each (Common Crawl's file lists).
WARC_GZ_FILE_BYTES = 1.1e9
# FineWeb (issue 21): about 15 T tokens, ~60 TB of text kept from 96 dumps,
# so ~0.6 TB of text per dump after filtering and dedup.
KEPT_TEXT_BYTES = 0.6e12
# Share of the filtered text that per-dump MinHash dedup keeps (assumed: half;
# it sets the bytes of the dedup steps, not the shards step).
DEDUP_KEEPS = 0.5
# Mean text bytes of a filtered document (assumed, FineWeb-like).
DOC_TEXT_BYTES = 3000
# JSONL bytes per text byte of the intermediate documents (id, url, metadata;
# assumed), and their zstd ratio (assumed).
JSONL_PER_TEXT = 1.3
ZSTD_RATIO = 3.0
# Metadata operations (create, open, rename) per second that a parallel file
# system's metadata servers sustain for the whole cluster (assumed: a Lustre
# file system with a few MDTs; measure yours with mdtest).
FS_METADATA_OPS = 50_000
# Token shard size (docs/shards.md default) and MinHash bands (dedup default).
SHARD_TOKENS = 100e6
DEDUP_BANDS = 14
SIG_RECORD_BYTES = 24  # {k0, k1, pos} per key (docs/dedup.md)
CORES = 16             # the GPU machine of the measurements
NODE_MEMORY = 128e9    # its memory: a buckets rank sorts its partitions' records in memory
PARTITION_CHOICES = (16, 64, 256, 1000, 4000)


def read(results, name):
    path = os.path.join(results, name)
    try:
        with open(path, encoding="utf-8") as f:
            return path, f.read()
    except OSError as e:
        sys.exit(f"scale_plan: cannot read {path}: {e.strerror}")


def find(results, name, pattern, group=1, conv=float):
    """The first match of pattern in bench/results/name (commas in numbers dropped)."""
    path, text = read(results, name)
    m = re.search(pattern, text, re.M)
    if not m:
        sys.exit(f"scale_plan: {path}: no line matches {pattern!r}")
    return conv(m.group(group).replace(",", ""))


def measured(results):
    r = {}
    # The whole pipeline on the GPU machine (16 cores + H100): MB of WARC per second of
    # the machine, best run of main's binary with every stage on the CPU.
    h100 = "h100-2026-11-26.md"
    rows = read(results, h100)[1]
    walls = [float(m.group(1).replace(",", "")) for m in
             re.finditer(r"^\| new \| cpu \| (?:yes|no) \| [\d.]+ \| ([\d,]+) \|", rows, re.M)]
    if not walls:
        sys.exit(f"scale_plan: {results}/{h100}: no 'new | cpu' pipeline rows")
    r["docs_machine"] = min(walls) * 1e6  # the slowest run: a plan should not count on the best
    # Staged dedup signatures on the same machine (call E): bytes of JSONL, wall seconds.
    sig_bytes = find(results, h100, r"8 files, ([\d,]+) bytes")
    r["sig_machine_gpu"] = sig_bytes / find(results, h100, r"`--device gpu` ([\d.]+) s \([\d.]+ user\),\s*\n\s*`--device cpu`")
    r["sig_machine_cpu"] = sig_bytes / find(results, h100, r"`--device gpu` [\d.]+ s \([\d.]+ user\),\s*\n\s*`--device cpu` ([\d.]+) s")
    # Buckets and apply per CPU-second (the 2-core dev machine): MB of JSONL.
    r["buckets_core"] = find(results, "dedup-2026-11-26.md", r"^\| staged: buckets .*\| ([\d.]+) \|$") * 1e6
    r["apply_core"] = find(results, "dedup-2026-11-26.md", r"^\| staged: apply .*\| ([\d.]+) \|$") * 1e6
    # Tokenizer on the GPU machine: CPU path with 16 threads, GPU end to end (cl100k_base).
    r["tok_cpu_machine"] = find(results, "gpu_tokenize-2026-11-24.md", r"^\| winnow CPU path, 16 threads \| ([\d,]+) MB/s") * 1e6
    r["tok_gpu"] = find(results, "gpu_tokenize-2026-11-24.md", r"^\| winnow GPU end to end .*?\| \*\*([\d,]+) MB/s") * 1e6
    # Text bytes per token (tokref en_code, cl100k_base) and the shard writer per CPU-second.
    text_mb = find(results, "tokenize-2026-11-26.md", r"^\| en_code \(([\d.]+) MB\) \| cl100k_base")
    tokens = find(results, "shards-2026-11-26.md", r"^\| cl \| 3 \| 1 \| (\d+) \|")
    r["bytes_per_token"] = text_mb * 1e6 / tokens
    r["shard_core_tokens"] = find(results, "shards-2026-11-26.md", r"^\| cl \| 3 \| 1 \| \d+ \| [\d.]+ \| [\d.]+ \| ([\d.]+) \|") * 1e6 / 4
    # The whole shards step on the GPU machine (issue 21): text bytes over the median wall
    # time, as one process (main) and in 16 ranks, pipeline B (the most text).
    ranks = "shards-ranks-2026-11-26.md"
    text = find(results, ranks, r"^- B: .*?, ([\d.]+) MB of text") * 1e6
    r["step_one_machine"] = text / find(results, ranks, r"^\| B \| main \| [\d. ]+\| [\d.]+ \| [\d,]+ \| [\d. ]+\| ([\d.]+) \|")
    r["step_ranks_machine"] = text / find(results, ranks, r"^\| B \| ranks \| [\d. ]+\| [\d.]+ \| [\d,]+ \| [\d. ]+\| ([\d.]+) \|")
    return r


def fmt_n(x):
    for unit, div in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if x >= div:
            return f"{x / div:.1f}{unit}"
    return f"{x:.0f}"


def fmt_b(x):
    for unit, div in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if x >= div:
            return f"{x / div:.1f} {unit}"
    return f"{x:.0f} B"


def fmt_s(s):
    if s >= 3600:
        return f"{s / 3600:.1f} h"
    if s >= 60:
        return f"{s / 60:.1f} min"
    return f"{s:.1f} s"


def plan(nodes, partitions, r):
    F, N, P = DUMP_WARC_FILES, nodes, partitions
    text_before_dedup = KEPT_TEXT_BYTES / DEDUP_KEEPS
    docs = text_before_dedup / DOC_TEXT_BYTES
    jsonl = text_before_dedup * JSONL_PER_TEXT
    tokens = KEPT_TEXT_BYTES / r["bytes_per_token"]
    shards = tokens / SHARD_TOKENS + N  # each rank ends a shard of its own
    sig_bytes = docs * (1 + DEDUP_BANDS) * SIG_RECORD_BYTES

    rows = []
    def step(name, created, renamed, opened, nbytes, compute, note):
        """created: files made (temporaries included); renamed: renames (each atomic write is one);
        opened: files opened to read; compute: seconds per node (the busiest rank)."""
        metadata = (created + renamed + opened) / FS_METADATA_OPS
        rows.append(dict(name=name, created=created, renamed=renamed, opened=opened, bytes=nbytes,
                         compute=compute, metadata=metadata, note=note))

    # docs: per input file its documents and 2 stats files (atomic writes) and a log; per rank a marker
    warc_gz = F * WARC_GZ_FILE_BYTES
    docs_s = DUMP_WARC_BYTES / N / r["docs_machine"]
    step("docs", 4 * F + N, 3 * F + N, F, warc_gz, docs_s,
         "ingest + filter on all cores; reading %s of .warc.gz at %s/s for the cluster"
         % (fmt_b(warc_gz), fmt_b(warc_gz / docs_s)))
    # signatures: per input file a signature file, an ids file and a marker (atomic writes)
    step("signatures (GPU)", 3 * F + N, 3 * F + N, F, jsonl / ZSTD_RATIO, jsonl / N / r["sig_machine_gpu"],
         "the CPU takes %s" % fmt_s(jsonl / N / r["sig_machine_cpu"]))
    # buckets: every partition reads its block of every input file's signature file and
    # sorts it on one core (a rank takes partitions r, r+N, ...)
    step("buckets", P + N, P + N, P * F, sig_bytes, -(-P // N) * jsonl / P / r["buckets_core"],
         "%s of records per partition, %s from each signature file" % (fmt_b(sig_bytes / P), fmt_b(sig_bytes / P / F)))
    # apply: every input file binary-searches its share of every partition's removal list
    step("apply", 3 * F + N, 3 * F + N, F * P + F, jsonl / ZSTD_RATIO, jsonl / N / (r["apply_core"] * CORES),
         "documents, stats and a marker per input file")
    # shards: per rank its shards and indexes (atomic writes), part manifest (twice), 2 stats, a marker, the part's rename
    step("shards (ranks, CPU)", 2 * shards + 5 * N, 2 * shards + 6 * N, F,
         KEPT_TEXT_BYTES * JSONL_PER_TEXT / ZSTD_RATIO, KEPT_TEXT_BYTES / N / r["step_ranks_machine"],
         "%s of text a node at the measured %s/s of the whole step" % (fmt_b(KEPT_TEXT_BYTES / N), fmt_b(r["step_ranks_machine"])))
    step("merge", 1, 2 * shards + 1, N, 0, 0, "moves every shard and index into OUTPUT, writes one manifest")
    return dict(docs=docs, jsonl=jsonl, tokens=tokens, shards=shards, sig_bytes=sig_bytes, rows=rows,
                text_before_dedup=text_before_dedup)


def wall(row):
    return max(row["compute"], row["metadata"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--partitions", type=int, default=None, help="default: the best of PARTITION_CHOICES")
    ap.add_argument("--results", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench", "results"))
    a = ap.parse_args()
    r = measured(a.results)
    choices = []  # (partitions, plan, buckets + apply seconds, fits in memory)
    for parts in PARTITION_CHOICES:
        q = plan(a.nodes, parts, r)
        t = sum(wall(row) for row in q["rows"] if row["name"] in ("buckets", "apply"))
        choices.append((parts, q, t, q["sig_bytes"] / parts <= NODE_MEMORY / 4))
    best = min((c for c in choices if c[3]), key=lambda c: c[2])
    P = a.partitions or best[0]
    p = plan(a.nodes, P, r)
    N, F = a.nodes, DUMP_WARC_FILES
    print(f"One dump: {F:,} WARC files, {fmt_b(DUMP_WARC_BYTES)} uncompressed, {DUMP_PAGES / 1e9:.2f} G pages; "
          f"{fmt_b(p['text_before_dedup'])} of text after the filter ({fmt_n(p['docs'])} documents), "
          f"{fmt_b(KEPT_TEXT_BYTES)} after dedup = {fmt_n(p['tokens'])} tokens ({r['bytes_per_token']:.2f} bytes a token). "
          f"{N:,} nodes of {CORES} cores + 1 H100, tasks = {N:,} (one per node, `cpus-per-task = {CORES}`), "
          f"`partitions = {P:,}`; metadata at {FS_METADATA_OPS:,} operations/s for the file system.")
    print()
    print(f"Measured rates (bench/results): docs step {r['docs_machine'] / 1e9:.2f} GB of WARC/s per node; "
          f"signatures {r['sig_machine_gpu'] / 1e9:.2f} GB/s per node on the GPU ({r['sig_machine_cpu'] / 1e9:.2f} on the CPU); "
          f"buckets {r['buckets_core'] / 1e6:.0f} and apply {r['apply_core'] / 1e6:.0f} MB of documents per core-second; "
          f"tokenize {r['tok_cpu_machine'] / 1e6:.0f} MB/s per node on the CPU, {r['tok_gpu'] / 1e9:.1f} GB/s on the GPU; "
          f"shard writer {r['shard_core_tokens'] / 1e6:.1f} M tokens per core-second; the whole shards step "
          f"{r['step_one_machine'] / 1e6:.0f} MB of text/s per node as one process, {r['step_ranks_machine'] / 1e6:.0f} in 16 ranks.")
    print()
    print("| step | files created | renames | files opened | bytes read | compute per node | metadata (whole FS) | note |")
    print("|---|---|---|---|---|---|---|---|")
    for row in p["rows"]:
        print(f"| {row['name']} | {fmt_n(row['created'])} | {fmt_n(row['renamed'])} | {fmt_n(row['opened'])} | "
              f"{fmt_b(row['bytes']) if row['bytes'] else '-'} | {fmt_s(row['compute']) if row['compute'] else '-'} | "
              f"{fmt_s(row['metadata'])} | {row['note']} |")
    total = sum(wall(row) for row in p["rows"])
    print()
    print(f"Bytes per dedup partition: {fmt_b(p['sig_bytes'] / P)} of signature records "
          f"({1 + DEDUP_BANDS} keys x {SIG_RECORD_BYTES} bytes a document, {fmt_n(p['docs'])} documents). "
          f"Output: {fmt_n(p['shards'])} shards.")
    print()
    step_one = KEPT_TEXT_BYTES / r["step_one_machine"]
    shard_one = p["tokens"] / (r["shard_core_tokens"] * CORES)
    gpu_one = max(KEPT_TEXT_BYTES / r["tok_gpu"], shard_one)
    shards_row = next(row for row in p["rows"] if row["name"].startswith("shards"))
    print(f"The shards step as one process (before issue 21): {fmt_s(step_one)} on one node's CPU at the measured "
          f"rate; with its GPU at best {fmt_s(gpu_one)} (tokenizing takes {fmt_s(KEPT_TEXT_BYTES / r['tok_gpu'])}, "
          f"then the shard writer's compression on {CORES} cores is the limit), while {N - 1:,} nodes wait; "
          f"in ranks: {fmt_s(wall(shards_row))} (compute {fmt_s(shards_row['compute'])}).")
    print()
    print(f"Sum of the steps, each taking the longer of its compute and its metadata: {fmt_s(total)}.")
    print()
    print("Partitions against time (buckets + apply, each the longer of compute and metadata; "
          "a buckets rank must hold its partition's records in memory):")
    print()
    print("| partitions | records per partition | buckets + apply |")
    print("|---|---|---|")
    for parts, q, t, fits in choices:
        print(f"| {parts:,} | {fmt_b(q['sig_bytes'] / parts)}{'' if fits else ' (over a quarter of a node)'} | {fmt_s(t)} |")
    print()
    worst = max(p["rows"], key=wall)
    print(f"The longest step is {worst['name']} ({fmt_s(wall(worst))}); the best partition count of those "
          f"above is {best[0]:,} ({fmt_s(best[2])} for buckets + apply).")


if __name__ == "__main__":
    main()
