#!/bin/sh
# gpu_bundle.sh - copies programs and the shared libraries they need (all but
# glibc's own) into DIR with an $ORIGIN rpath, so they run on a machine that
# lacks our Debian libraries (the lent GPU machine). usage: gpu_bundle.sh DIR PROGRAM...
set -eu
dir=$1; shift
mkdir -p "$dir"
for prog in "$@"; do
    cp "$prog" "$dir/"
    patchelf --set-rpath '$ORIGIN' "$dir/$(basename "$prog")"
    ldd "$prog" | awk '/=> \// {print $3}' | while read -r lib; do
        case $(basename "$lib") in
            libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*|libgcc_s.so*) continue ;;
        esac
        [ -e "$dir/$(basename "$lib")" ] && continue
        cp -L "$lib" "$dir/"
        patchelf --set-rpath '$ORIGIN' "$dir/$(basename "$lib")"
    done
done
