#!/usr/bin/env python3
"""html5lib_scriptdata_cases.py - extracts from html5lib-tests' tokenizer tests
(https://github.com/html5lib/html5lib-tests, MIT licence) the cases in the
script data state, and writes them as tests/data/html5lib/scriptdata.txt for
tests/unit/html_scriptdata.c.

    python3 scripts/html5lib_scriptdata_cases.py HTML5LIB_TESTS_DIR COMMIT > tests/data/html5lib/scriptdata.txt

The test parses "<script>" + input, so a case is kept when its last start
tag is script, or when it has none and its input holds no "</script" (then
whether that end tag would count cannot matter). Kept: the text of the
script element (the Character tokens before the first EndTag script, or
all of them) and the text after it, which the parser reads in the data
state again: what follows the end tag, each further "</script>" being an end
tag with nothing to close; a case whose rest holds other markup is left out.
Inputs with CR or NUL (newline and NUL handling of the input stream) and
double-escaped cases are left out. One case a line: input, script text,
text after, separated by tabs, escaped as in charrefs.txt."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "ref"))
from html_unescape_cases import escape, print_tokenizer_cases  # noqa: E402 (the case file's format, written once)

END_TAG = "</script>"


def case_of(test):
    """(input, script text, text after) for a test this file keeps, else None."""
    if "Script data state" not in test.get("initialStates", []) or test.get("doubleEscaped"):
        return None
    inp, out = test["input"], test["output"]
    if "\r" in inp or "\0" in inp:
        return None
    last = test.get("lastStartTag")
    if last not in (None, "script") or (last is None and "</script" in inp.lower()):
        return None
    script = []
    for tok in out:
        if tok[0] == "EndTag":
            break
        script.append(tok[1])
    script = "".join(script)
    if len(script) == len(inp):
        return (inp, script, "")
    rest = inp[len(script):]
    if not inp.startswith(script) or not rest.startswith(END_TAG):
        return None
    after = rest[len(END_TAG):].replace(END_TAG, "")
    if re.search("[<&]", after):
        return None
    return (inp, script, after)


def main() -> None:
    print_tokenizer_cases(sys.argv[1], sys.argv[2], "cases in the script data state", "html5lib_scriptdata_cases.py",
                          "input<TAB>script text<TAB>text after", case_of, lambda case: [escape(x) for x in case])


if __name__ == "__main__":
    main()
