#!/usr/bin/env python3
"""make_sample_warc.py - builds the demo crawl from the pages in scripts/demo/pages.

Writes a WARC/1.1 file, gzip-compressed per record as Common Crawl does, with
what a real crawl holds: warcinfo, request/response pairs, metadata records,
a mirrored copy and an edited near-copy of a page, a gzip + chunked response,
a 404, an image, and a revisit. Dates and record ids are fixed, so the file is
the same on every machine.

usage: make_sample_warc.py OUT.warc.gz
"""
import gzip
import hashlib
import io
import os
import sys
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
PAGES = os.path.join(HERE, "demo", "pages")
NAMESPACE = uuid.UUID("6f1c7a52-9d0e-4b1e-8a59-7f3c2d1e0b4a")


def record_id(name):
    return "<urn:uuid:%s>" % uuid.uuid5(NAMESPACE, name)


def warc_record(kind, name, uri, date, block, content_type, extra=()):
    head = [
        "WARC/1.1",
        "WARC-Type: " + kind,
        "WARC-Record-ID: " + record_id(name),
        "WARC-Date: " + date,
    ]
    if uri:
        head.append("WARC-Target-URI: " + uri)
    head += list(extra)
    head.append("WARC-Block-Digest: sha1:" + hashlib.sha1(block).hexdigest())
    head.append("Content-Type: " + content_type)
    head.append("Content-Length: %d" % len(block))
    raw = ("\r\n".join(head) + "\r\n\r\n").encode() + block + b"\r\n\r\n"
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0) as gz:
        gz.write(raw)
    return out.getvalue()


def http_response(status, headers, body):
    lines = ["HTTP/1.1 " + status] + ["%s: %s" % h for h in headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def chunked(body, size=700):
    out = b""
    for i in range(0, len(body), size):
        part = body[i:i + size]
        out += b"%x\r\n" % len(part) + part + b"\r\n"
    return out + b"0\r\n\r\n"


def page(name):
    with open(os.path.join(PAGES, name), "rb") as f:
        return f.read()


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    records = []
    date = "2026-11-01T12:00:%02dZ"
    n = [0]

    def add(kind, name, uri, block, ctype, extra=()):
        records.append(warc_record(kind, name, uri, date % (n[0] % 60), block, ctype, extra))
        n[0] += 1

    add("warcinfo", "info", None,
        b"software: winnow make_sample_warc.py\r\nformat: WARC File Format 1.1\r\n",
        "application/warc-fields")

    def fetch(url, status, headers, body, name):
        req = ("GET / HTTP/1.1\r\nHost: %s\r\nUser-Agent: winnow-demo\r\n\r\n" % url.split("/")[2]).encode()
        add("request", name + "-req", url, req, "application/http; msgtype=request")
        add("response", name, url, http_response(status, headers, body),
            "application/http; msgtype=response", ["WARC-Concurrent-To: " + record_id(name + "-req")])
        add("metadata", name + "-meta", url, b"fetchTimeMs: 120\r\n", "application/warc-fields")

    html = "text/html; charset=utf-8"
    fetch("https://science.example.org/rivers", "200 OK", [("Content-Type", html)], page("rivers.html"), "rivers")
    # the same page mirrored on another host: an exact duplicate
    fetch("https://mirror.example.net/rivers.html", "200 OK", [("Content-Type", html)], page("rivers.html"), "rivers-mirror")
    # an edited copy: one sentence changed, a date added - a near duplicate
    edited = page("rivers.html").replace(b"Over thousands of years", b"Over many thousands of years").replace(
        b"<article>", b"<article><p>Updated 2 November 2026.</p>")
    fetch("https://news.example.com/2026/11/rivers", "200 OK", [("Content-Type", html)], edited, "rivers-edited")
    # gzip content coding over chunked transfer coding
    body = gzip.compress(page("bread.html"), mtime=0)
    fetch("https://food.example.org/bread", "200 OK",
          [("Content-Type", html), ("Content-Encoding", "gzip"), ("Transfer-Encoding", "chunked")],
          chunked(body), "bread")
    fetch("https://town.example.org/libraries", "200 OK", [("Content-Type", "text/html")], page("libraries.html"), "libraries")
    # charset only in <meta http-equiv>
    fetch("https://city.example.ru/metro", "200 OK", [("Content-Type", "text/html")], page("moscow-metro.html"), "metro")
    # charset in the HTTP header
    fetch("https://culture.example.cn/tea", "200 OK", [("Content-Type", "text/html; charset=gb2312")], page("tea.html"), "tea")
    fetch("https://berge.example.de/hoehenweg", "200 OK", [("Content-Type", html)], page("wanderweg.html"), "wanderweg")
    fetch("https://shop.example.com/login", "200 OK", [("Content-Type", html)], page("login.html"), "login")
    fetch("https://science.example.org/missing", "404 Not Found", [("Content-Type", html)],
          b"<html><body><h1>Not found</h1></body></html>", "missing")
    fetch("https://science.example.org/logo.png", "200 OK", [("Content-Type", "image/png")],
          b"\x89PNG\r\n\x1a\n" + bytes(range(256)), "logo")
    add("revisit", "rivers-revisit", "https://science.example.org/rivers",
        http_response("200 OK", [("Content-Type", html)], b""), "application/http; msgtype=response",
        ["WARC-Profile: http://netpreserve.org/warc/1.1/revisit/identical-payload-digest",
         "WARC-Refers-To: " + record_id("rivers")])

    tmp = sys.argv[1] + ".tmp"
    with open(tmp, "wb") as f:
        for r in records:
            f.write(r)
    os.replace(tmp, sys.argv[1])


if __name__ == "__main__":
    main()
