#!/usr/bin/env python3
"""html5lib_encoding_cases.py - extracts from html5lib-tests' encoding tests
(https://github.com/html5lib/html5lib-tests, MIT licence: encoding/tests1.dat,
tests2.dat and test-yahoo-jp.dat; not scripted/, which needs a script engine)
the cases of at most 1024 bytes, the prescan window the HTML Standard
advises (winnow looks at 8 KB: within 1024 bytes its answer must be the
standard's), and writes them as tests/data/html5lib/encoding.txt for
tests/unit/charset_prescan.c.

    python3 scripts/html5lib_encoding_cases.py HTML5LIB_TESTS_DIR COMMIT > tests/data/html5lib/encoding.txt

One case a line: the page's bytes (UTF-8, as the .dat files hold them) and
the encoding the tests expect (windows-1252 where nothing declares one),
separated by a tab, escaped as in charrefs.txt."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "ref"))
from html_unescape_cases import escape  # noqa: E402 (the case file's escapes, written once)

FILES = ("tests1.dat", "tests2.dat", "test-yahoo-jp.dat")
PRESCAN_WINDOW = 1024


def cases_of(text):
    """(data, encoding) of each #data/#encoding pair of a .dat file."""
    for chunk in text.split("#data\n")[1:]:
        data, encoding = chunk.split("#encoding\n")
        yield data[:-1] if data.endswith("\n") else data, encoding.strip()


def main() -> None:
    root, commit = sys.argv[1], sys.argv[2]
    sys.stdout.reconfigure(errors="surrogateescape")
    print("# html5lib-tests %s, encoding/{%s}: cases of at most %d bytes" % (commit, ",".join(FILES), PRESCAN_WINDOW))
    print("# (https://github.com/html5lib/html5lib-tests, MIT licence: see LICENSE here)")
    print("# written by scripts/html5lib_encoding_cases.py; input<TAB>expected encoding")
    for f in FILES:
        with open(os.path.join(root, f), encoding="utf-8", errors="surrogateescape") as fh:  # a few bytes are not UTF-8
            for data, encoding in cases_of(fh.read()):
                if len(data.encode("utf-8", "surrogateescape")) <= PRESCAN_WINDOW:
                    print("%s\t%s" % (escape(data), encoding))


if __name__ == "__main__":
    main()
