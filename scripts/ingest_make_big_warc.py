#!/usr/bin/env python3
"""Builds a large WARC for the ingest benchmark by repeating the records of
real crawls (Common Crawl 2020, Dolma's 2024 wget crawl, pywb's iana.org,
the British Library's gov.uk crawl) until it reaches a size, each record as
its own gzip member (the Common Crawl layout). Record ids get a repeat
suffix so every record stays distinct.

usage: ingest_make_big_warc.py SHARED_DATA_DIR OUT.warc.gz [UNCOMPRESSED_MB (default 256)]"""
import gzip, os, re, sys, zlib

SOURCES = [
    "warc/resiliparse/tests/data/warcfile.warc.gz",
    "warc/dolma/tests/data/warc/sample-0000.warc.gz",
    "warc/dolma/tests/data/warc/sample-0001.warc.gz",
    "warc/pywb/sample_archive/warcs/iana.warc.gz",
    "warc/ukwa-webarchive-discovery/gov.uk-revisit-warcs/BL-20140325121225068-00000-32090~opera~8443.warc.gz",
]
RECORD_ID = re.compile(rb"(WARC-Record-ID: <[^>\r\n]*)>")
START = re.compile(rb"(?:^|\r?\n)(WARC/1\.[01]\r\n)")

def records(path):
    data = gzip.decompress(open(path, "rb").read())
    starts = [m.start(1) for m in START.finditer(data)]
    for i, s in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(data)
        yield data[s:end]

def main():
    shared, out = sys.argv[1], sys.argv[2]
    target = int(sys.argv[3] if len(sys.argv) > 3 else 256) * 1000 * 1000
    recs = [r for src in SOURCES for r in records(os.path.join(shared, src))]
    written, rep = 0, 0
    tmp = out + ".tmp"
    with open(tmp, "wb") as f:
        while written < target:
            for r in recs:
                if rep:
                    r = RECORD_ID.sub(rb"\1-%d>" % rep, r, count=1)
                z = zlib.compressobj(6, zlib.DEFLATED, 31)
                f.write(z.compress(r) + z.flush())
                written += len(r)
            rep += 1
    os.rename(tmp, out)
    print("%s: %d records, %d MB uncompressed, %d MB on disk" %
          (out, rep * len(recs), written // 10**6, os.path.getsize(out) // 10**6))

main()
