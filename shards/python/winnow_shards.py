"""winnow_shards - read a winnow token shard directory (format version 1).

Needs only numpy and zstandard (Debian: python3-numpy, python3-zstandard).
The format is documented in docs/shards.md; in short: DIR/manifest.json, and
per shard a seekable-zstd file of little-endian token ids (uint16 or uint32)
plus an index of document end offsets.

    from winnow_shards import ShardReader
    r = ShardReader("out/")
    r.num_tokens, r.num_documents, r.dtype, r.eos
    r.tokens(1000, 3000)          # numpy array of token ids
    r.document(17)                # one document, with the eos the writer added
    for w in r.windows(seq_len=2048, seed=1):   # (seq_len + 1)-token windows,
        x, y = w[:-1], w[1:]                     # in a seeded shuffled order

When torch is importable, WindowDataset(directory, seq_len) is a
torch.utils.data.Dataset over the same windows.

Every frame read is checked by zstd's own content checksum and its ids
against the vocabulary size; the manifest by its manifest_sha256 (a shard
list edited consistently is refused), its file names (plain names inside the
directory) and duplicate keys, as the C reader does. The XXH3/XXH64
checksums of the shards and seek tables need the xxhash module, which is
not required here: `winnow shards verify DIR` checks them all.
"""

import bisect
import collections
import hashlib
import json
import os
import struct

import numpy as np
import zstandard

FORMAT_NAME = "winnow-shards"
FORMAT_VERSION = 1
SKIPPABLE_MAGIC = 0x184D2A5E
SEEKABLE_MAGIC = 0x8F92EAB1
SEEK_FOOTER_BYTES = 9
SEEK_HEADER_BYTES = 8
CHECKSUM_FLAG = 0x80
SEEK_RESERVED_BITS = 0x7C  # bits 2..6 of the descriptor (zstd contrib/seekable_format)
DTYPES = {"uint16": "<u2", "uint32": "<u4"}
INDEX_MAGIC = b"WNWDOCS1"
INDEX_HEADER_BYTES = 32
INDEX_CONTINUES = 1
FRAME_CACHE = 8

__all__ = ["ShardReader", "ShardError", "FORMAT_VERSION"]


class ShardError(Exception):
    """A shard directory that does not match the format."""


def _no_duplicate_keys(pairs):
    """json object hook: a key given twice is refused (the C reader does the same)."""
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise ShardError(f"manifest: duplicate key {key!r}")
        obj[key] = value
    return obj


def _plain_name(name):
    """A shard or index file name must stay inside the directory (the C reader's rule)."""
    return isinstance(name, str) and name != "" and not name.startswith(".") and "/" not in name


def _manifest_digest(m):
    """SHA-256 of the manifest's canonical text (shards/manifest_digest.h, docs/shards.md)."""
    def truth(b):
        return "true" if b else "false"

    def ident(v):
        return "null" if v is None else str(v)

    t = m["tokenizer"]
    lines = [f"winnow-shards {m['version']}", f"tokenizer {t['name']}", f"vocab_sha256 {ident(t['vocab_sha256'])}",
             f"vocab_size {t['vocab_size']}", f"dtype {m['dtype']}",
             f"special {ident(m['special']['eos'])} {ident(m['special']['bos'])}",
             f"flags {truth(m['eos_appended'])} {truth(m['bos_prepended'])} {truth(m['split_docs'])}",
             f"frames {m['frame_bytes']} {m['zstd_level']} {m['shard_tokens']}",
             "totals {shards} {tokens} {documents} {compressed_bytes}".format(**m["totals"])]
    for e in m["shards"]:
        lines.append("shard {file} {index} {tokens} {documents} {compressed_bytes} {xxh3_64} {file_xxh3_64} ".format(**e)
                     + truth(e["continues_document"]))
    return hashlib.sha256(("\n".join(lines) + "\n").encode()).hexdigest()


class _Shard:
    """One shard file: its seek table and document index, opened for pread."""

    def __init__(self, directory, entry, itemsize):
        self.path = os.path.join(directory, entry["file"])
        self.tokens = entry["tokens"]
        self.continues = entry["continues_document"]
        self.fd = os.open(self.path, os.O_RDONLY)
        size = os.fstat(self.fd).st_size
        if size != entry["compressed_bytes"]:
            raise ShardError(f"{self.path}: {size} bytes, the manifest says {entry['compressed_bytes']}")
        self._read_seek_table(size, itemsize)
        if self.doffset[-1] != self.tokens * itemsize:
            raise ShardError(f"{self.path}: seek table holds {self.doffset[-1]} bytes, the manifest says {self.tokens} tokens")
        self._read_index(os.path.join(directory, entry["index"]), entry)

    def _read_seek_table(self, size, itemsize):
        if size < SEEK_HEADER_BYTES + SEEK_FOOTER_BYTES:
            raise ShardError(f"{self.path}: too short for a seek table")
        nframes, desc, magic = struct.unpack("<IBI", os.pread(self.fd, SEEK_FOOTER_BYTES, size - SEEK_FOOTER_BYTES))
        if magic != SEEKABLE_MAGIC:
            raise ShardError(f"{self.path}: no seekable-format magic at the end")
        if desc & SEEK_RESERVED_BITS:
            raise ShardError(f"{self.path}: seek table descriptor has reserved bits set")
        entry_bytes = 12 if desc & CHECKSUM_FLAG else 8
        table_len = SEEK_HEADER_BYTES + nframes * entry_bytes + SEEK_FOOTER_BYTES
        if table_len > size:
            raise ShardError(f"{self.path}: seek table longer than the file")
        table = os.pread(self.fd, table_len, size - table_len)
        skip_magic, frame_size = struct.unpack_from("<II", table, 0)
        if skip_magic != SKIPPABLE_MAGIC or frame_size != table_len - SEEK_HEADER_BYTES:
            raise ShardError(f"{self.path}: bad seek table frame header")
        fields = np.frombuffer(table, dtype="<u4", count=nframes * entry_bytes // 4, offset=SEEK_HEADER_BYTES)
        fields = fields.reshape(nframes, entry_bytes // 4).astype(np.uint64)
        self.coffset = np.concatenate([[0], np.cumsum(fields[:, 0])]).astype(np.uint64)
        self.doffset = np.concatenate([[0], np.cumsum(fields[:, 1])]).astype(np.uint64)
        if int(self.coffset[-1]) != size - table_len:
            raise ShardError(f"{self.path}: frame sizes do not add up to the file size")
        if np.any(fields[:, 1] % itemsize):
            raise ShardError(f"{self.path}: a frame holds a partial token")

    def _read_index(self, path, entry):
        with open(path, "rb") as f:
            data = f.read()
        if len(data) < INDEX_HEADER_BYTES + 8 or data[:8] != INDEX_MAGIC:
            raise ShardError(f"{path}: not a winnow document index")
        _version, flags, docs, tokens = struct.unpack_from("<IIQQ", data, 8)
        if len(data) != INDEX_HEADER_BYTES + 8 * docs + 8 or docs != entry["documents"] or tokens != self.tokens:
            raise ShardError(f"{path}: counts differ from the manifest or the file size")
        if bool(flags & INDEX_CONTINUES) != self.continues:
            raise ShardError(f"{path}: continuation flag differs from the manifest")
        self.ends = np.frombuffer(data, dtype="<u8", count=docs, offset=INDEX_HEADER_BYTES).astype(np.int64)
        if docs and (self.ends[-1] != tokens or np.any(np.diff(self.ends) < 0)):
            raise ShardError(f"{path}: document end offsets are not increasing up to the token count")

    def close(self):
        os.close(self.fd)


class ShardReader:
    """Random access to the tokens and documents of a shard directory.

    Token and document numbers are global over the directory, in the order
    the writer received them. Arrays come back in the stored dtype (uint16 or
    uint32). Keeps the last few decompressed frames, so sequential reads
    decompress each frame once.
    """

    def __init__(self, directory):
        self.directory = directory
        path = os.path.join(directory, "manifest.json")
        with open(path, "rb") as f:
            try:
                self.manifest = m = json.load(f, object_pairs_hook=_no_duplicate_keys)
            except ValueError as e:  # JSONDecodeError, or bytes that are not UTF-8
                raise ShardError(f"{path}: not a JSON manifest: {e}") from None
        version = m.get("version")  # an int, as the C reader takes it: true, 1.0 and -0 equal 1 or 0 in Python
        if m.get("format") != FORMAT_NAME or type(version) is not int or version != FORMAT_VERSION:
            raise ShardError(f"{directory}: not a {FORMAT_NAME} version {FORMAT_VERSION} directory")
        try:
            digest = _manifest_digest(m)
        except (KeyError, TypeError, UnicodeEncodeError) as e:  # the last: a lone surrogate escape
            raise ShardError(f"{directory}: manifest field missing or malformed: {e}") from None
        if m.get("manifest_sha256") != digest:
            raise ShardError(f"{directory}: manifest_sha256 does not match the manifest's shard list and counts: "
                             "it was edited or damaged")
        for e in m["shards"]:
            if not _plain_name(e["file"]) or not _plain_name(e["index"]):
                raise ShardError(f"{directory}: shard file name {e['file']!r} is not a plain name inside the directory")
            if e["continues_document"] and e["documents"] == 0:
                raise ShardError(f"{directory}: shard {e['file']!r} continues a document but lists no documents")
        if m["dtype"] not in DTYPES:
            raise ShardError(f"{directory}: \"dtype\" is {m['dtype']!r}, not uint16 or uint32")
        self.dtype = np.dtype(DTYPES[m["dtype"]])
        self.eos = m["special"]["eos"]
        self.bos = m["special"]["bos"]
        self.vocab_size = m["tokenizer"]["vocab_size"]
        self.num_tokens = m["totals"]["tokens"]
        self.num_documents = m["totals"]["documents"]
        self._shards = [_Shard(directory, e, self.dtype.itemsize) for e in m["shards"]]
        self._first_token, self._first_doc = [], []
        tokens = docs = 0
        for s in self._shards:
            self._first_token.append(tokens)
            self._first_doc.append(docs)
            tokens += s.tokens
            docs += len(s.ends) - (1 if s.continues else 0)
        if tokens != self.num_tokens or docs != self.num_documents:
            raise ShardError(f"{directory}: manifest totals do not match the shards")
        self._dctx = zstandard.ZstdDecompressor()
        self._cache = collections.OrderedDict()

    def close(self):
        for s in self._shards:
            s.close()
        self._shards = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __len__(self):
        return self.num_documents

    def __getitem__(self, doc):
        return self.document(doc)

    def _frame(self, si, fi):
        key = (si, fi)
        frame = self._cache.get(key)
        if frame is not None:
            self._cache.move_to_end(key)
            return frame
        s = self._shards[si]
        start, end = int(s.coffset[fi]), int(s.coffset[fi + 1])
        dsize = int(s.doffset[fi + 1] - s.doffset[fi])
        try:
            raw = self._dctx.decompress(os.pread(s.fd, end - start, start), max_output_size=dsize)
        except zstandard.ZstdError as e:
            raise ShardError(f"{s.path}: frame {fi} at offset {start}: {e}") from None
        if len(raw) != dsize:
            raise ShardError(f"{s.path}: frame {fi} at offset {start}: {len(raw)} bytes, the seek table says {dsize}")
        frame = np.frombuffer(raw, dtype=self.dtype)
        if len(frame) and int(frame.max()) >= self.vocab_size:
            raise ShardError(f"{s.path}: frame {fi} holds id {int(frame.max())}, not below the vocabulary size {self.vocab_size}")
        self._cache[key] = frame
        if len(self._cache) > FRAME_CACHE:
            self._cache.popitem(last=False)
        return frame

    def tokens(self, start, stop):
        """Tokens [start, stop) as a numpy array."""
        if not 0 <= start <= stop <= self.num_tokens:
            raise IndexError(f"tokens {start}..{stop} outside 0..{self.num_tokens}")
        out = np.empty(stop - start, dtype=self.dtype)
        pos, width = start, self.dtype.itemsize
        while pos < stop:
            si = bisect.bisect_right(self._first_token, pos) - 1
            s = self._shards[si]
            byte = (pos - self._first_token[si]) * width
            fi = int(np.searchsorted(s.doffset, byte, side="right")) - 1
            frame = self._frame(si, fi)
            first = (byte - int(s.doffset[fi])) // width
            k = min(stop - pos, len(frame) - first)
            out[pos - start:pos - start + k] = frame[first:first + k]
            pos += k
        return out

    def document_range(self, doc):
        """Global token range (start, stop) of document doc."""
        if not 0 <= doc < self.num_documents:
            raise IndexError(f"document {doc} outside 0..{self.num_documents}")
        si = bisect.bisect_right(self._first_doc, doc) - 1
        s = self._shards[si]
        j = doc - self._first_doc[si] + (1 if s.continues else 0)
        start = self._first_token[si] + (int(s.ends[j - 1]) if j else 0)
        stop = self._first_token[si] + int(s.ends[j])
        # a document cut by --split-docs goes on in the next shards
        while j + 1 == len(self._shards[si].ends) and si + 1 < len(self._shards) and self._shards[si + 1].continues:
            si, j = si + 1, 0
            stop = self._first_token[si] + int(self._shards[si].ends[0])
        return start, stop

    def document(self, doc):
        """Document doc's tokens, with any bos/eos the writer added."""
        return self.tokens(*self.document_range(doc))

    def documents(self):
        """Every document in order."""
        for d in range(self.num_documents):
            yield self.document(d)

    def num_windows(self, seq_len):
        """Number of (seq_len + 1)-token windows: window k starts at token k * seq_len."""
        return max(0, (self.num_tokens - 1) // seq_len)

    def window(self, k, seq_len):
        """Window k: tokens [k * seq_len, (k + 1) * seq_len + 1), inputs and shifted targets."""
        return self.tokens(k * seq_len, (k + 1) * seq_len + 1)

    def window_order(self, seq_len, seed, epoch=0, rank=0, world_size=1):
        """The shuffled window numbers this rank reads: a permutation fixed by (seed, epoch), split round-robin over ranks."""
        order = np.random.default_rng([seed, epoch]).permutation(self.num_windows(seq_len))
        return order[rank::world_size]

    def windows(self, seq_len, seed=0, epoch=0, rank=0, world_size=1):
        """Yields (seq_len + 1)-token windows in a seeded shuffled order."""
        for k in self.window_order(seq_len, seed, epoch, rank, world_size):
            yield self.window(int(k), seq_len)


try:
    import torch
    import torch.utils.data
except ImportError:
    torch = None

if torch is not None:

    class WindowDataset(torch.utils.data.Dataset):
        """torch Dataset of (seq_len + 1)-token windows as int64 tensors; shuffle with the sampler,
        or use ShardReader.window_order for the same seeded order as ShardReader.windows."""

        def __init__(self, directory, seq_len):
            self.directory, self.seq_len = directory, seq_len
            self._reader = None
            with ShardReader(directory) as r:
                self._len = r.num_windows(seq_len)

        def __len__(self):
            return self._len

        def __getitem__(self, k):
            if self._reader is None:  # opened in each worker process
                self._reader = ShardReader(self.directory)
            return torch.from_numpy(self._reader.window(k, self.seq_len).astype(np.int64))

    __all__.append("WindowDataset")
