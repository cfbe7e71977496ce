"""The disk search's smallest memory, a deal-like position whose shortest win is deeper than the layers
the disk search keeps apart, and the checksum of its state files."""

SMALL = 1 << 16             # the smallest --memory: 2,730 keys of 24 bytes, so a wide layer is many runs

# The black cards alone (the red ones home), 0 free cells: no card goes on another, so a shortest win digs the
# low cards out into the empty columns -- 34 moves, past DDD_MAXF = 32 layers (the oldest merged into one file
# at layer 32). 76,783 positions (198 up to column order); found by a random search over such layouts.
DEEP = (((39, 19, 28, 16), (35, 8, 7), (51, 44, 40), (23, 15, 27, 3, 43, 36, 20, 0), (11, 31, 32, 47, 48, 4, 24, 12),
         (), (), ()), (), (0, 13, 13, 0))


def fnv64(data):
    """FNV-1a of 64 bits: the checksum that ends the disk search's state files (search.state, sort.state)."""
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & (2 ** 64 - 1)
    return h
