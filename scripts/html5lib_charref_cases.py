#!/usr/bin/env python3
"""html5lib_charref_cases.py - extracts from html5lib-tests' tokenizer tests
(https://github.com/html5lib/html5lib-tests, MIT licence) the cases about
character references that winnow's HTML parser can be checked on, and writes
them as tests/data/html5lib/charrefs.txt for tests/unit/html_charref.c.

    python3 scripts/html5lib_charref_cases.py HTML5LIB_TESTS_DIR COMMIT > tests/data/html5lib/charrefs.txt

Kept: cases in the data state (no initialStates), not double-escaped, whose
input holds an '&' and is either text alone (no '<'; output only Character
tokens: the expected text) or one start tag with one attribute (output one
StartTag: the expected value of that attribute). Inputs with CR or NUL are
left out: the input stream's newline and NUL handling is not what these
tests are about. One case a line: kind (text or attr), input, expected,
separated by tabs; backslash, tab, newline and other control characters
written as \\\\, \\t, \\n and \\xHH."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "ref"))
from html_unescape_cases import escape, print_tokenizer_cases  # noqa: E402 (the case file's format, written once)


def case_of(test):
    """(kind, input, expected) for a test this file keeps, else None."""
    inp, out = test["input"], test["output"]
    if test.get("initialStates") or test.get("doubleEscaped") or "&" not in inp:
        return None
    if "\r" in inp or "\0" in inp:
        return None
    if "<" not in inp and all(tok[0] == "Character" for tok in out):
        return ("text", inp, "".join(tok[1] for tok in out))
    if (len(out) == 1 and out[0][0] == "StartTag" and len(out[0]) == 3 and len(out[0][2]) == 1
            and inp.startswith("<") and inp.endswith(">") and inp.count("<") == 1 and inp.count(">") == 1):
        (name, value), = out[0][2].items()
        if name == "a":
            return ("attr", inp, value)
    return None


def main() -> None:
    print_tokenizer_cases(sys.argv[1], sys.argv[2], "cases about character references", "html5lib_charref_cases.py",
                          "kind<TAB>input<TAB>expected", case_of, lambda case: [case[0], escape(case[1]), escape(case[2])])


if __name__ == "__main__":
    main()
