#!/usr/bin/env python3
"""Independent reference for `winnow ingest` tests: counts, per WARC file, the
records by type and the HTML documents a faithful reader must produce
(2xx response records whose HTTP Content-Type is text/html or
application/xhtml+xml, plus resource records of those types). It splits
records by the "WARC/" lines that start them rather than by Content-Length,
so a wrong length does not fool it the same way. Usage: FILE..."""
import gzip, re, sys, zlib

def decompress(raw):
    if raw[:2] == b'\x1f\x8b':
        out, d = [], raw
        while d[:2] == b'\x1f\x8b':
            z = zlib.decompressobj(31)
            try:
                out.append(z.decompress(d))
            except zlib.error:
                break
            d = z.unused_data
        return b''.join(out)
    return raw

START = re.compile(rb'(?:^|\n)(WARC/[0-9][^\r\n]*)\r*\n')

def records(data):
    starts = [m.start(1) for m in START.finditer(data)]
    for i, s in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(data)
        yield data[s:end]

def fields(head):
    out = {}
    for line in re.split(rb'\r*\n', head)[1:]:
        if b':' in line and not line[:1].isspace():
            k, v = line.split(b':', 1)
            out.setdefault(k.strip().lower().decode('utf-8', 'replace'), v.strip())
    return out

def is_html(ctype):
    mime = ctype.split(b';')[0].strip().lower()
    return mime in (b'text/html', b'application/xhtml+xml')

def count(path):
    data = decompress(open(path, 'rb').read())
    types, html = {}, 0
    for rec in records(data):
        m = re.search(rb'\r*\n\r*\n', rec)
        if not m:
            continue
        f = fields(rec[:m.start()])
        t = f.get('warc-type', b'?').decode()
        types[t] = types.get(t, 0) + 1
        block = rec[m.end():]
        if t == 'resource' and is_html(f.get('content-type', b'')):
            html += 1
        if t == 'response' and block.startswith(b'HTTP/'):
            hm = re.search(rb'\r*\n\r*\n', block)
            head = block[:hm.start()] if hm else block
            status = re.match(rb'HTTP/\S+\s+(\d{3})', head)
            hf = fields(b'x\n' + head.split(b'\n', 1)[1] if b'\n' in head else b'')
            if status and status.group(1).startswith(b'2') and is_html(hf.get('content-type', b'')):
                html += 1
    return types, html

for p in sys.argv[1:]:
    types, html = count(p)
    print(f'{p}\thtml={html}\t' + ' '.join(f'{k}={v}' for k, v in sorted(types.items())))
