#!/usr/bin/env python3
"""fasttext_edit.py - writes a changed copy of a fastText model file, for tests.

    python3 tests/ref/fasttext_edit.py EDIT IN OUT

The layout is read as fastText 0.9.2's FastText::saveModel writes it (src/
fasttext.cc, args.cc, dictionary.cc, densematrix.cc, quantmatrix.cc,
productquantizer.cc): int32 magic and version; Args (twelve int32: dim ws
epoch minCount neg wordNgrams loss model bucket minn maxn lrUpdateRate, and a
double); the dictionary (int32 size, nwords, nlabels, int64 ntokens,
pruneidx_size; each entry a NUL-ended string, int64 count, int8 type; then
pruneidx_size pairs of int32 bucket, row); bool quant_input and the input
matrix; bool qout and the output matrix. A dense matrix is int64 rows, cols
and rows x cols floats; a quantized one is bool qnorm, int64 rows, cols,
int32 codesize, the codes, a product quantizer (int32 dim, nsubq, dsub,
lastdsub, dim x 256 floats), and with qnorm the norm codes (one a row) and a
quantizer of dim 1.

EDIT is one of:
  dup-word      each even-numbered word takes the string of the next word when
                both have the same length (Dictionary::load: the later entry
                of a string is the word)
  dup-bucket    each even-numbered pruned pair takes the bucket of the next
                pair (pruneidx_[bucket] = row: the later pair wins)
  prune-past    the first pruned pair's row points one past the input matrix
  output-extra  the output matrix gets one more row (of zeros)
  nan-weight    the input matrix's first weight becomes NaN
  bucket-zero   Args.bucket becomes 0 (the model has char n-grams)
Prints what it changed."""
import struct
import sys

ARGS_AT = 8
DICT_AT = ARGS_AT + 12 * 4 + 8


def layout(b):
    """Offsets of the fields the edits change."""
    size, nwords, nlabels, _, prune_size = struct.unpack_from('<iiiqq', b, DICT_AT)
    at = DICT_AT + 28
    entries = []
    for _ in range(size):
        end = b.index(b'\0', at)
        entries.append((at, end - at))
        at = end + 1 + 9
    pairs_at = at
    at += 8 * max(prune_size, 0)
    quant_input = b[at]
    input_at = at + 1
    if quant_input:
        qnorm = b[input_at]
        rows, cols, codesize = struct.unpack_from('<qqi', b, input_at + 1)
        pq_at = input_at + 1 + 20 + codesize
        dim = struct.unpack_from('<i', b, pq_at)[0]
        at = pq_at + 16 + 4 * dim * 256
        if qnorm:
            at += rows + 16 + 4 * 256
        weights_at = pq_at + 16
    else:
        rows, cols = struct.unpack_from('<qq', b, input_at)
        weights_at = input_at + 16
        at = weights_at + 4 * rows * cols
    qout_at = at
    return dict(nwords=nwords, nlabels=nlabels, entries=entries, prune_size=prune_size, pairs_at=pairs_at,
                input_rows=rows, input_weights_at=weights_at, qout_at=qout_at)


def main():
    edit, src, dst = sys.argv[1:4]
    b = bytearray(open(src, 'rb').read())
    m = layout(b)
    if edit == 'dup-word':
        words = m['entries'][:m['nwords']]
        done = 0
        for i in range(0, len(words) - 1, 2):
            (a, la), (c, lc) = words[i], words[i + 1]
            if la == lc:
                b[a:a + la] = b[c:c + lc]
                done += 1
        print('%d words duplicated' % done)
    elif edit == 'dup-bucket':
        at, n = m['pairs_at'], m['prune_size']
        for i in range(0, n - 1, 2):
            b[at + 8 * i:at + 8 * i + 4] = b[at + 8 * (i + 1):at + 8 * (i + 1) + 4]
        print('%d buckets duplicated' % (n // 2))
    elif edit == 'prune-past':
        row = m['input_rows'] - m['nwords']
        struct.pack_into('<i', b, m['pairs_at'] + 4, row)
        print('pruned row %d of %d input rows past %d words' % (row, m['input_rows'], m['nwords']))
    elif edit == 'output-extra':
        at = m['qout_at']
        assert b[at] == 0, 'a dense output matrix'
        rows, cols = struct.unpack_from('<qq', b, at + 1)
        struct.pack_into('<q', b, at + 1, rows + 1)
        b += bytes(4 * cols)
        print('output matrix of %d rows' % (rows + 1))
    elif edit == 'nan-weight':
        struct.pack_into('<f', b, m['input_weights_at'], float('nan'))
        print('NaN at byte %d' % m['input_weights_at'])
    elif edit == 'bucket-zero':
        struct.pack_into('<i', b, ARGS_AT + 8 * 4, 0)
        print('bucket 0')
    else:
        sys.exit('unknown edit ' + edit)
    open(dst, 'wb').write(b)


main()
