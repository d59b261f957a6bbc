#!/usr/bin/env python3
"""hf_heldout_device.py - runs on the GPU machine (it has Hugging Face
tokenizers) from a bundle made by hf_heldout_bundle.sh: for each
tokenizer.json of files/, Hugging Face's encode_batch(texts,
add_special_tokens=False; the file's truncation and padding off) against `winnow tokenize --vocab FILE --format bin --no-bos
--no-eos --allow-special` (the same mode) on every document of each corpus
of corpora/. Prints one line per file and corpus (documents, tokens,
documents that differ, seconds of each) and, for the first differing
documents, where they part: the text around it and both sides' tokens.
Writes the same to $OUT/hf_heldout.txt.
  usage: OUT=DIR python3 DIR/hf_heldout_device.py"""
import glob, json, os, struct, subprocess, sys, tarfile, tempfile, time

from tokenizers import Tokenizer

here = os.path.dirname(os.path.abspath(__file__))
out_dir = os.environ.get("OUT", "/tmp/out")
os.makedirs(out_dir, exist_ok=True)
report = open(os.path.join(out_dir, "hf_heldout.txt"), "w")
work = tempfile.mkdtemp()
bin_dir = os.path.join(work, "bin")
tarfile.open(os.path.join(here, "bin.tar.xz")).extractall(bin_dir)
winnow, zstd = os.path.join(bin_dir, "winnow"), os.path.join(bin_dir, "zstd")


def say(line):
    print(line, flush=True)
    report.write(line + "\n")
    report.flush()


def unzstd(src, dst):
    subprocess.run([zstd, "-dqf", src, "-o", dst], check=True)
    return dst


def read_bin(data):
    """Per document: a u32 count, then that many u32 ids."""
    docs, at = [], 0
    while at < len(data):
        (count,) = struct.unpack_from("<I", data, at)
        docs.append(list(struct.unpack_from("<%dI" % count, data, at + 4)))
        at += 4 + 4 * count
    return docs


def where_they_part(tok, text, enc, got, want):
    k = 0
    while k < len(got) and k < len(want) and got[k] == want[k]:
        k += 1
    start = enc.offsets[k][0] if k < len(enc.offsets) else len(text)
    near = text[max(0, start - 40):start + 40]
    return ("first difference at token %d (char %d): winnow %s, HF %s %s; text near it: %s"
            % (k, start, got[max(0, k - 2):k + 4], want[max(0, k - 2):k + 4], enc.tokens[max(0, k - 2):k + 4],
               json.dumps(near, ensure_ascii=False)))


def gpu_check(name, tj, jsonl):
    """--device gpu against --device cpu (plain encode, no --allow-special) on one corpus."""
    runs = []
    for device in ("cpu", "gpu"):
        t0 = time.time()
        p = subprocess.run([winnow, "tokenize", "-q", "-j16", "--device", device, "--vocab", tj, "--format", "bin",
                            "--no-eos", jsonl], capture_output=True, timeout=300)
        runs.append((p, time.time() - t0))
    (cpu, tc), (gpu, tg) = runs
    note = gpu.stderr.decode(errors="replace").strip().splitlines()
    say("  %s --device gpu against cpu on %s: exit %d/%d, %s; cpu %.2f s, gpu %.2f s%s"
        % (name, os.path.basename(jsonl), cpu.returncode, gpu.returncode,
           "identical" if cpu.stdout == gpu.stdout else "DIFFERENT", tc, tg, ("; " + note[0][:160]) if note else ""))


corpora = []
for path in sorted(glob.glob(os.path.join(here, "corpora", "*.jsonl.zst"))):
    jsonl = unzstd(path, os.path.join(work, os.path.basename(path)[:-4]))
    texts = [json.loads(line)["text"] for line in open(jsonl, encoding="utf-8")]
    corpora.append((os.path.basename(jsonl)[:-6], jsonl, texts))
say("== %s, %d cores" % (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), os.cpu_count()))
say("corpora: " + ", ".join("%s %d docs %d bytes" % (n, len(t), os.path.getsize(j)) for n, j, t in corpora))

totals = {"files": 0, "hf_refused": 0, "winnow_refused": 0, "exact": 0, "differ": 0}
for path in sorted(glob.glob(os.path.join(here, "files", "*.tokenizer.json.zst"))):
    name = os.path.basename(path).split(".")[0]
    totals["files"] += 1
    tj = unzstd(path, os.path.join(work, name + ".json"))
    try:
        tok = Tokenizer.from_file(tj)
    except Exception as e:  # noqa: BLE001 - any load failure is a result here
        say("%s: HF does not load it: %s" % (name, str(e).splitlines()[0][:200]))
        totals["hf_refused"] += 1
        continue
    tok.no_truncation()  # winnow ignores both (docs/tokenize.md): whole documents, no pad ids
    tok.no_padding()
    file_differs, refused, hf_failed = False, False, False
    for cname, jsonl, texts in corpora:
        t0 = time.time()
        try:
            encs = tok.encode_batch(texts, add_special_tokens=False)
        except Exception as e:  # noqa: BLE001 - HF failing on a text is a result here
            say("%s %s: HF cannot encode it: %s" % (name, cname, str(e).splitlines()[0][:200]))
            hf_failed = True
            continue
        t1 = time.time()
        p = subprocess.run([winnow, "tokenize", "-q", "-j16", "--device", "cpu", "--vocab", tj, "--format", "bin",
                            "--no-eos", "--no-bos", "--allow-special", jsonl], capture_output=True, timeout=300)
        t2 = time.time()
        if p.returncode != 0:
            say("%s: winnow exit %d: %s" % (name, p.returncode, p.stderr.decode(errors="replace").strip()[:400]))
            refused = True
            break
        got = read_bin(p.stdout)
        want = [e.ids for e in encs]
        bad = [i for i in range(max(len(got), len(want))) if i >= len(got) or i >= len(want) or got[i] != want[i]]
        say("%s %s: %d docs, %d HF tokens, %d docs differ; HF %.2f s, winnow %.2f s"
            % (name, cname, len(texts), sum(len(w) for w in want), len(bad), t1 - t0, t2 - t1))
        for i in bad[:3]:
            if i < len(got) and i < len(want):
                say("  doc %d: %s" % (i, where_they_part(tok, texts[i], encs[i], got[i], want[i])))
            else:
                say("  doc %d: winnow wrote %d documents, HF %d" % (i, len(got), len(want)))
        file_differs |= bool(bad)
    if not refused:
        gpu_check(name, tj, corpora[-1][1])
    if refused:
        totals["winnow_refused"] += 1
    elif hf_failed:
        totals["hf_refused"] += 1
    elif file_differs:
        totals["differ"] += 1
    else:
        totals["exact"] += 1
say("== %(files)d files: %(exact)d identical on every corpus, %(differ)d differ, %(winnow_refused)d refused by winnow, "
    "%(hf_refused)d HF does not load or encode" % totals)
