#!/bin/sh
# cli - the entry point: help, version, unknown commands and flags.
. tests/lib.sh

"$WINNOW" --version > "$TMP/v"; rc=$?
is "$rc" 0 "--version exits 0"
ok "--version prints the version" grep -Eq '^winnow [0-9]+\.[0-9]+\.[0-9]+$' "$TMP/v"
"$WINNOW" help > "$TMP/h"; is "$?" 0 "help exits 0"
ok "help lists the commands" grep -q '^commands:' "$TMP/h"
"$WINNOW" no-such-command 2> "$TMP/e"; is "$?" 1 "unknown command exits 1"
ok "unknown command is named" grep -q "unknown command 'no-such-command'" "$TMP/e"
"$WINNOW" 2>/dev/null; is "$?" 1 "no command exits 1"
# every listed command answers --help with exit 0 and rejects a bad flag with exit 1
for c in $(sed -n '/^commands:/,/^$/p' "$TMP/h" | awk 'NF && $1 != "commands:" && $1 != "help" {print $1}'); do
    "$WINNOW" "$c" --help > "$TMP/ch" 2>&1; is "$?" 0 "$c --help exits 0"
    ok "$c --help shows usage" grep -qi 'usage' "$TMP/ch"
    "$WINNOW" "$c" --no-such-flag < /dev/null > /dev/null 2>&1; is "$?" 1 "$c with a bad flag exits 1"
done
# an empty -o is a usage error naming the option, for every stage (tokenize once read the
# byte before the empty name to decide whether it named a directory)
for c in ingest filter dedup tokenize; do
    echo '{"text":"a b c"}' | "$WINNOW" "$c" -o "" > /dev/null 2> "$TMP/e"; is "$?" 1 "$c -o '' exits 1"
    ok "$c -o '' says what is wrong" grep -q "\-o wants a file name" "$TMP/e"
done
done_testing
