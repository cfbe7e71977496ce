/* fc_internal.h -- what the C core's files share behind fc.h (the public contract cffi reads): the types
 * (ctx_t, fkey_t, the packed keys, struct fc_search), the hot helpers as static inline functions (column
 * words, packing, autoplay, hashing, the store's key access) and the functions one file gives another.
 * docs/ARCHITECTURE.md, "The C core", says which file does what; a section named in quotes here and in the
 * core's files ("The compact store", "The files", ...) is one of that document. Plain C99, no global mutable
 * state.
 */
#ifndef FC_INTERNAL_H
#define FC_INTERNAL_H
#define _POSIX_C_SOURCE 200809L   /* the disk search's checkpoints: fsync, stat, readdir (POSIX) */
#include <stdint.h>
#include "fc.h"
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A function one file of the core gives another: kept out of the module's exported symbols. */
#if defined(__GNUC__)
#define FC_HIDDEN __attribute__((visibility("hidden")))
#else
#define FC_HIDDEN
#endif

#define WMASK 0x0FFFFFFFu
#define HMASK 0xF0000000u
#define HOME1 0x10000000u
#define MAX_STATES_CAP 0x7FFFFFFFull
#define HANDUSED (1u << 28)  /* in w[4]'s free top nibble: the hand's favor has been used (rules.hand) */
#define HAND_MAX_SUCC 16384  /* successors with the favor: per column top (8) at most 176 inner moves x 10
                                places to put the card down, plus the single moves and supermoves */
#define SOLVE_MAX_SUCC 512   /* successors of one position with the solver's sequence moves: a bound
                                (per column 9 single moves + 7 + 12 sequence moves, 8 cells x 9, 4 x 8
                                returns: 328) */

#if defined(__GNUC__)
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#define PREFETCH(p) __builtin_prefetch(p)
static inline int popc64(uint64_t x) {
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return (int)((x * 0x0101010101010101ull) >> 56);
}
static inline int ctz64(uint64_t x) { return __builtin_ctzll(x); }
#else
#define LIKELY(x) (x)
#define UNLIKELY(x) (x)
#define PREFETCH(p) ((void)0)
static inline int popc64(uint64_t x) { int n = 0; while (x) { x &= x - 1; n++; } return n; }
static inline int ctz64(uint64_t x) { int n = 0; while (!(x & 1)) { x >>= 1; n++; } return n; }
#endif

typedef struct {
    uint32_t w[8];
    uint64_t cells;
} fkey_t;

typedef struct {
    uint8_t orig[8][52];     /* the start position's columns, bottom -> top */
    uint8_t olen[8];
    uint8_t colof[52];       /* column whose bottom card (at the start) this card is; 0xFF if none */
    uint32_t oword[8][53];   /* word of the original prefix of length L of column i */
    uint8_t osorted[8][53];  /* 1: the original prefix of length L of column i never rises in rank */
    uint8_t opos[52];        /* a card's index (from the bottom) in its start column; 0xFF if in none */
    uint8_t ocol[52];        /* its start column */
    uint8_t head[4096];      /* head[w & 0xFFF]: the top card of the base (c_0 and L) of word w */
    int cells, fret, autoplay, canonical;
    int super;               /* the solver's sequence moves (gen_mv only) */
    int supermoves;          /* fc_rules.supermoves: gen adds every supermove (gen_super, all empty targets) */
    int hand;                /* fc_rules.hand: gen adds the favor moves (gen_favor) while HANDUSED is clear */
    int pflags;              /* the solver's move pruning, FC_PRUNE_* (gen_mv only) */
    /* the compact key (see "The compact store") */
    int hb, cb;              /* bits of a column's head code; bits of the cell set's rank */
    int maxolen;             /* the longest start column */
    int kbits;               /* bits a packed key may use: 127 (memory store), DDD_KBITS (disk search; fc_ddd_new's
                                key_bits lowers it, for tests) */
    uint8_t hcode[4096];     /* canonical mode: head code of (c0 | L << 6); 0xFF when none */
    uint16_t hword[256];     /* canonical mode: (c0 | L << 6) of head code */
    uint32_t pcnt[8][53];    /* cards of each suit (one byte each) in the original prefix of length L */
    uint32_t binom[53][9];   /* C(n, k) for the cell set's rank */
    uint32_t coff[10];       /* coff[k]: the cell sets of fewer than k cards */
    uint8_t cinv[9][1024];   /* the largest x with C(x, j) <= b << csh[j]: where unranking starts */
    uint8_t csh[9];
    uint8_t tops[52][16][2]; /* tops[head][chain length][last chain bit]: a column's top card (w_top) */
    uint8_t under[52][2];    /* the two cards that go onto card p (one rank lower, the other colour), clubs or
                                diamonds first; 52 + those suits for an ace (no card) */
    uint64_t underm[52];     /* the same two as bits (bits 52..55: none) */
    /* popw[w & 0xFFF]: the word of the base (c_0 and L) of word w less its top card (0 for one card). Written
       by every ctx_setup for the bases of its start (not cleared: 16 KiB, and the solver sets a context up for
       every stage of every deal); w_pop reads other entries only to mask them out. binfo likewise. */
    uint32_t popw[4096];
    uint16_t binfo[4096];    /* alike: of the base, its cards above a lower card of it (bits 0-5), its lowest rank0
                                (6-9) and its top card's rank0 (10-13), for best.c's score */
} ctx_t;

typedef struct { uint64_t lo, hi; } ckey_t;   /* a compact key: 128 bits (see "The compact store") */
typedef struct { uint64_t lo, mid, hi; } dkey_t;   /* the disk search's key: 192 bits (see "The enumeration on disk") */

#define OVF (1ull << 63)     /* in ckey_t.hi: not a packed position but an index (lo) into the overflow keys */
#define DOVF (1ull << 63)    /* in dkey_t.hi: a successor that does not pack (the disk search's overflow set) */
/* The disk search's key holds every position: per column (8) a head code (hb <= 8 bits: hcode is a uint8_t)
   and, when not empty, 4 bits of chain length and a bit per chain card; the chain cards of all columns are
   distinct cards, at most 52; the cell set's rank (cb <= 30: the sets of at most 8 of 52 cards are
   909,574,394 < 2^30); the hand's bit. 8 * (8 + 4) + 52 + 30 + 1 = 179 bits <= DDD_KBITS (ddd_make checks
   the figures of its start, 8 * (hb + 4) + 52 + cb + hand, too). */
#define DDD_KBITS 191
typedef char ddd_key_holds_every_position[8 * (8 + 4) + 52 + 30 + 1 <= DDD_KBITS ? 1 : -1];
#define BLKBITS 16           /* keys per block of the arena: 2^16 */
#define ZWORDS 512           /* words of the parent bitmap per directory entry */

struct fc_search {
    ctx_t c;
    int compact;             /* 1: 16-byte ckey_t keys; 0: 40-byte fkey_t keys (FC_ORDER_BEST, too big, or few yet) */
    int packs;               /* 1: the store moves to compact keys once it holds compact_at positions (BFS/DFS) */
    uint64_t compact_at;
    size_t ks;               /* bytes per stored key */
    uint8_t **blk;           /* the arena: blocks of 2^BLKBITS keys, in discovery order (the BFS queue) */
    uint64_t nblk, blkcap;
    fkey_t *ovf;             /* compact: the positions that do not pack into 127 bits, as fkey_t */
    uint64_t novf, ovfcap;
    uint32_t *table;         /* open addressing, linear probing: (index+1) | tag << ib; 0 = free */
    uint64_t tsize, tmax;    /* slots; states the table takes before it grows (tsize * 4/5) */
    int ib;                  /* bits of index+1 in a slot; the other 32-ib bits are a hash tag */
    uint64_t count, head;
    uint64_t max_states;
    int stop_on_win, order;
    uint32_t *stack;         /* DFS: states found but not expanded yet (freed when the search is done) */
    uint64_t sp, scap;
    uint64_t expanded;
    uint64_t generated;
    int max_home, won, status;
    int64_t won_index;
    /* parents, FC_ORDER_BFS/DFS: a bitmap of events in time order, 1 = an expansion begins, 0 = a state
       is stored (states 1, 2, ...): state i's parent is the state whose expansion the i-th 0 falls in
       (BFS: expansion j is state j; DFS: replayed from the bitmap, see walk_parents) */
    uint64_t *pbit;
    uint64_t nbits, pbcap, nzero;
    uint64_t *zdir;          /* zdir[b]: zeros before bit b * ZWORDS * 64 */
    uint64_t nzdir, zdcap;
    fkey_t buf[SOLVE_MAX_SUCC];
    ckey_t cbuf[SOLVE_MAX_SUCC];
    uint64_t hbuf[SOLVE_MAX_SUCC];
    fkey_t *bigbuf;          /* rules.hand: HAND_MAX_SUCC successors (keys, packed keys, hashes, fresh) */
    ckey_t *bigck;
    uint64_t *bighash;
    uint32_t *bigfresh;
    /* FC_ORDER_BEST only */
    uint32_t *parent;        /* the state whose expansion first found state i */
    uint64_t pcap;
    uint16_t *mv;            /* the move (code, columns as in the parent's stored key) that made state i */
    uint16_t *dep;           /* moves from the start (saturating) */
    uint64_t *heap;          /* min-heap of (score << 32 | ~index) */
    uint64_t hn, hcap;
    uint32_t *bq;            /* best.c's buckets of the smaller keys, beside the heap */
    uint64_t bqcap, bqn;
    uint32_t bqmin;
    int w[FC_NWEIGHTS];
    fkey_t start_raw;        /* the start as given (before autoplay, columns in place) */
    uint16_t mvbuf[SOLVE_MAX_SUCC];
    uint8_t frombuf[SOLVE_MAX_SUCC];  /* the source of each: a column, FC_TO_CELL or FC_TO_HOME */
};

#define MV_HOMEALL 0xFFFFu   /* mv of a won state stored as the child of a sorted position */
#define MV_SUPER 0x8000u     /* mv flag: the card and every card above it, moved in one step */
/* ---- cards ---- */
static inline int rank0(int c) { return c >> 2; }            /* rank - 1 */
static inline int suit(int c) { return c & 3; }
static inline int isred(int c) { return (c ^ (c >> 1)) & 1; }
static inline int stacks(int x, int p) { return rank0(p) == rank0(x) + 1 && isred(p) != isred(x); }

/* ---- column words ---- */
static inline int w_chain(uint32_t w) { return (int)((w >> 12) & 15); }

static inline int w_head(const ctx_t *c, uint32_t w) { return c->head[w & 0xFFF]; }

/* The top card of a column whose base's top card is head, with a chain of ch cards whose last bit is lb: the
   chain alternates colours from the head, and a chain card's bit picks its suit. */
static inline int top_of(int head, int ch, int lb) {
    int red = isred(head) ^ (ch & 1);
    int s = red ? 1 + lb : 3 * lb;
    return ch ? (rank0(head) - ch) * 4 + s : head;
}

/* top_of through the context's table (ctx_setup fills it from top_of). With no chain, bit 15 of w is the top
   bit of a zero chain length: lb is 0. */
static inline int w_top(const ctx_t *c, uint32_t w) {
    int ch = w_chain(w);
    return c->tops[w_head(c, w)][ch][(w >> (15 + ch)) & 1];
}

/* w less its top card: the chain one shorter, or with no chain the base one shorter (popw). Without a branch:
   whether a column's top lies on a chain is not predictable. */
static inline uint32_t w_pop(const ctx_t *c, uint32_t w) {
    int ch = w_chain(w);
    uint32_t chained = (w - (1u << 12)) & ~(1u << ((16 + ch - 1) & 31)), mask = 0u - (uint32_t)(ch != 0);
    return (chained & mask) | (c->popw[w & 0xFFF] & ~mask);
}

/* w may carry a home nibble; x must stack on the top (or the column be empty) */
static inline uint32_t w_push(uint32_t w, int x) {
    if (!(w & WMASK)) return w | (uint32_t)x | (1u << 6);
    return (w + (1u << 12)) | ((uint32_t)(suit(x) >> 1) << (16 + w_chain(w)));
}
static inline int home_sum(const fkey_t *k) {
    return (int)((k->w[0] >> 28) + (k->w[1] >> 28) + (k->w[2] >> 28) + (k->w[3] >> 28));
}

/* ---- the compact key ---- */
static inline int popc32(uint32_t x) {
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0F0F0F0Fu;
    return (int)((x * 0x01010101u) >> 24);
}

/* The packed key's fields are laid out by one writer and read by one reader over up to 3 words of 64 bits
   (the memory store's 16-byte ckey_t uses 2, the disk search's 24-byte dkey_t 3). Always inlined, with the
   words' count a constant, so the 2-word versions compile to the same register code as before: word 2 is
   never read and never written there. */
#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

/* Or the nb-bit field v (nb <= 64 - (pos & 63) + 63, v < 2^nb) into the words w at bit pos. */
static ALWAYS_INLINE void kb_put(uint64_t *w, int pos, uint64_t v, int nb) {
    if (pos < 64) {
        w[0] |= v << pos;
        if (pos + nb > 64) w[1] |= v >> (64 - pos);
    } else if (pos < 128) {
        w[1] |= v << (pos - 64);
        if (pos + nb > 128) w[2] |= v >> (128 - pos);
    } else {
        w[2] |= v << (pos - 128);
    }
}

/* Drop the low nb bits (1 <= nb <= 63) of the nw-word number w (the reader consumes fields from the bottom). */
static ALWAYS_INLINE void kb_drop(uint64_t *w, int nw, int nb) {
    w[0] = (w[0] >> nb) | (w[1] << (64 - nb));
    if (nw > 2) {
        w[1] = (w[1] >> nb) | (w[2] << (64 - nb));
        w[2] >>= nb;
    } else {
        w[1] >>= nb;
    }
}

/* Pack k into at most c->kbits bits of w[0..2] (zeroed here; c->kbits is 127 for the memory store's 2 words,
   at most DDD_KBITS = 191 for the disk search's 3, so the top bit of the last word stays 0): per column its
   head code (hb bits) and, when not empty, the word's bits 12.. (chain length, 4 bits, then one bit per
   chain card); then the rank of the cell set; then the hand's bit. -1 when it does not fit (the caller keeps
   it as an overflow key). */
static ALWAYS_INLINE int pack_words(const ctx_t *c, const fkey_t *k, uint64_t *w) {
    int pos = 0, n = 0, hb = c->hb;
    w[0] = w[1] = w[2] = 0;
    for (int i = 0; i < 8; i++) {
        uint32_t cw = k->w[i] & WMASK;
        uint64_t v = 0;
        int nb = hb;
        if (cw) {
            int code = c->hcode[cw & 0xFFF];
            if (code == 0xFF || (code > 52 && !c->canonical && c->colof[cw & 63] != i)) return -1;
            v = (uint64_t)code | ((uint64_t)(cw >> 12) << hb);
            nb = hb + 4 + w_chain(cw);
        }
        if (pos + nb > c->kbits) return -1;
        kb_put(w, pos, v, nb);
        pos += nb;
    }
    uint32_t r = 0;
    for (uint64_t m = k->cells; m; m &= m - 1) {
        if (++n > c->cells) return -1;
        r += c->binom[ctz64(m)][n];
    }
    uint64_t v = (uint64_t)(r + c->coff[n]);
    if (c->hand) v |= (uint64_t)((k->w[4] >> 28) & 1) << c->cb;
    int nb = c->cb + c->hand;
    if (pos + nb > c->kbits) return -1;
    if (nb) kb_put(w, pos, v, nb);
    return 0;
}

/* The inverse of pack_words, the foundation heights included (every card not on the board is home). The nw
   words are consumed from the bottom (shifted right as fields are read). */
static ALWAYS_INLINE void unpack_words(const ctx_t *c, uint64_t *wd, int nw, fkey_t *k) {
    int n = 0, hb = c->hb;
    uint32_t hmask = (1u << hb) - 1;
    uint32_t cnt = 0;                  /* cards of each suit on the board, one byte each */
    for (int i = 0; i < 8; i++) {
        int code = (int)(wd[0] & hmask);
        kb_drop(wd, nw, hb);
        if (!code) { k->w[i] = 0; continue; }
        uint32_t w;
        if (code <= 52 || c->canonical) w = c->hword[code];
        else w = (uint32_t)c->orig[i][0] | ((uint32_t)(code - 51) << 6);
        cnt += (w >> 6 & 63) == 1 ? 1u << (8 * suit((int)(w & 63))) : c->pcnt[c->colof[w & 63]][(w >> 6) & 63];
        int ch = (int)(wd[0] & 15);
        uint32_t bits = (uint32_t)(wd[0] >> 4) & ((1u << ch) - 1);
        kb_drop(wd, nw, 4 + ch);
        if (ch) {   /* the chain alternates colours from the head; a chain card's bit picks its suit */
            uint32_t len = (1u << ch) - 1;
            uint32_t redm = (isred(c->head[w & 0xFFF]) ? 0xAAAu : 0x555u) & len, blkm = len & ~redm;
            int h = popc32(bits & redm), sp = popc32(bits & blkm);
            cnt += (uint32_t)(popc32(redm) - h) << 8 | (uint32_t)h << 16
                 | (uint32_t)(popc32(blkm) - sp) | (uint32_t)sp << 24;
        }
        k->w[i] = w | ((uint32_t)ch << 12) | (bits << 16);
    }
    uint64_t lo = wd[0];
    uint32_t r = (uint32_t)(lo & ((1ull << c->cb) - 1));
    while (n < 8 && c->coff[n + 1] <= r) n++;
    r -= c->coff[n];
    k->cells = 0;
    int top = 52;
    for (int j = n; j >= 1; j--) {     /* the combinatorial number system: the largest x with C(x, j) <= r */
        uint32_t b = r >> c->csh[j];
        int x = c->cinv[j][b < 1024 ? b : 1023];
        while (x + 1 < top && c->binom[x + 1][j] <= r) x++;
        r -= c->binom[x][j];
        k->cells |= 1ull << x;
        cnt += 1u << (8 * suit(x));
        top = x;
    }
    if (c->hand && ((lo >> c->cb) & 1)) k->w[4] |= HANDUSED;
    for (int s = 0; s < 4; s++) k->w[s] |= (13u - ((cnt >> (8 * s)) & 0xFF)) << 28;
}

/* The cards at home of a packed position: 52 less its cards on the board (the columns' bases and chains, the
   cells), read off the key's nw words without unpacking it. */
static ALWAYS_INLINE int home_words(const ctx_t *c, uint64_t *wd, int nw) {
    int hb = c->hb, cards = 0, n = 0;
    uint32_t hmask = (1u << hb) - 1;
    for (int i = 0; i < 8; i++) {
        int code = (int)(wd[0] & hmask);
        kb_drop(wd, nw, hb);
        if (!code) continue;
        int ch = (int)(wd[0] & 15);
        kb_drop(wd, nw, 4 + ch);
        cards += ch + (code <= 52 || c->canonical ? (c->hword[code] >> 6) & 63 : code - 51);
    }
    uint32_t r = (uint32_t)(wd[0] & ((1ull << c->cb) - 1));
    while (n < 8 && c->coff[n + 1] <= r) n++;
    return 52 - cards - n;
}

/* The memory store's 16-byte key (c->kbits <= 127: bit 127 stays 0, the flag OVF's place). */
static inline int pack_key(const ctx_t *c, const fkey_t *k, ckey_t *out) {
    uint64_t w[3];
    if (pack_words(c, k, w)) return -1;
    out->lo = w[0];
    out->hi = w[1];
    return 0;
}

static inline void unpack_key(const ctx_t *c, const ckey_t *ck, fkey_t *k) {
    uint64_t w[3] = {ck->lo, ck->hi, 0};
    unpack_words(c, w, 2, k);
}

/* The disk search's 24-byte key (c->kbits <= DDD_KBITS = 191: bit 191 stays 0, the flag DOVF's place). */
static inline int pack_dkey(const ctx_t *c, const fkey_t *k, dkey_t *out) {
    uint64_t w[3];
    if (pack_words(c, k, w)) return -1;
    out->lo = w[0];
    out->mid = w[1];
    out->hi = w[2];
    return 0;
}

static inline void unpack_dkey(const ctx_t *c, const dkey_t *dk, fkey_t *k) {
    uint64_t w[3] = {dk->lo, dk->mid, dk->hi};
    unpack_words(c, w, 3, k);
}

static inline int dkey_home(const ctx_t *c, const dkey_t *dk) {
    uint64_t w[3] = {dk->lo, dk->mid, dk->hi};
    return home_words(c, w, 3);
}

/* ---- autoplay and canonical order ---- */
/* The card is the next of its suit (Autoplay.v's `canHome`), and, by mode (o1, o2: clubs 0 and spades 3 for
   a red card, diamonds 1 and hearts 2 for a black one, Spec.v's `red`; 3 - s the other suit of its colour):
   FC_AUTOPLAY_HORNE is coq/FreeCell/Autoplay.v's `lowOthers` (`safeHome`): an ace, or h1, h2 >= r - 1;
   FC_AUTOPLAY_SAFE is `lowSafe`: r <= 2, or h1, h2 >= r - 1, or h1, h2 >= r - 2 and hs >= r - 3;
   FC_AUTOPLAY_TWOS is `lowTwos`: r <= 2. (Read side by side with Autoplay.v, not proved equal.) These
   three counting modes can say "unwinnable" without foundation returns only (unwinnable_of_autoplay_fence,
   unwinnable_of_safe_autoplay_fence, unwinnable_of_twos_autoplay_fence and their _up_to_column_order
   forms): the searches apply autoplay_key to the start and to every successor. ALL (any next card) is not
   proved to lose no win: the Python side (solver.rules.Rules.unproved) says "unknown" for it. */
static inline int safe_home(int mode, int x, const fkey_t *k) {
    int s = suit(x), r = rank0(x) + 1;
    if ((int)(k->w[s] >> 28) != r - 1) return 0;
    if (mode == FC_AUTOPLAY_ALL) return 1;
    if (r == 1) return 1;
    if (mode == FC_AUTOPLAY_TWOS || mode == FC_AUTOPLAY_SAFE) { if (r == 2) return 1; }
    if (mode == FC_AUTOPLAY_TWOS) return 0;
    int o1 = isred(x) ? 0 : 1, o2 = isred(x) ? 3 : 2;      /* the two suits of the other colour */
    int h1 = (int)(k->w[o1] >> 28), h2 = (int)(k->w[o2] >> 28), hs = (int)(k->w[3 - s] >> 28);
    if (h1 >= r - 1 && h2 >= r - 1) return 1;
    if (mode == FC_AUTOPLAY_SAFE && h1 >= r - 2 && h2 >= r - 2 && hs >= r - 3) return 1;
    return 0;
}

/* a move: card | destination << 8 (fc.h) */
static inline uint16_t mvcode(int x, int dest) { return (uint16_t)(x | (dest << 8)); }

/* Apply the rules' autoplay to k in place. When out is not NULL each card sent home is also written
   as a move at out[*n] (FC_ERANGE when more than cap would be needed). Returns the cards moved. */
static inline int autoplay_moves(const ctx_t *c, fkey_t *k, uint16_t *out, int *n, int cap) {
    int mode = c->autoplay, moved = 0, again = 1;
    if (mode == FC_AUTOPLAY_NONE) return 0;
    while (again) {
        again = 0;
        for (int i = 0; i < 8; i++) {
            for (;;) {
                uint32_t w = k->w[i] & WMASK;
                if (!w) break;
                int x = w_top(c, w);
                if (!safe_home(mode, x, k)) break;
                if (out) {
                    if (*n >= cap) return FC_ERANGE;
                    out[(*n)++] = mvcode(x, FC_TO_HOME);
                }
                k->w[i] = (k->w[i] & HMASK) | w_pop(c, w);
                k->w[suit(x)] += HOME1;
                moved++; again = 1;
            }
        }
        for (uint64_t m = k->cells; m; m &= m - 1) {
            int x = ctz64(m);
            if (safe_home(mode, x, k)) {
                if (out) {
                    if (*n >= cap) return FC_ERANGE;
                    out[(*n)++] = mvcode(x, FC_TO_HOME);
                }
                k->cells &= ~(1ull << x);
                k->w[suit(x)] += HOME1;
                moved++; again = 1;
            }
        }
    }
    return moved;
}

static inline int autoplay_key(const ctx_t *c, fkey_t *k) { return autoplay_moves(c, k, NULL, NULL, 0); }

/* The columns' words sorted, descending (empty columns last), by a sorting network of 19 compare-exchanges
   (each without a branch: the order of a position's columns is not predictable), the foundation heights
   kept in place. */
#define CANON_CE(a, b) do { uint32_t x_ = v[a], y_ = v[b]; v[a] = x_ > y_ ? x_ : y_; v[b] = x_ > y_ ? y_ : x_; } \
    while (0)
static inline void canon_key(fkey_t *k) {
    uint32_t h[4], v[8];
    for (int s = 0; s < 4; s++) h[s] = k->w[s] & HMASK;
    for (int i = 0; i < 8; i++) v[i] = k->w[i] & WMASK;
    CANON_CE(0, 2); CANON_CE(1, 3); CANON_CE(4, 6); CANON_CE(5, 7);
    CANON_CE(0, 4); CANON_CE(1, 5); CANON_CE(2, 6); CANON_CE(3, 7);
    CANON_CE(0, 1); CANON_CE(2, 3); CANON_CE(4, 5); CANON_CE(6, 7);
    CANON_CE(2, 4); CANON_CE(3, 5);
    CANON_CE(1, 4); CANON_CE(3, 6);
    CANON_CE(1, 2); CANON_CE(3, 4); CANON_CE(5, 6);
    for (int i = 0; i < 8; i++) k->w[i] = v[i] | (i < 4 ? h[i] : 0);
}
#undef CANON_CE

/* ---- hash set ---- */
static inline uint64_t rd64(const uint32_t *w) { return (uint64_t)w[0] | ((uint64_t)w[1] << 32); }

static inline uint64_t hash64_key(const fkey_t *k) {
    uint64_t h = (k->cells ^ 0x243F6A8885A308D3ull) * 0x9E3779B97F4A7C15ull
               ^ rd64(k->w + 0) * 0xC2B2AE3D27D4EB4Full
               ^ rd64(k->w + 2) * 0x165667B19E3779F9ull
               ^ rd64(k->w + 4) * 0xD6E8FEB86659FD93ull
               ^ rd64(k->w + 6) * 0xFF51AFD7ED558CCDull;
    h ^= h >> 33; h *= 0xC4CEB9FE1A85EC53ull; h ^= h >> 29;
    return h;
}

static inline uint32_t hash_key(const fkey_t *k) { return (uint32_t)(hash64_key(k) >> 32); }

static inline uint64_t hash_ck(const ckey_t *k) {
    uint64_t h = (k->lo ^ 0x243F6A8885A308D3ull) * 0x9E3779B97F4A7C15ull
               ^ (k->hi ^ 0x13198A2E03707344ull) * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 32; h *= 0xD6E8FEB86659FD93ull; h ^= h >> 32; h *= 0x9E3779B97F4A7C15ull; h ^= h >> 29;
    return h;
}

static inline int key_eq(const fkey_t *a, const fkey_t *b) {
    return a->cells == b->cells && memcmp(a->w, b->w, sizeof a->w) == 0;
}

/* ---- the store: arena, overflow keys, hash table, parent bitmap ---- */
static inline uint8_t *kptr(const fc_search *s, uint64_t i) {
    return s->blk[i >> BLKBITS] + (size_t)(i & ((1u << BLKBITS) - 1)) * s->ks;
}

/* The stored key of state i as an fkey_t (foundation heights included). */
static inline void load_key(const fc_search *s, uint64_t i, fkey_t *k) {
    if (!s->compact) { memcpy(k, kptr(s, i), sizeof *k); return; }
    const ckey_t *t = (const ckey_t *)kptr(s, i);
    if (t->hi & OVF) *k = s->ovf[t->lo];
    else unpack_key(&s->c, t, k);
}

/* A candidate k: its packed form (OVF set when it does not pack) and its hash, a function of the position. */
static inline uint64_t prep_key(const fc_search *s, const fkey_t *k, ckey_t *ck) {
    if (!s->compact) return hash64_key(k);
    if (pack_key(&s->c, k, ck)) { ck->lo = 0; ck->hi = OVF; return hash64_key(k); }
    return hash_ck(ck);
}

static inline uint64_t stored_hash(const fc_search *s, uint64_t i) {
    if (!s->compact) return hash64_key((const fkey_t *)kptr(s, i));
    const ckey_t *t = (const ckey_t *)kptr(s, i);
    return (t->hi & OVF) ? hash64_key(&s->ovf[t->lo]) : hash_ck(t);
}

static inline int stored_eq(const fc_search *s, uint64_t i, const fkey_t *k, const ckey_t *ck) {
    if (!s->compact) return key_eq((const fkey_t *)kptr(s, i), k);
    const ckey_t *t = (const ckey_t *)kptr(s, i);
    if (!(ck->hi & OVF)) return t->lo == ck->lo && t->hi == ck->hi;
    return (t->hi & OVF) && key_eq(&s->ovf[t->lo], k);
}

static inline uint64_t slot_of(const fc_search *s, uint64_t h) {
    return ((h >> 32) * s->tsize) >> 32;
}

static inline uint32_t tag_of(const fc_search *s, uint64_t h) {
    return (uint32_t)h & (uint32_t)((1ull << (32 - s->ib)) - 1);
}

/* The index of k among the stored states, or -1 with *slot the free slot where it would go. */
static inline int64_t probe(const fc_search *s, const fkey_t *k, const ckey_t *ck, uint64_t h, uint64_t *slot) {
    uint64_t p = slot_of(s, h);
    uint32_t tag = tag_of(s, h), imask = (uint32_t)((1ull << s->ib) - 1);
    for (;;) {
        uint32_t e = s->table[p];
        if (!e) { *slot = p; return -1; }
        if ((e >> s->ib) == tag && stored_eq(s, (e & imask) - 1, k, ck)) return (int64_t)(e & imask) - 1;
        if (++p == s->tsize) p = 0;
    }
}

typedef struct { uint64_t key; uint32_t idx; } skey_t;
/* The eight bytes at p, little-endian (byte 0 the lowest). */
static inline uint64_t le8(const uint8_t *p) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t x;
    memcpy(&x, p, 8);
    return x;
#else
    uint64_t x = 0;
    for (int t = 7; t >= 0; t--) x = x << 8 | p[t];
    return x;
#endif
}
/* The eight bytes at p, big-endian (a sort key: eight bytes of a P64 record). */
static inline uint64_t be8(const uint8_t *p) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t x;
    memcpy(&x, p, 8);
    return __builtin_bswap64(x);
#else
    uint64_t x = 0;
    for (int t = 0; t < 8; t++) x = x << 8 | p[t];
    return x;
#endif
}
/* The record of element i of a collection (a search's state i, a disk search's key i), as P64. */
typedef void (*rec_fn)(const void *src, uint64_t i, uint8_t *rec);
/* the card at depth t (0 = the top) of the top chain of column word w (t <= chain length) */
static inline int w_chain_card(const ctx_t *c, uint32_t w, int t) {
    int ch = w_chain(w), head = w_head(c, w);
    if (t >= ch) return head;
    int tp = ch - 1 - t;                          /* chain index, 0 = just above the base */
    int red = isred(head) ^ ((tp + 1) & 1);
    int bit = (int)((w >> (16 + tp)) & 1);
    int s = red ? (bit ? 2 : 1) : (bit ? 3 : 0);
    return (rank0(head) - tp - 1) * 4 + s;
}

/* autoplay_key, writing each card it sends home as a move (while there is room); 0 or FC_ERANGE */
static inline int autoplay_rec(const ctx_t *c, fkey_t *k, uint16_t *out, int *n, int cap) {
    int r = autoplay_moves(c, k, out, n, cap);
    return r < 0 ? r : 0;
}

/* every column sorted: ranks never rise toward the top */
static inline int key_sorted(const ctx_t *c, const fkey_t *k) {
    for (int i = 0; i < 8; i++) {
        uint32_t w = k->w[i] & WMASK;
        int L = (int)((w >> 6) & 63);
        if (L >= 2 && !c->osorted[c->colof[w & 63]][L]) return 0;
    }
    return 1;
}

/* the won position (every column and cell empty, every foundation at the king) */
static inline void won_key(fkey_t *k) {
    memset(k, 0, sizeof *k);
    for (int s = 0; s < 4; s++) k->w[s] = 13u << 28;
}

/* ---- what one file of the core gives another ---- */
/* key.c: the context and the 40-byte key */
FC_HIDDEN int check_rules(const fc_rules *r);
FC_HIDDEN int ctx_setup(ctx_t *c, const fc_pos *p, const fc_rules *r, int tables_ready);
FC_HIDDEN int ctx_init(ctx_t *c, const fc_pos *p, const fc_rules *r);
FC_HIDDEN int pos_to_key(const ctx_t *c, const fc_pos *p, fkey_t *k);
FC_HIDDEN void key_to_pos(const ctx_t *c, const fkey_t *k, fc_pos *p);
FC_HIDDEN void key_to_p64(const ctx_t *c, const fkey_t *k, uint8_t *out);
FC_HIDDEN int decode_col(const ctx_t *c, uint32_t w, uint8_t *cards);
/* moves.c */
FC_HIDDEN int gen(const ctx_t *c, const fkey_t *k, fkey_t *out);
FC_HIDDEN int gen_mv(const ctx_t *c, const fkey_t *k, fkey_t *out, uint16_t *mv, uint8_t *from, int prune);
FC_HIDDEN int key_apply(const ctx_t *c, fkey_t *k, int x, int dest);
/* store.c */
FC_HIDDEN int build_table(fc_search *s, uint64_t size);
FC_HIDDEN void *room_for(void *arr, uint64_t n, uint64_t *cap, size_t elem, uint64_t first, int *err);
FC_HIDDEN int grow_arena(fc_search *s);
FC_HIDDEN int grow_best(fc_search *s);
FC_HIDDEN int pbit_push(fc_search *s, int bit);
FC_HIDDEN int64_t lookup(const fc_search *s, const fkey_t *k, const ckey_t *ck, uint64_t h);
FC_HIDDEN int insert(fc_search *s, const fkey_t *k, const ckey_t *ck, uint64_t h, uint32_t parent);
FC_HIDDEN int insert_at(fc_search *s, const fkey_t *k, const ckey_t *ck, uint64_t h, uint32_t parent, uint64_t p);
FC_HIDDEN int store_compact(fc_search *s);
/* search.c */
FC_HIDDEN int search_start(fc_search *s, const fc_pos *start, const fc_rules *r, uint64_t max_states,
                           int stop_on_win, int order);
FC_HIDDEN uint64_t *path_to(const fc_search *s, uint64_t idx, uint64_t *len);
FC_HIDDEN void sort_level(rec_fn f, const void *src, skey_t *v, uint64_t n, int off);
/* best.c */
FC_HIDDEN int heap_push(fc_search *s, uint32_t idx);
FC_HIDDEN int best_goal(fc_search *s, uint32_t idx);
FC_HIDDEN int run_best(fc_search *s, uint64_t max_expand);
FC_HIDDEN extern const int DEFAULT_WEIGHTS[FC_NWEIGHTS];   /* the solver's plain weights (solve.c) */

#endif
