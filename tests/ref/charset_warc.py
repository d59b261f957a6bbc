#!/usr/bin/env python3
"""charset_warc.py - writes a WARC of HTML responses whose charsets the HTML
and Encoding Standards decide (for tests/e2e/ingest_charset_standard.sh), and
beside it EXPECTED: one line per record, the text winnow must extract from it
(made with Python's codecs: bytes.decode(codec, "replace")), or "FAIL" for a
record ingest must refuse (the "replacement" encodings).

    python3 tests/ref/charset_warc.py OUT.warc EXPECTED"""
import sys

RUSSIAN = "Привет, мир! Это проверка."


def page(body_text: str, head: str = "") -> str:
    return "<html><head>%s</head><body><p>%s</p></body></html>" % (head, body_text)


def cases():
    """(HTTP Content-Type charset or None, body bytes, expected text or FAIL)."""
    html = page(RUSSIAN)
    yield "UTF-16", html.encode("utf-16-le"), RUSSIAN  # utf-16 is UTF-16LE, no BOM
    yield "utf-16le", html.encode("utf-16-le"), RUSSIAN
    yield "UTF-16BE", html.encode("utf-16-be"), RUSSIAN
    # x-user-defined: 0x80-0xFF are U+F780 + (byte - 0x80), by the Encoding Standard's definition
    yield "x-user-defined", page("a\x80b\xff").encode("latin-1"), "a\uf780b\uf7ff"
    # invalid UTF-8: one U+FFFD per maximal subpart
    raw = page("caf\x00 x\x01 y").encode("ascii").replace(b"\x00", b"\xc3").replace(b"\x01", b"\xf0\x9f\x98")
    yield "utf-8", raw, raw.decode("utf-8", "replace").split("<p>")[1].split("</p>")[0]
    # the "replacement" encodings: refused
    yield "iso-2022-kr", page("한국어").encode("iso2022_kr"), "FAIL"
    yield None, page("中文", '<meta charset="hz-gb-2312">').encode("hz"), "FAIL"
    # a charset in content without http-equiv declares nothing (the page is UTF-8)
    yield None, page(RUSSIAN, '<meta name="description" content="text/html; charset=shift_jis">').encode("utf-8"), RUSSIAN


def record(n: int, charset, body: bytes) -> bytes:
    ct = "text/html" + ("; charset=" + charset if charset else "")
    http = ("HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n" % (ct, len(body))).encode() + body
    head = ("WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-%012d>\r\n"
            "WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Target-URI: http://example.com/%d\r\n"
            "Content-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n") % (n, n, len(http))
    return head.encode() + http + b"\r\n\r\n"


def main() -> None:
    with open(sys.argv[1], "wb") as warc, open(sys.argv[2], "w", encoding="utf-8") as expected:
        for n, (charset, body, text) in enumerate(cases()):
            warc.write(record(n, charset, body))
            expected.write(text + "\n")


if __name__ == "__main__":
    main()
