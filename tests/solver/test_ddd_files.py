"""The disk search's files (issue 15; docs/ARCHITECTURE.md, "The files"): keys as LEB128 differences from the key before,
records front-coded, both through zlib. Corner cases round-trip exactly; a damaged or truncated file is an
I/O error (never a crash, never other keys); the search's disk figures are the files' real bytes."""
import errno
import os
import random
import struct

import pytest

from solver import deals, disksearch
from solver.errors import FreecellError
from solver.rules import STANDARD
from solver.search import P64_SIZE, ffi, lib

SMALL = 1 << 16
KEY = 24                    # bytes a key (fc_ddd_file_write/read): its low, middle and high 64 bits
TOP = 2 ** 191 - 1          # the largest key: bit 191 is never used (it marks a successor that does not pack)
M64 = 2 ** 64 - 1


def _pack(items, recs):
    if recs:
        return b"".join(items)
    return b"".join(struct.pack("=QQQ", k & M64, k >> 64 & M64, k >> 128) for k in items)


def write(path, items, recs=False):
    """The file's bytes, or ("error", errno)."""
    err = ffi.new("int *")
    n = lib.fc_ddd_file_write(str(path).encode(), int(recs), _pack(items, recs), len(items), err)
    return n if n >= 0 else ("error", err[0])


def read(path, recs=False, cap=1 << 16):
    """The elements read back, or ("error", errno)."""
    size = P64_SIZE if recs else KEY
    out, err = ffi.new("uint8_t[]", size * cap), ffi.new("int *")
    n = lib.fc_ddd_file_read(str(path).encode(), int(recs), out, cap, err)
    if n < 0:
        assert n == lib.FC_EIO
        return ("error", err[0])
    assert n <= cap
    blob = ffi.buffer(out, size * n)[:]
    if recs:
        return [blob[i:i + size] for i in range(0, len(blob), size)]
    return [lo | mid << 64 | hi << 128 for lo, mid, hi in struct.iter_unpack("=QQQ", blob)]


@pytest.mark.parametrize("keys", [
    [],                                                   # an empty file (a layer or run of no keys)
    [0],                                                  # one key, the smallest
    [TOP],                                                # one key, the largest: a difference of 2^191 - 1
    [0, TOP],                                             # the largest difference after a first key
    [2 ** 127 - 1, 2 ** 127, 2 ** 128 - 1],               # past the 16-byte key's 127 bits (format 2's largest)
    [5 | 1 << 64, 5 | 2 << 64, 5 | 1 << 126],             # keys differing only in the middle word
    [5 | 1 << 128, 5 | 2 << 128, 5 | 1 << 190],           # ... only in the high word
    [2 ** 64 - 1, 2 ** 64],                               # a carry from the low word into the middle one
    [2 ** 128 - 1, 2 ** 128],                             # from the middle word into the high one
    [2 ** 128 - 1, 2 ** 129 + 2 ** 64 - 1, 2 ** 129 + 2 ** 64],   # borrows across words in the differences
    [7, 7, 7, 9, 9, TOP, TOP],                            # repeats (allowed; the search writes none)
    list(range(1000, 3000)),                              # differences of 1: one byte each
])
def test_keys_round_trip(tmp_path, keys):
    f = tmp_path / "k"
    size = write(f, keys)
    assert size == os.path.getsize(f) and size > 0     # a zlib stream even for no keys
    assert read(f) == keys


def test_random_keys_round_trip_and_dense_ones_take_little(tmp_path):
    rnd = random.Random(15)
    for bits in (191, 160, 129, 127, 100, 64, 40, 20):
        keys = sorted(rnd.getrandbits(bits) for _ in range(5000))
        assert write(tmp_path / "k", keys) > 0 and read(tmp_path / "k") == keys
    dense = sorted(rnd.sample(range(1 << 20), 20000))      # gaps of 52 on average: about 7 bits a key
    assert write(tmp_path / "d", dense) < 1.2 * len(dense)                   # (0.95 B a key measured)
    assert write(tmp_path / "h", [k << 100 for k in dense]) < 2.5 * len(dense)   # only in the middle word (2.0)
    assert write(tmp_path / "t", [k << 160 for k in dense]) < 2.5 * len(dense)   # only in the high word
    assert read(tmp_path / "d") == dense and read(tmp_path / "h") == [k << 100 for k in dense]
    assert read(tmp_path / "t") == [k << 160 for k in dense]


def test_keys_must_ascend_and_fit_in_191_bits(tmp_path):
    assert write(tmp_path / "k", [3, 2]) == ("error", errno.EINVAL)
    assert write(tmp_path / "k", [1 << 64, (1 << 64) - 1]) == ("error", errno.EINVAL)
    assert write(tmp_path / "k", [1 << 128, (1 << 128) - 1]) == ("error", errno.EINVAL)
    assert write(tmp_path / "k", [2 ** 191]) > 0          # written, but no key: the reader refuses it
    assert read(tmp_path / "k") == ("error", errno.EIO)
    assert write(tmp_path / "k", [5, 2 ** 191 + 4]) > 0   # the same past a first key (a carry out of 191 bits)
    assert read(tmp_path / "k") == ("error", errno.EIO)


def test_an_encoded_key_longer_than_192_bits_is_refused(tmp_path):
    """A difference of 29 LEB128 bytes (more than 192 bits), or of 28 whose last byte has bits past bit 191:
    refused as EIO. The file is written by hand: a head and one raw deflate block (docs/ARCHITECTURE.md, "The files")."""
    import zlib
    write(tmp_path / "k", [1])
    head = (tmp_path / "k").read_bytes()[:32]

    def raw_file(encoded):
        z = zlib.compressobj(1, zlib.DEFLATED, -15)
        body = z.compress(encoded) + z.flush(zlib.Z_FINISH)
        lens = struct.pack("<II", len(body), len(encoded))
        return head + lens + struct.pack("<I", zlib.crc32(body, zlib.crc32(lens))) + body

    top = bytes([255] * 27 + [127])              # 2^196 - 1 in 28 bytes: bits 192..195 set
    fits = bytes([255] * 27 + [7])               # 2^192 - 1: bit 191 set (not a key either)
    ok = bytes([255] * 27 + [3])                 # 2^191 - 1: the largest key
    for enc, want in ((bytes([128] * 28 + [1]), ("error", errno.EIO)), (top, ("error", errno.EIO)),
                      (fits, ("error", errno.EIO)), (ok, [TOP])):
        (tmp_path / "k").write_bytes(raw_file(enc))
        assert read(tmp_path / "k") == want, enc


def _rec(*cards):
    return bytes(cards) + bytes(P64_SIZE - len(cards))


@pytest.mark.parametrize("recs", [
    [],
    [_rec()],                                             # the all-zero record (first: shares nothing)
    [_rec(0, 5), _rec(0, 6), _rec(1)],                    # a first record beginning with 0
    [_rec(*range(1, 65))],                                # no trailing zero
    [_rec(3, 4, 5), _rec(3, 4, 5, 1), _rec(3, 4, 6), _rec(*([3, 4, 6] + [52] * 61))],
    [_rec(9), _rec(9)],                                   # a repeat (allowed)
])
def test_records_round_trip(tmp_path, recs):
    f = tmp_path / "r"
    assert write(f, recs, recs=True) == os.path.getsize(f)
    assert read(f, recs=True) == recs


def test_records_must_ascend(tmp_path):
    assert write(tmp_path / "r", [_rec(2), _rec(1)], recs=True) == ("error", errno.EINVAL)
    assert write(tmp_path / "r", [_rec(2, 1), _rec(2)], recs=True) == ("error", errno.EINVAL)


def test_more_elements_than_cap_are_counted(tmp_path):
    keys = list(range(0, 30000, 3))
    write(tmp_path / "k", keys)
    err = ffi.new("int *")
    out = ffi.new("uint8_t[]", KEY * 10)
    assert lib.fc_ddd_file_read(str(tmp_path / "k").encode(), 0, out, 10, err) == len(keys)


def _sample_keys():
    """About 1,300 bytes of file."""
    rnd = random.Random(7)
    return sorted(set(rnd.getrandbits(30) << 60 | rnd.getrandbits(24) for _ in range(120)))


@pytest.mark.parametrize("recs", [False, True])
def test_a_truncated_file_is_an_io_error(tmp_path, recs):
    """Every cut of the file (from nothing to all but its last byte) is refused: EIO."""
    items = _sample_keys()
    if recs:
        items = sorted({k.to_bytes(16, "big") + bytes(48) for k in items})
    f = tmp_path / "f"
    whole = write(f, items, recs)
    data = f.read_bytes()
    assert read(f, recs) == items
    for cut in range(whole):
        f.write_bytes(data[:cut])
        assert read(f, recs) == ("error", errno.EIO), cut


@pytest.mark.parametrize("recs", [False, True])
def test_a_damaged_file_is_an_io_error_never_other_keys(tmp_path, recs):
    """Each byte of the file in turn changed (all bits flipped, then one bit), and bytes after its end: refused
    as EIO, every one (the head is compared whole; each block's CRC-32 covers its two lengths and its deflated
    bytes, checked before they are inflated: format 1's, of the inflated bytes, let a few bits zlib does not
    read pass, with the same elements); never other elements."""
    items = _sample_keys()
    if recs:
        items = sorted({k.to_bytes(16, "big") + bytes(48) for k in items})
    f = tmp_path / "f"
    write(f, items, recs)
    data = f.read_bytes()
    same = []
    for i in range(len(data)):
        for flip in (0xFF, 1 << (i % 8)):
            bad = bytearray(data)
            bad[i] ^= flip
            f.write_bytes(bytes(bad))
            got = read(f, recs)
            assert got == ("error", errno.EIO) or got == items, (i, flip)
            if got == items:
                same.append(i)
    assert same == []
    f.write_bytes(data + b"\0")
    assert read(f, recs) == ("error", errno.EIO)
    f.write_bytes(b"")
    assert read(f, recs) == ("error", errno.EIO)


def test_a_missing_file_is_its_errno(tmp_path):
    assert read(tmp_path / "none") == ("error", errno.ENOENT)


def test_the_disk_figures_are_the_files_bytes(tmp_path):
    """#11982 on disk: at the end of the search and after the sort for the certificate, `disk` is the sum of
    the files' sizes, under 16 bytes a position (they were keys x 16 before the files were compressed)."""
    r = disksearch.explore_disk(deals.ms_deal(11982), STANDARD, SMALL, tmp=str(tmp_path))
    try:
        folder = r.search.dir
        st = r.search.stats()
        sizes = sum(os.path.getsize(os.path.join(folder, n)) for n in os.listdir(folder))
        assert (st.states, st.disk) == (84767, sizes)
        assert 0 < sizes < 4 * st.states and st.disk <= st.disk_peak < 16 * st.states
        batches = r.search.sorted_batches(1000)
        first = next(batches)
        st = r.search.stats()
        names = [n for n in os.listdir(folder) if n != disksearch.OWNER_FILE]   # and the folder's empty lock
        assert names and all(n.startswith("S") for n in names)     # the layers became sorted runs
        assert st.disk == sum(os.path.getsize(os.path.join(folder, n)) for n in names) < 16 * st.states
        assert len(first) + sum(len(b) for b in batches) == 84767 * P64_SIZE
    finally:
        r.close()


def test_a_damaged_layer_file_stops_the_sort_as_an_io_error(tmp_path):
    """The layer files cut short after the search: the sort for the certificate fails with one FreecellError
    line (EIO), and nothing is certified."""
    r = disksearch.explore_disk(deals.ms_deal(11982), STANDARD, SMALL, tmp=str(tmp_path))
    try:
        folder = r.search.dir
        for n in os.listdir(folder):
            path = os.path.join(folder, n)
            with open(path, "r+b") as fh:
                fh.truncate(os.path.getsize(path) // 2)
        with pytest.raises(FreecellError, match=r"^the disk search enumerated all 84,767 positions, but sorting "
                                                r"them for the certificate failed: .*Input/output error"):
            list(r.search.sorted_batches(1000))
    finally:
        r.close()
    assert os.listdir(tmp_path) == []


def test_a_file_begins_with_its_head_and_another_head_is_refused(tmp_path):
    """Every file begins with a head of 32 bytes (docs/ARCHITECTURE.md, "The files"): the magic FCDK, the format (3), the
    search's random number (0 for these test files), its kind's letter and its number. A file without it (format
    1: a zlib stream right away) or whose head names another kind, number or search is refused (EIO) before any
    key is read."""
    keys = list(range(100, 5000, 7))
    f = tmp_path / "k"
    write(f, keys)
    data = f.read_bytes()
    assert data[:32] == b"FCDK" + struct.pack("<IQQQ", 3, 0, ord("L"), 0)
    assert write(tmp_path / "r", [_rec(1)], recs=True) and (tmp_path / "r").read_bytes()[16] == ord("S")
    for at, size, value in ((4, 4, 1), (4, 4, 2), (8, 8, 12345), (16, 8, ord("R")), (24, 8, 3)):   # format 1, 2,
        bad = bytearray(data)                                                    # another search, kind, number
        bad[at:at + size] = value.to_bytes(size, "little")
        f.write_bytes(bytes(bad))
        assert read(f) == ("error", errno.EIO), at
    f.write_bytes(data[32:])                     # no head at all
    assert read(f) == ("error", errno.EIO)
    f.write_bytes(data)
    assert read(f) == keys
