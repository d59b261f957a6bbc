#!/usr/bin/env python3
"""hf_allchars_device.py - runs on the GPU machine (it has Hugging Face
tokenizers) from a bundle made by hf_allchars_bundle.sh: every Unicode scalar
value U+0001..U+10FFFF but surrogates, each in the contexts of
tiktoken_allchars_device.py (after a letter, before a digit, between spaces,
after an apostrophe, tripled, before a capital, before a line break), as
documents of 256 code points; for each tokenizer.json of files/, Hugging
Face's encode_batch(texts, add_special_tokens=False; truncation and padding
off) against `winnow tokenize --vocab FILE --format bin --no-bos --no-eos
--allow-special`, and that command without --allow-special with --device
gpu against --device cpu (byte for byte; where the GPU takes the file). Prints per file the documents
that differ and, for those,
the code points whose own one-character document differs (U+XXXX and
Python's general category, Cn for characters newer than its Unicode).
Writes the same to $OUT/hf_allchars.txt.
  usage: OUT=DIR python3 DIR/hf_allchars_device.py"""
import collections, glob, json, os, struct, subprocess, tarfile, tempfile, time, unicodedata

import tokenizers
from tokenizers import Tokenizer

here = os.path.dirname(os.path.abspath(__file__))
out_dir = os.environ.get("OUT", "/tmp/out")
os.makedirs(out_dir, exist_ok=True)
report = open(os.path.join(out_dir, "hf_allchars.txt"), "w")
work = tempfile.mkdtemp()
bin_dir = os.path.join(work, "bin")
tarfile.open(os.path.join(here, "bin.tar.xz")).extractall(bin_dir)
winnow, zstd = os.path.join(bin_dir, "winnow"), os.path.join(bin_dir, "zstd")


def say(line):
    print(line, flush=True)
    report.write(line + "\n")
    report.flush()


def contexts(c):
    return "a%s1 %s b'%s%s%sX%s\n" % (c, c, c, c, c, c)


def winnow_run(tj, texts, device="cpu", special=True):
    """winnow tokenize's process on texts (special: with --allow-special, which the GPU does not take)."""
    path = os.path.join(work, "docs.jsonl")
    with open(path, "w", encoding="utf-8") as f:
        for t in texts:
            f.write(json.dumps({"text": t}, ensure_ascii=False) + "\n")
    return subprocess.run([winnow, "tokenize", "-q", "-j16", "--device", device, "--vocab", tj, "--format", "bin",
                           "--no-eos", "--no-bos", path] + (["--allow-special"] if special else []),
                          capture_output=True, timeout=600)


def winnow_ids(tj, texts):
    """winnow's ids of texts, or (None, its message) when it refuses."""
    p = winnow_run(tj, texts)
    if p.returncode != 0:
        return None, p.stderr.decode(errors="replace").strip()[:300]
    got, at, out = [], 0, p.stdout
    while at < len(out):
        (n,) = struct.unpack_from("<I", out, at)
        got.append(list(struct.unpack_from("<%dI" % n, out, at + 4)))
        at += 4 + 4 * n
    return got, None


cps = [c for c in range(1, 0x110000) if not 0xD800 <= c <= 0xDFFF]
docs = ["".join(contexts(chr(c)) for c in cps[i:i + 256]) for i in range(0, len(cps), 256)]
say("== %s, tokenizers %s, Python unicodedata %s; %d documents (%d code points)"
    % (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), tokenizers.__version__, unicodedata.unidata_version,
       len(docs), len(cps)))
totals = collections.Counter()
for path in sorted(glob.glob(os.path.join(here, "files", "*.tokenizer.json.zst"))):
    name = os.path.basename(path).split(".")[0]
    tj = os.path.join(work, name + ".json")
    subprocess.run([zstd, "-dqf", path, "-o", tj], check=True)
    try:
        tok = Tokenizer.from_file(tj)
        tok.no_truncation()
        tok.no_padding()
        t0 = time.time()
        want = [e.ids for e in tok.encode_batch(docs, add_special_tokens=False)]
    except Exception as e:  # noqa: BLE001 - HF failing is a result here
        say("%s: HF fails: %s" % (name, str(e).splitlines()[0][:200]))
        totals["hf fails"] += 1
        continue
    t1 = time.time()
    got, refused = winnow_ids(tj, docs)
    t2 = time.time()
    if refused:
        say("%s: winnow refuses: %s" % (name, refused))
        totals["winnow refuses"] += 1
        continue
    bad = [i for i in range(len(docs)) if got[i] != want[i]]
    cpu, gpu = winnow_run(tj, docs, special=False), winnow_run(tj, docs, "gpu", special=False)
    gpu_note = ("identical" if gpu.stdout == cpu.stdout else "DIFFERENT") if gpu.returncode == 0 else \
        "refused (%s)" % gpu.stderr.decode(errors="replace").strip()[:80]
    totals["gpu " + gpu_note.split()[0]] += 1
    say("%s: %d documents differ; HF %.1f s, winnow %.1f s; --device gpu against cpu: %s"
        % (name, len(bad), t1 - t0, t2 - t1, gpu_note))
    totals["differ" if bad else "identical"] += 1
    if not bad:
        continue
    singles = [c for i in bad for c in cps[i * 256:(i + 1) * 256]]
    texts = [contexts(chr(c)) for c in singles]
    got1, _ = winnow_ids(tj, texts)
    want1 = [e.ids for e in tok.encode_batch(texts, add_special_tokens=False)]
    diff = [c for c, g, w in zip(singles, got1, want1) if g != w]
    cats = collections.Counter(unicodedata.category(chr(c)) for c in diff)
    say("  %d code points differ on their own (%s): %s" % (
        len(diff), " ".join("%s %d" % kv for kv in cats.most_common()),
        " ".join("U+%04X(%s)" % (c, unicodedata.category(chr(c))) for c in diff[:80])))
    for c in diff[:2]:
        say("  U+%04X: winnow %s, HF %s %s" % (c, got1[singles.index(c)][:16], want1[singles.index(c)][:16],
                                               tok.encode(contexts(chr(c)), add_special_tokens=False).tokens[:16]))
say("== " + ", ".join("%s %d" % kv for kv in sorted(totals.items())))
