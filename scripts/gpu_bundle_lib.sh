# gpu_bundle_lib.sh - what the device bundle scripts (scripts/gpu_*_bundle.sh)
# share; they source it. Each bundle is a folder the device tool carries:
# bin.tar.xz with the programs, then the data and scripts that bundle's run needs.

# bundle_programs DIR PROGRAM... - writes DIR/bin.tar.xz: each PROGRAM (NAME=PATH: PATH
# packed as NAME, e.g. an earlier build to time beside this one) and the shared libraries
# they need, with an $ORIGIN rpath (gpu_bundle.sh), less libstdc++, which the device image has.
bundle_programs() {
    bp_dir=$1; shift
    bp_tmp=$(mktemp -d)
    mkdir "$bp_tmp/out" "$bp_tmp/named"
    bp_progs=
    for bp_prog in "$@"; do
        case $bp_prog in
            *=*) cp "${bp_prog#*=}" "$bp_tmp/named/${bp_prog%%=*}"
                 bp_progs="$bp_progs $bp_tmp/named/${bp_prog%%=*}" ;;
            *) bp_progs="$bp_progs $bp_prog" ;;
        esac
    done
    sh "$(dirname "$0")/gpu_bundle.sh" "$bp_tmp/out" $bp_progs
    rm -f "$bp_tmp/out/libstdc++.so.6"
    (cd "$bp_tmp/out" && tar cJf - .) > "$bp_dir/bin.tar.xz"
    rm -rf "$bp_tmp"
}

# bundle_winnow_zstd DIR - writes DIR/bin.tar.xz with build/winnow (stripped: the bundle's
# size is limited) and zstd, for the device scripts that only run the command.
bundle_winnow_zstd() {
    bw_strip=$(mktemp -d)
    strip -o "$bw_strip/winnow" "$(dirname "$0")/../build/winnow"
    bundle_programs "$1" "$(command -v zstd)" "winnow=$bw_strip/winnow"
    rm -rf "$bw_strip"
}

# bundle_tokref_jsonl SHARED CORPUS OUT - tokref CORPUS (en_code, multi, ...) as JSONL, zstd -19, in OUT.
bundle_tokref_jsonl() {
    python3 "$(dirname "$0")/tokenize_tokref.py" jsonl "$1/tokref/$2.txt.zst" "$1/tokref/$2.idx.tsv" 0 |
        zstd -q -19 -T2 > "$3"
}
