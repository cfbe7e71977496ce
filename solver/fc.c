/* fc.c -- the FreeCell search core (see fc.h for the interface and the rules).
 *
 * Plain C99, no global mutable state. Everything a search needs lives in its fc_search.
 *
 * ---- The state key -------------------------------------------------------------------------------------
 * A state is stored as a 40-byte key: one 32-bit word per column plus a 64-bit mask of the cell cards.
 * Foundation heights are determined by the rest (every card not in a column or a cell is home), and are
 * kept for speed in the top nibbles of words 0..3 (home of suit s in w[s] >> 28) -- being a function of
 * the other bits they do not affect exactness.
 *
 * A column word describes the column's content relative to the search's START position (its
 * "original" columns). Cut the content c_0..c_{n-1} at the smallest b such that c_b..c_{n-1} is a
 * stacking chain (each card one rank lower and of the other colour than the one below it). Then
 *     bits  0..5   c_0, the bottom card
 *     bits  6..11  L = b+1: the cards c_0..c_b ("the base")
 *     bits 12..15  the chain length above the base (n-1-b, at most 12)
 *     bits 16..27  one bit per chain card (bit t for c_{b+1+t}): the suit within its colour,
 *                  suit >> 1 (C,D -> 0; H,S -> 1); rank and colour follow from the card below
 *     the word of an empty column is 0 (a non-empty one has L >= 1).
 * When L >= 2 the base is a prefix of an original column -- the one whose bottom card is c_0:
 * c_b does not stack on c_{b-1}, so it was never moved there (every move onto a non-empty column
 * stacks); it and all cards below it have stayed in place since the start. When L = 1 the base is
 * just c_0 (any card). So the word is a function of the content alone (which is what makes the
 * canonical mode's sorted keys exact) and the content is recovered from the word and the start.
 * Moves update words in O(1): putting a card on a column appends a chain bit (or makes base L=1 on
 * an empty column), taking the top card drops a chain bit, or for a bare original prefix looks up the
 * precomputed word of the one-shorter prefix.
 *
 * ---- The compact store (FC_ORDER_BFS / DFS) ---------------------------------------------------------------
 * A stored state is a 16-byte key, the position packed exactly (no lossy hashing) relative to the start:
 * per column in order its head code (hb bits: 0 empty; 1 + c0 for a base of one card, any card, e.g. on
 * an emptied column; 51 + L for the start column's own prefix of L >= 2 cards -- in the canonical mode a
 * code per (start column, L) instead) and, when not empty, the chain above the base: its length (4 bits)
 * and one bit per chain card (the word's bits 12..27); then the rank of the cell set among the sets of at
 * most `cells` cards (the combinatorial number system: 19 bits for 4 cells); then the hand's favor bit
 * (rules.hand). The foundation heights are recomputed on unpacking (every card not on the board is home).
 * Usually 90..120 bits: a position needing more than 127 is kept whole as a 40-byte fkey_t in an overflow
 * array, its 16-byte slot holding the flag bit 127 and the index (fc_search_overflow counts them; none
 * among the 2,951,466 positions of deal 1474422072; deal 219837216 reaches some past 100 M positions). Keys live in blocks of 2^16 in discovery order (the
 * BFS queue). FC_ORDER_BEST (the solver) keeps 40-byte fkey_t keys (it reads them for its heuristic).
 * The disk search packs the same fields, by the same code (pack_words), into a 24-byte dkey_t of up to 191
 * bits, which every position fits (see dkey_t and "The enumeration on disk").
 *
 * The hash table: 32-bit slots (index+1 in the low ib bits, a hash tag above), linear probing, any size
 * (fast range reduction), grown by half when 80% full and rebuilt from the arena (the old table is freed
 * first). A lookup compares the full key whenever the tags agree: the set is exact.
 *
 * Parents (BFS/DFS): not stored per state. An event bitmap records, in time order, a 1 when an expansion
 * begins and a 0 when a state is stored: state i's parent is the state expanded when the i-th 0 was
 * written. In BFS expansion j is state j (a select over the bitmap); in DFS the stack is replayed from
 * the bitmap (no positions needed). 2 bits a state.
 */
#define _POSIX_C_SOURCE 200809L   /* the disk search's checkpoints: fsync, stat, readdir (POSIX) */
#include <stdint.h>
#include "fc.h"
#include <stddef.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>
#include <dirent.h>
#include <zlib.h>

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
    uint8_t oblk[8][53];     /* cards of that prefix lying above a lower card of it */
    uint8_t omin[8][53];     /* the lowest rank0 in that prefix (99 when empty) */
    uint8_t opos[52];        /* a card's index (from the bottom) in its start column; 0xFF if in none */
    uint8_t ocol[52];        /* its start column */
    uint8_t head[4096];      /* head[w & 0xFFF]: the top card of the base (c_0 and L) of word w */
    int cells, fret, autoplay, canonical;
    int super;               /* the solver's sequence moves (gen_mv only) */
    int supermoves;          /* fc_rules.supermoves: gen adds every supermove (gen_super, all empty targets) */
    int hand;                /* fc_rules.hand: gen adds the favor moves (gen_favor) while HANDUSED is clear */
    int pflags;              /* the solver's move pruning, FC_PRUNE_* (gen_mv only) */
    /* the compact key (see "The compact store" above) */
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
    int compact;             /* 1: 16-byte ckey_t keys; 0: 40-byte fkey_t keys (FC_ORDER_BEST, or too big) */
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

static inline int w_top(const ctx_t *c, uint32_t w) {
    int head = w_head(c, w), ch = w_chain(w);
    int lb = (int)((w >> (15 + ch)) & 1);          /* the last chain bit */
    int red = isred(head) ^ (ch & 1);
    int s = red ? 1 + lb : 3 * lb;
    return ch ? (rank0(head) - ch) * 4 + s : head;
}

static inline uint32_t w_pop(const ctx_t *c, uint32_t w) {
    int ch = w_chain(w);
    if (ch) return (w - (1u << 12)) & ~(1u << (16 + ch - 1));
    int L = (int)((w >> 6) & 63);
    if (L <= 1) return 0;
    return c->oword[c->colof[w & 63]][L - 1];
}

/* w may carry a home nibble; x must stack on the top (or the column be empty) */
static inline uint32_t w_push(uint32_t w, int x) {
    if (!(w & WMASK)) return w | (uint32_t)x | (1u << 6);
    return (w + (1u << 12)) | ((uint32_t)(suit(x) >> 1) << (16 + w_chain(w)));
}

static int encode_col(const ctx_t *c, const uint8_t *cards, int n, uint32_t *out) {
    if (n == 0) { *out = 0; return 0; }
    int b = n - 1;
    while (b > 0 && stacks(cards[b], cards[b - 1])) b--;
    int ch = n - 1 - b, L = b + 1;
    if (ch > 12) return FC_EENCODE;
    if (L >= 2) {
        int col = c->colof[cards[0]];
        if (col == 0xFF || c->olen[col] < L || memcmp(c->orig[col], cards, (size_t)L) != 0)
            return FC_EENCODE;
    }
    uint32_t bits = 0;
    for (int t = 0; t < ch; t++) bits |= (uint32_t)(suit(cards[b + 1 + t]) >> 1) << t;
    *out = (uint32_t)cards[0] | ((uint32_t)L << 6) | ((uint32_t)ch << 12) | (bits << 16);
    return 0;
}

static int decode_col(const ctx_t *c, uint32_t w, uint8_t *cards) {
    w &= WMASK;
    if (!w) return 0;
    int c0 = (int)(w & 63), L = (int)((w >> 6) & 63), ch = w_chain(w);
    if (L >= 2) memcpy(cards, c->orig[c->colof[c0]], (size_t)L);
    else cards[0] = (uint8_t)c0;
    int prev = cards[L - 1];
    for (int t = 0; t < ch; t++) {
        int red = !isred(prev);
        int b = (int)((w >> (16 + t)) & 1);
        int s = red ? (b ? 2 : 1) : (b ? 3 : 0);
        prev = (rank0(prev) - 1) * 4 + s;
        cards[L + t] = (uint8_t)prev;
    }
    return L + ch;
}

/* ---- positions ---- */
int fc_pos_check(const fc_pos *p, int max_cells) {
    int seen[52] = {0};
    if (max_cells < 0 || max_cells > FC_MAX_CELLS) max_cells = FC_MAX_CELLS;
    for (int s = 0; s < 4; s++) if (p->home[s] > 13) return FC_EBADPOS;
    for (int i = 0; i < 8; i++) {
        if (p->len[i] > FC_MAX_COL) return FC_EBADPOS;
        for (int k = 0; k < p->len[i]; k++) {
            int x = p->col[i][k];
            if (x >= 52 || seen[x]) return FC_EBADPOS;
            seen[x] = 1;
        }
    }
    if (p->ncells > max_cells) return FC_EBADPOS;
    for (int k = 0; k < p->ncells; k++) {
        int x = p->cells[k];
        if (x >= 52 || seen[x]) return FC_EBADPOS;
        if (k > 0 && p->cells[k - 1] >= x) return FC_EBADPOS;
        seen[x] = 1;
    }
    for (int x = 0; x < 52; x++) {
        int athome = rank0(x) + 1 <= p->home[suit(x)];
        if (athome == seen[x]) return FC_EBADPOS;   /* exactly one of: on the board, at home */
    }
    return 0;
}

int fc_pos_to_p64(const fc_pos *p, uint8_t *out) {
    if (fc_pos_check(p, FC_MAX_CELLS)) return FC_EBADPOS;
    int o = 0;
    memset(out, 0, FC_P64_SIZE);
    for (int i = 0; i < 8; i++) {
        for (int k = 0; k < p->len[i]; k++) out[o++] = (uint8_t)(p->col[i][k] + 1);
        out[o++] = 0;
    }
    for (int k = 0; k < p->ncells; k++) out[o++] = (uint8_t)(p->cells[k] + 1);
    return 0;
}

int fc_p64_to_pos(const uint8_t *in, fc_pos *p) {
    int o = 0, cnt[4] = {0, 0, 0, 0};
    memset(p, 0, sizeof *p);
    for (int i = 0; i < 8; i++) {
        while (o < FC_P64_SIZE && in[o]) {
            if (p->len[i] >= FC_MAX_COL || in[o] > 52) return FC_EBADPOS;
            p->col[i][p->len[i]++] = (uint8_t)(in[o] - 1);
            cnt[(in[o] - 1) & 3]++;
            o++;
        }
        if (o >= FC_P64_SIZE) return FC_EBADPOS;
        o++;   /* terminator */
    }
    while (o < FC_P64_SIZE && in[o]) {
        if (p->ncells >= FC_MAX_CELLS || in[o] > 52) return FC_EBADPOS;
        p->cells[p->ncells++] = (uint8_t)(in[o] - 1);
        cnt[(in[o] - 1) & 3]++;
        o++;
    }
    for (; o < FC_P64_SIZE; o++) if (in[o]) return FC_EBADPOS;
    for (int s = 0; s < 4; s++) {
        if (cnt[s] > 13) return FC_EBADPOS;
        p->home[s] = (uint8_t)(13 - cnt[s]);
    }
    return fc_pos_check(p, FC_MAX_CELLS);
}

/* ---- context, keys ---- */
static int check_rules(const fc_rules *r) {
    if (r->cells < 0 || r->cells > FC_MAX_CELLS) return FC_EBADRULES;
    if (r->autoplay < FC_AUTOPLAY_NONE || r->autoplay > FC_AUTOPLAY_ALL) return FC_EBADRULES;
    if (r->hand < 0 || r->hand > 1 || (r->hand && (r->canonical || r->autoplay))) return FC_EBADRULES;
    return 0;
}

/* The context of a start position. tables_ready: c already holds the tables that depend on nothing
   (binom, coff, cinv, csh: the last fields of ctx_t), from an earlier ctx_setup of the same c. */
static int ctx_setup(ctx_t *c, const fc_pos *p, const fc_rules *r, int tables_ready) {
    memset(c, 0, tables_ready ? offsetof(ctx_t, binom) : sizeof *c);
    memset(c->colof, 0xFF, sizeof c->colof);
    c->cells = r->cells;
    c->fret = r->foundation_return != 0;
    c->autoplay = r->autoplay;
    c->canonical = r->canonical != 0;
    c->supermoves = r->supermoves != 0;
    c->hand = r->hand != 0;
    for (int i = 0; i < 8; i++) {
        c->olen[i] = p->len[i];
        memcpy(c->orig[i], p->col[i], p->len[i]);
        if (p->len[i]) c->colof[p->col[i][0]] = (uint8_t)i;
    }
    for (int x = 0; x < 52; x++) c->head[x | (1 << 6)] = (uint8_t)x;
    for (int i = 0; i < 8; i++)
        for (int L = 2; L <= c->olen[i]; L++) c->head[c->orig[i][0] | (L << 6)] = c->orig[i][L - 1];
    for (int i = 0; i < 8; i++)
        for (int L = 0; L <= c->olen[i]; L++)
            if (encode_col(c, c->orig[i], L, &c->oword[i][L])) return FC_EENCODE;
    memset(c->opos, 0xFF, sizeof c->opos);
    memset(c->ocol, 0xFF, sizeof c->ocol);
    for (int i = 0; i < 8; i++) {
        int ok = 1, blk = 0, mn = 99;
        for (int L = 0; L <= c->olen[i]; L++) {
            if (L >= 1) {
                int x = c->orig[i][L - 1], r = rank0(x);
                c->opos[x] = (uint8_t)(L - 1);
                c->ocol[x] = (uint8_t)i;
                if (r > mn) blk++;
                else mn = r;
            }
            if (L >= 2 && rank0(c->orig[i][L - 1]) > rank0(c->orig[i][L - 2])) ok = 0;
            c->osorted[i][L] = (uint8_t)ok;
            c->oblk[i][L] = (uint8_t)blk;
            c->omin[i][L] = (uint8_t)mn;
        }
    }
    /* the compact key's tables */
    int ncodes = 53;
    memset(c->hcode, 0xFF, sizeof c->hcode);
    c->hcode[0] = 0;
    c->hword[0] = 0;
    for (int x = 0; x < 52; x++) { c->hcode[x | (1 << 6)] = (uint8_t)(1 + x); c->hword[1 + x] = (uint16_t)(x | (1 << 6)); }
    for (int i = 0; i < 8; i++) {
        uint32_t cnt = 0;
        c->pcnt[i][0] = 0;
        for (int L = 1; L <= c->olen[i]; L++) {
            cnt += 1u << (8 * suit(c->orig[i][L - 1]));
            c->pcnt[i][L] = cnt;
            if (L >= 2 && ncodes < 255) {   /* canonical codes; the plain mode's (51 + L) below */
                c->hcode[c->orig[i][0] | (L << 6)] = (uint8_t)ncodes;
                c->hword[ncodes++] = (uint16_t)(c->orig[i][0] | (L << 6));
            }
        }
        if (c->olen[i] > c->maxolen) c->maxolen = c->olen[i];
    }
    if (!c->canonical) {   /* codes 51 + L, L = 2..maxolen, the column being the one of c0 */
        ncodes = 52 + (c->maxolen > 1 ? c->maxolen : 1);
        for (int i = 0; i < 8; i++)
            for (int L = 2; L <= c->olen[i]; L++) c->hcode[c->orig[i][0] | (L << 6)] = (uint8_t)(51 + L);
    }
    for (c->hb = 0; (1 << c->hb) < ncodes; c->hb++) {}
    c->kbits = 127;
    if (!tables_ready) {
        for (int n = 0; n <= 52; n++)
            for (int k = 0; k <= 8; k++)
                c->binom[n][k] = k == 0 ? 1 : n == 0 ? 0 : c->binom[n - 1][k - 1] + c->binom[n - 1][k];
        c->coff[0] = 0;
        for (int k = 0; k <= 8; k++) c->coff[k + 1] = c->coff[k] + c->binom[52][k];
        for (int j = 1; j <= 8; j++) {
            int sh = 0, x = j - 1;
            while ((c->binom[52][j] >> sh) >= 1024) sh++;
            c->csh[j] = (uint8_t)sh;
            for (uint32_t b = 0; b < 1024; b++) {
                while (x < 52 && c->binom[x + 1][j] <= (b << sh)) x++;
                c->cinv[j][b] = (uint8_t)x;
            }
        }
    }
    for (c->cb = 0; (1ull << c->cb) < (uint64_t)c->coff[c->cells + 1]; c->cb++) {}
    return 0;
}

static int ctx_init(ctx_t *c, const fc_pos *p, const fc_rules *r) { return ctx_setup(c, p, r, 0); }

static int pos_to_key(const ctx_t *c, const fc_pos *p, fkey_t *k) {
    for (int i = 0; i < 8; i++) {
        if (encode_col(c, p->col[i], p->len[i], &k->w[i])) return FC_EENCODE;
    }
    for (int s = 0; s < 4; s++) k->w[s] |= (uint32_t)p->home[s] << 28;
    k->cells = 0;
    for (int j = 0; j < p->ncells; j++) k->cells |= 1ull << p->cells[j];
    return 0;
}

static void key_to_pos(const ctx_t *c, const fkey_t *k, fc_pos *p) {
    for (int i = 0; i < 8; i++) p->len[i] = (uint8_t)decode_col(c, k->w[i], p->col[i]);
    int n = 0;
    for (uint64_t m = k->cells; m; m &= m - 1) p->cells[n++] = (uint8_t)ctz64(m);
    p->ncells = (uint8_t)n;
    for (int j = n; j < FC_MAX_CELLS; j++) p->cells[j] = 0;
    for (int s = 0; s < 4; s++) p->home[s] = (uint8_t)(k->w[s] >> 28);
}

static void key_to_p64(const ctx_t *c, const fkey_t *k, uint8_t *out) {
    uint8_t tmp[64];
    int o = 0;
    memset(out, 0, FC_P64_SIZE);
    for (int i = 0; i < 8; i++) {
        int n = decode_col(c, k->w[i], tmp);
        for (int t = 0; t < n; t++) out[o++] = (uint8_t)(tmp[t] + 1);
        out[o++] = 0;
    }
    for (uint64_t m = k->cells; m; m &= m - 1) out[o++] = (uint8_t)(ctz64(m) + 1);
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
static int pack_key(const ctx_t *c, const fkey_t *k, ckey_t *out) {
    uint64_t w[3];
    if (pack_words(c, k, w)) return -1;
    out->lo = w[0];
    out->hi = w[1];
    return 0;
}

static void unpack_key(const ctx_t *c, const ckey_t *ck, fkey_t *k) {
    uint64_t w[3] = {ck->lo, ck->hi, 0};
    unpack_words(c, w, 2, k);
}

/* The disk search's 24-byte key (c->kbits <= DDD_KBITS = 191: bit 191 stays 0, the flag DOVF's place). */
static int pack_dkey(const ctx_t *c, const fkey_t *k, dkey_t *out) {
    uint64_t w[3];
    if (pack_words(c, k, w)) return -1;
    out->lo = w[0];
    out->mid = w[1];
    out->hi = w[2];
    return 0;
}

static void unpack_dkey(const ctx_t *c, const dkey_t *dk, fkey_t *k) {
    uint64_t w[3] = {dk->lo, dk->mid, dk->hi};
    unpack_words(c, w, 3, k);
}

static int dkey_home(const ctx_t *c, const dkey_t *dk) {
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
static int autoplay_moves(const ctx_t *c, fkey_t *k, uint16_t *out, int *n, int cap) {
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

static int autoplay_key(const ctx_t *c, fkey_t *k) { return autoplay_moves(c, k, NULL, NULL, 0); }

static void canon_key(fkey_t *k) {
    uint32_t h[4], v[8];
    for (int s = 0; s < 4; s++) h[s] = k->w[s] & HMASK;
    for (int i = 0; i < 8; i++) v[i] = k->w[i] & WMASK;
    for (int i = 1; i < 8; i++) {      /* insertion sort, descending (empty columns last) */
        uint32_t x = v[i];
        int j = i - 1;
        while (j >= 0 && v[j] < x) { v[j + 1] = v[j]; j--; }
        v[j + 1] = x;
    }
    for (int i = 0; i < 8; i++) k->w[i] = v[i] | (i < 4 ? h[i] : 0);
}

/* ---- moves: the raw successors of k (no autoplay), in the order of fc.h ---- */
/* The columns of k: pw[i] its word, top[i] its top card (-1 when empty), dst[x] the columns whose top
   card x may go on, h[s] the foundation heights. Returns the set of empty columns. */
static inline unsigned col_targets(const ctx_t *c, const fkey_t *k, uint32_t *pw, int *top, uint8_t *dst,
                                   int *h) {
    unsigned empty = 0;
    memset(dst, 0, 52);
    for (int i = 0; i < 8; i++) {
        pw[i] = k->w[i] & WMASK;
        if (!pw[i]) { top[i] = -1; empty |= 1u << i; continue; }
        int p = w_top(c, pw[i]);
        top[i] = p;
        if (rank0(p) > 0) {   /* the two cards one rank lower of the other colour */
            int b = (rank0(p) - 1) * 4;
            if (isred(p)) { dst[b] |= (uint8_t)(1u << i); dst[b + 3] |= (uint8_t)(1u << i); }
            else { dst[b + 1] |= (uint8_t)(1u << i); dst[b + 2] |= (uint8_t)(1u << i); }
        }
    }
    for (int s = 0; s < 4; s++) h[s] = (int)(k->w[s] >> 28);
    return empty;
}

static int gen_super(const ctx_t *c, const fkey_t *k, int i, const int *top, unsigned empty,
                     unsigned allempty, fkey_t *out, uint16_t *mv, int n, int prune, int all);

/* Successors in the order of fc.h; with rules.supermoves, each column's supermoves follow its single moves
   (a bound: 9 single moves a column, 9 a cell card, 8 a foundation return, and m(m-1+12(8-m)) <= 204
   supermoves for m non-empty columns: fewer than SOLVE_MAX_SUCC).
   Every single move is made whether or not supermoves are on: they only add successors, so the set that
   explore enumerates with --supermoves contains the one without and is closed under the single moves, and
   a complete enumeration with no won position proves as much as one without supermoves
   (solver.rules.Rules.unproved). (Each supermove is also a composition of single moves through the free
   cells and empty columns, within (f+1)*2^e, but no verdict relies on it: a win in a counting mode counts
   only once the solver finds a line of single moves under the plain rules, solver.lines.judge.) */
static int gen_favor(const ctx_t *c, const fkey_t *k, fkey_t *out, int n);

static int gen_core(const ctx_t *c, const fkey_t *k, fkey_t *out, int favor) {
    uint16_t smv[SOLVE_MAX_SUCC];
    uint32_t pw[8];
    uint8_t dst[52];          /* dst[x]: the columns whose top card x may go on */
    int top[8], h[4], n = 0;
    unsigned empty = col_targets(c, k, pw, top, dst, h);   /* the empty columns */
    int room = popc64(k->cells) < c->cells;

    for (int i = 0; i < 8; i++) {
        int x = top[i];
        if (x < 0) continue;
        fkey_t b = *k;
        b.w[i] = (k->w[i] & HMASK) | w_pop(c, pw[i]);
        if (h[suit(x)] == rank0(x)) { out[n] = b; out[n].w[suit(x)] += HOME1; n++; }
        for (unsigned m = (dst[x] | empty) & ~(1u << i); m; m &= m - 1) {
            int j = ctz64(m);
            out[n] = b; out[n].w[j] = w_push(k->w[j], x); n++;
        }
        if (room) { out[n] = b; out[n].cells |= 1ull << x; n++; }
        if (c->supermoves && w_chain(pw[i])) n = gen_super(c, k, i, top, empty, empty, out, smv, n, 0, 1);
    }
    for (uint64_t cm = k->cells; cm; cm &= cm - 1) {
        int x = ctz64(cm);
        fkey_t b = *k;
        b.cells &= ~(1ull << x);
        if (h[suit(x)] == rank0(x)) { out[n] = b; out[n].w[suit(x)] += HOME1; n++; }
        for (unsigned m = dst[x] | empty; m; m &= m - 1) {
            int j = ctz64(m);
            out[n] = b; out[n].w[j] = w_push(k->w[j], x); n++;
        }
    }
    if (c->fret) {
        for (int s = 0; s < 4; s++) {
            if (!h[s]) continue;
            int x = (h[s] - 1) * 4 + s;
            fkey_t b = *k;
            b.w[s] -= HOME1;
            for (unsigned m = dst[x] | empty; m; m &= m - 1) {
                int j = ctz64(m);
                out[n] = b; out[n].w[j] = w_push(b.w[j], x); n++;
            }
        }
    }
    if (favor && c->hand && !(k->w[4] & HANDUSED) && popc64(k->cells) >= c->cells) n = gen_favor(c, k, out, n);
    return n;
}

static int gen(const ctx_t *c, const fkey_t *k, fkey_t *out) { return gen_core(c, k, out, 1); }

/* The favor (rules.hand, once per game, only while every free cell is full): a column's top card x is
   held in the hand, one ordinary move is made without it (any element of moves() of the position
   without x), then x is put down where a card may go in the new position: onto its foundation, onto any
   column (empty, or by the stacking rule -- its own column too), or into a free cell if one is empty.
   The results carry HANDUSED. Appended to out from n; returns the new count. */
static int gen_favor(const ctx_t *c, const fkey_t *k, fkey_t *out, int n) {
    fkey_t inner[SOLVE_MAX_SUCC];
    for (int i = 0; i < 8; i++) {
        uint32_t pw = k->w[i] & WMASK;
        if (!pw) continue;
        int x = w_top(c, pw);
        fkey_t b = *k;
        b.w[i] = (k->w[i] & HMASK) | w_pop(c, pw);
        int m = gen_core(c, &b, inner, 0);
        for (int q = 0; q < m; q++) {
            const fkey_t *t = &inner[q];
            if ((int)(t->w[suit(x)] >> 28) == rank0(x)) { out[n] = *t; out[n].w[suit(x)] += HOME1; out[n++].w[4] |= HANDUSED; }
            for (int j = 0; j < 8; j++) {
                uint32_t tw = t->w[j] & WMASK;
                if (tw && !stacks(x, w_top(c, tw))) continue;
                out[n] = *t; out[n].w[j] = w_push(t->w[j], x); out[n++].w[4] |= HANDUSED;
            }
            if (popc64(t->cells) < c->cells) { out[n] = *t; out[n].cells |= 1ull << x; out[n++].w[4] |= HANDUSED; }
        }
    }
    return n;
}

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

/* A table of `size` slots (at most 2^32), rebuilt from the arena. The old table is freed first (no
   second table in memory); when the new one cannot be had, one of the old size is made again. */
static int build_table(fc_search *s, uint64_t size) {
    uint64_t old = s->tsize;
    int e = 0;
    free(s->table);
    s->table = (uint32_t *)calloc(size, sizeof *s->table);
    if (!s->table && old) {
        e = FC_ENOMEM;
        size = old;
        s->table = (uint32_t *)calloc(size, sizeof *s->table);
    }
    if (!s->table) { s->tsize = 0; return FC_ENOMEM; }
    s->tsize = size;
    s->tmax = size / 5 * 4;
    if (s->tmax > MAX_STATES_CAP) s->tmax = MAX_STATES_CAP;
    for (s->ib = 1; (1ull << s->ib) <= s->tmax + 1; s->ib++) {}
    uint32_t imask = (uint32_t)((1ull << s->ib) - 1);
    uint64_t hs[64];
    for (uint64_t i0 = 0; i0 < s->count; i0 += 64) {   /* in batches: the slots are prefetched */
        uint64_t nb = s->count - i0 < 64 ? s->count - i0 : 64;
        for (uint64_t t = 0; t < nb; t++) {
            hs[t] = stored_hash(s, i0 + t);
            PREFETCH(&s->table[slot_of(s, hs[t])]);
        }
        for (uint64_t t = 0; t < nb; t++) {
            uint64_t p = slot_of(s, hs[t]);
            while (s->table[p]) if (++p == s->tsize) p = 0;
            s->table[p] = ((uint32_t)(i0 + t + 1) & imask) | (tag_of(s, hs[t]) << s->ib);
        }
    }
    return e;
}

/* A growable array with room for element n: arr itself while n < *cap, else arr grown (*cap doubled from
   `first`, the new part zeroed); on failure arr unchanged and *err = FC_ENOMEM. */
static void *room_for(void *arr, uint64_t n, uint64_t *cap, size_t elem, uint64_t first, int *err) {
    if (n < *cap) return arr;
    uint64_t ncap = *cap ? *cap * 2 : first;
    char *a = (char *)realloc(arr, ncap * elem);
    if (!a) { *err = FC_ENOMEM; return arr; }
    memset(a + *cap * elem, 0, (ncap - *cap) * elem);
    *cap = ncap;
    return a;
}

static int grow_arena(fc_search *s) {
    int e = 0;
    s->blk = (uint8_t **)room_for(s->blk, s->nblk, &s->blkcap, sizeof *s->blk, 16, &e);
    if (e) return e;
    uint8_t *blk = (uint8_t *)malloc(((size_t)1 << BLKBITS) * s->ks);
    if (!blk) return FC_ENOMEM;
    s->blk[s->nblk++] = blk;
    return 0;
}

/* FC_ORDER_BEST: the per-state arrays, grown by doubling */
static int grow_best(fc_search *s) {
    uint64_t ncap = s->pcap ? s->pcap * 2 : 4096;
    if (s->max_states && ncap > s->max_states) ncap = s->max_states;
    if (ncap <= s->pcap) return FC_ENOMEM;
    uint32_t *p = (uint32_t *)realloc(s->parent, ncap * sizeof *p);
    if (!p) return FC_ENOMEM;
    s->parent = p;
    uint16_t *m = (uint16_t *)realloc(s->mv, ncap * sizeof *m);
    if (!m) return FC_ENOMEM;
    s->mv = m;
    uint16_t *d = (uint16_t *)realloc(s->dep, ncap * sizeof *d);
    if (!d) return FC_ENOMEM;
    s->dep = d;
    s->pcap = ncap;
    return 0;
}

/* Append one event to the parent bitmap (FC_ORDER_BFS/DFS): 1 an expansion begins, 0 a state is stored. */
static int pbit_push(fc_search *s, int bit) {
    int e = 0;
    s->pbit = (uint64_t *)room_for(s->pbit, s->nbits >> 6, &s->pbcap, sizeof *s->pbit, 1024, &e);
    if (e) return e;
    if (s->nbits % (ZWORDS * 64) == 0) {
        s->zdir = (uint64_t *)room_for(s->zdir, s->nzdir, &s->zdcap, sizeof *s->zdir, 64, &e);
        if (e) return e;
        s->zdir[s->nzdir++] = s->nzero;
    }
    if (bit) s->pbit[s->nbits >> 6] |= 1ull << (s->nbits & 63);
    else s->nzero++;
    s->nbits++;
    return 0;
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

static int64_t lookup(const fc_search *s, const fkey_t *k, const ckey_t *ck, uint64_t h) {
    uint64_t p;
    return s->tsize ? probe(s, k, ck, h, &p) : -1;
}

/* 0: already there; 1: inserted; or FC_LIMIT / FC_ENOMEM */
static int insert(fc_search *s, const fkey_t *k, const ckey_t *ck, uint64_t h, uint32_t parent) {
    uint64_t p;
    if (probe(s, k, ck, h, &p) >= 0) return 0;
    if (s->max_states && s->count >= s->max_states) return FC_LIMIT;
    if (s->count >= MAX_STATES_CAP) return FC_ENOMEM;
    if ((s->count >> BLKBITS) >= s->nblk && grow_arena(s)) return FC_ENOMEM;
    if (s->order == FC_ORDER_BEST) {
        if (s->count == s->pcap && grow_best(s)) return FC_ENOMEM;
    } else if (s->count > 0 && pbit_push(s, 0)) {
        return FC_ENOMEM;
    }
    uint64_t idx = s->count;
    uint8_t *dst = kptr(s, idx);
    if (!s->compact) memcpy(dst, k, sizeof *k);
    else if (!(ck->hi & OVF)) memcpy(dst, ck, sizeof *ck);
    else {
        int e = 0;
        s->ovf = (fkey_t *)room_for(s->ovf, s->novf, &s->ovfcap, sizeof *s->ovf, 64, &e);
        if (e) return e;
        ckey_t t = {s->novf, OVF};
        s->ovf[s->novf++] = *k;
        memcpy(dst, &t, sizeof t);
    }
    s->count++;
    if (s->order == FC_ORDER_BEST) s->parent[idx] = parent;
    s->table[p] = ((uint32_t)(idx + 1) & (uint32_t)((1ull << s->ib) - 1)) | (tag_of(s, h) << s->ib);
    int hs = home_sum(k);
    if (hs > s->max_home) s->max_home = hs;
    if (hs == 52 && !s->won) { s->won = 1; s->won_index = (int64_t)idx; }
    if (s->count > s->tmax) {
        uint64_t ns = s->tsize + s->tsize / 2;
        if (ns > 0xFFFFFFFFull) ns = 0xFFFFFFFFull;
        if (ns <= s->tsize || build_table(s, ns)) return FC_ENOMEM;
    }
    return 1;
}

/* ---- public: successors on plain positions ---- */
static int succ_keys(const fc_pos *p, const fc_rules *r, ctx_t *c, fkey_t *out) {
    int e = check_rules(r);
    if (e) return e;
    if (r->hand) return FC_EBADRULES;     /* a plain position does not say whether the favor is used */
    if (fc_pos_check(p, FC_MAX_CELLS)) return FC_EBADPOS;
    if (ctx_init(c, p, r)) return FC_EBADPOS;
    fkey_t k;
    if (pos_to_key(c, p, &k)) return FC_EENCODE;
    int n = gen(c, &k, out);
    if (c->autoplay) for (int i = 0; i < n; i++) autoplay_key(c, &out[i]);
    return n;
}

int fc_successors(const fc_pos *p, const fc_rules *r, fc_pos *out, int cap) {
    ctx_t c;
    fkey_t buf[SOLVE_MAX_SUCC];
    int n = succ_keys(p, r, &c, buf);
    if (n < 0) return n;
    if (n > cap) return FC_ERANGE;
    for (int i = 0; i < n; i++) key_to_pos(&c, &buf[i], &out[i]);
    return n;
}

int fc_successors_p64(const uint8_t *in64, const fc_rules *r, uint8_t *out, int cap) {
    fc_pos p;
    ctx_t c;
    fkey_t buf[SOLVE_MAX_SUCC];
    if (fc_p64_to_pos(in64, &p)) return FC_EBADPOS;
    int n = succ_keys(&p, r, &c, buf);
    if (n < 0) return n;
    if (n > cap) return FC_ERANGE;
    for (int i = 0; i < n; i++) key_to_p64(&c, &buf[i], out + (size_t)i * FC_P64_SIZE);
    return n;
}

int fc_autoplay(fc_pos *p, const fc_rules *r) {
    ctx_t c;
    fkey_t k;
    int e = check_rules(r);
    if (e) return e;
    if (fc_pos_check(p, FC_MAX_CELLS)) return FC_EBADPOS;
    if (!r->autoplay) return 0;
    if (ctx_init(&c, p, r) || pos_to_key(&c, p, &k)) return FC_EBADPOS;
    int moved = autoplay_key(&c, &k);
    key_to_pos(&c, &k, p);
    return moved;
}

/* ---- public: the search ---- */
static int push_stack(fc_search *s, uint32_t idx);
static int heap_push(fc_search *s, uint32_t idx);
static int best_goal(fc_search *s, uint32_t idx);
static int run_best(fc_search *s, uint64_t max_expand);
static const int DEFAULT_WEIGHTS[FC_NWEIGHTS];

/* (Re)start search s from `start`: its context, its counters, the start state stored. A search used
   before keeps its memory (the arena's first block, the table when it has its first size, the per-state
   arrays up to TABLE_KEEP states, the heap): the survey's batch (fc_solve_deals) runs thousands of
   searches in one. The solver's table starts small (most of its searches store a few hundred positions:
   a table cleared for each is cheap) and grows by half when 80% full, as every table does. */
#define TABLE_FIRST 16384
#define TABLE_FIRST_BEST 2048
#define TABLE_KEEP 65536
static int search_start(fc_search *s, const fc_pos *start, const fc_rules *r, uint64_t max_states,
                        int stop_on_win, int order) {
    int used = s->tsize != 0;
    if (ctx_setup(&s->c, start, r, used)) return FC_EBADPOS;
    s->max_states = max_states > MAX_STATES_CAP ? MAX_STATES_CAP : max_states;
    s->stop_on_win = stop_on_win != 0;
    s->order = (order == FC_ORDER_DFS || order == FC_ORDER_BEST) ? order : FC_ORDER_BFS;
    s->won = s->max_home = 0;
    s->won_index = -1;
    s->status = FC_RUNNING;
    s->count = s->head = s->expanded = s->generated = 0;
    s->novf = s->sp = s->hn = 0;
    s->nbits = s->nzero = s->nzdir = 0;
    if (s->pbit) memset(s->pbit, 0, s->pbcap * sizeof *s->pbit);
    /* compact keys for the enumerations, unless the fixed fields alone leave too little room (then
       nearly every position would go to the overflow keys); compile with -DFC_WIDE_KEYS for 40 bytes */
    s->compact = s->order != FC_ORDER_BEST && 8 * s->c.hb + s->c.cb + s->c.hand <= 100;
#ifdef FC_WIDE_KEYS
    s->compact = 0;
#endif
    size_t ks = s->compact ? sizeof(ckey_t) : sizeof(fkey_t);
    if (ks != s->ks || s->nblk > 1) {   /* keep one block of the arena, of this key size */
        for (uint64_t b = ks != s->ks ? 0 : 1; b < s->nblk; b++) free(s->blk[b]);
        s->nblk = ks != s->ks ? 0 : s->nblk ? 1 : 0;
        s->ks = ks;
    }
    if (!s->nblk && grow_arena(s)) return FC_ENOMEM;
    uint64_t first = s->order == FC_ORDER_BEST ? TABLE_FIRST_BEST : TABLE_FIRST;
    if (s->tsize != first) {
        free(s->table);
        s->table = NULL;
        s->tsize = 0;
        if (build_table(s, first)) return FC_ENOMEM;
    } else {
        memset(s->table, 0, s->tsize * sizeof *s->table);
    }
    if (s->c.hand && !s->bigbuf) {
        s->bigbuf = (fkey_t *)malloc(HAND_MAX_SUCC * sizeof *s->bigbuf);
        s->bigck = (ckey_t *)malloc(HAND_MAX_SUCC * sizeof *s->bigck);
        s->bighash = (uint64_t *)malloc(HAND_MAX_SUCC * sizeof *s->bighash);
        s->bigfresh = (uint32_t *)malloc(HAND_MAX_SUCC * sizeof *s->bigfresh);
        if (!s->bigbuf || !s->bigck || !s->bighash || !s->bigfresh) return FC_ENOMEM;
    }
    if (s->order == FC_ORDER_BEST) {
        if (s->pcap > TABLE_KEEP) {
            free(s->parent); free(s->mv); free(s->dep);
            s->parent = NULL; s->mv = NULL; s->dep = NULL;
            s->pcap = 0;
        }
        if (s->max_states && s->pcap > s->max_states) s->pcap = s->max_states;  /* grow_best's cap */
        if (!s->pcap && grow_best(s)) return FC_ENOMEM;
        memcpy(s->w, DEFAULT_WEIGHTS, sizeof s->w);
    }
    fkey_t k;
    if (pos_to_key(&s->c, start, &k)) return FC_EENCODE;
    s->start_raw = k;
    autoplay_key(&s->c, &k);
    if (s->c.canonical) canon_key(&k);
    ckey_t ck;
    int e = insert(s, &k, &ck, prep_key(s, &k, &ck), 0xFFFFFFFFu);
    if (e != 1 || (s->order == FC_ORDER_DFS && push_stack(s, 0))) return FC_ENOMEM;
    if (s->order == FC_ORDER_BEST) {
        s->mv[0] = 0;
        s->dep[0] = 0;
        if ((!s->won && best_goal(s, 0) < 0) || heap_push(s, 0)) return FC_ENOMEM;
    }
    if (s->won && s->stop_on_win) s->status = FC_WON;
    return 0;
}

fc_search *fc_search_new(const fc_pos *start, const fc_rules *r, uint64_t max_states, int stop_on_win,
                         int order, int *err) {
    int e = check_rules(r), dummy;
    if (!err) err = &dummy;
    if (e) { *err = e; return NULL; }
    if (fc_pos_check(start, FC_MAX_CELLS)) { *err = FC_EBADPOS; return NULL; }
    fc_search *s = (fc_search *)calloc(1, sizeof *s);
    if (!s) { *err = FC_ENOMEM; return NULL; }
    e = search_start(s, start, r, max_states, stop_on_win, order);
    if (e) { fc_search_free(s); *err = e; return NULL; }
    *err = 0;
    return s;
}

void fc_search_free(fc_search *s) {
    if (!s) return;
    for (uint64_t b = 0; b < s->nblk; b++) free(s->blk[b]);
    free(s->blk);
    free(s->ovf);
    free(s->table);
    free(s->pbit);
    free(s->zdir);
    free(s->parent);
    free(s->stack);
    free(s->mv);
    free(s->dep);
    free(s->heap);
    free(s->bigbuf);
    free(s->bigck);
    free(s->bighash);
    free(s->bigfresh);
    free(s);
}

static int push_stack(fc_search *s, uint32_t idx) {
    int e = 0;
    s->stack = (uint32_t *)room_for(s->stack, s->sp, &s->scap, sizeof *s->stack, 4096, &e);
    if (e) return e;
    s->stack[s->sp++] = idx;
    return 0;
}

int fc_search_run(fc_search *s, uint64_t max_expand) {
    if (s->status != FC_RUNNING) return s->status;
    if (s->order == FC_ORDER_BEST) return s->status = run_best(s, max_expand);
    const ctx_t *c = &s->c;
    const int dfs = s->order == FC_ORDER_DFS;
    uint64_t budget = max_expand;
    uint32_t fresh_small[SOLVE_MAX_SUCC];
    uint32_t *fresh = s->bigfresh ? s->bigfresh : fresh_small;
    fkey_t *buf = s->bigbuf ? s->bigbuf : s->buf;
    ckey_t *cbuf = s->bigck ? s->bigck : s->cbuf;
    uint64_t *hbuf = s->bighash ? s->bighash : s->hbuf;
    for (;;) {
        uint64_t cur;
        if (dfs) {
            if (!s->sp) break;
            cur = s->stack[s->sp - 1];
        } else {
            if (s->head >= s->count) break;
            cur = s->head;
        }
        if (max_expand && budget-- == 0) return s->status = FC_RUNNING;
        if (pbit_push(s, 1)) return s->status = FC_ENOMEM;
        fkey_t k;
        load_key(s, cur, &k);
        int n = gen(c, &k, buf), nf = 0;
        s->generated += (uint64_t)n;
        if (c->autoplay) for (int i = 0; i < n; i++) autoplay_key(c, &buf[i]);
        if (c->canonical) for (int i = 0; i < n; i++) canon_key(&buf[i]);
        for (int i = 0; i < n; i++) {
            hbuf[i] = prep_key(s, &buf[i], &cbuf[i]);
            PREFETCH(&s->table[slot_of(s, hbuf[i])]);
        }
        for (int i = 0; i < n; i++) {
            int e = insert(s, &buf[i], &cbuf[i], hbuf[i], (uint32_t)cur);
            if (UNLIKELY(e > 1 || e < 0)) return s->status = e;   /* FC_LIMIT or FC_ENOMEM */
            if (e == 1) {
                if (UNLIKELY(s->won && s->stop_on_win)) return s->status = FC_WON;
                fresh[nf++] = (uint32_t)(s->count - 1);
            }
        }
        s->expanded++;
        if (dfs) {
            s->sp--;
            /* the first-generated successor is expanded first */
            for (int i = nf - 1; i >= 0; i--)
                if (push_stack(s, fresh[i])) return s->status = FC_ENOMEM;
        } else {
            s->head++;
        }
    }
    free(s->stack);               /* the search is over: the DFS stack is empty */
    s->stack = NULL;
    s->sp = s->scap = 0;
    return s->status = FC_DONE;
}

void fc_search_stats(const fc_search *s, fc_stats *out) {
    out->states = s->count;
    out->expanded = s->expanded;
    out->generated = s->generated;
    out->max_home = s->max_home;
    out->won = s->won;
    out->won_index = s->won_index;
    out->status = s->status;
}

uint64_t fc_search_count(const fc_search *s) { return s->count; }

int fc_search_get_p64(const fc_search *s, uint64_t idx, uint8_t *out) {
    fkey_t k;
    if (idx >= s->count) return FC_ERANGE;
    load_key(s, idx, &k);
    key_to_p64(&s->c, &k, out);
    return 0;
}

int fc_search_get_pos(const fc_search *s, uint64_t idx, fc_pos *out) {
    fkey_t k;
    if (idx >= s->count) return FC_ERANGE;
    memset(out, 0, sizeof *out);
    load_key(s, idx, &k);
    key_to_pos(&s->c, &k, out);
    return 0;
}

uint64_t fc_search_export_p64(const fc_search *s, uint64_t first, uint64_t count, uint8_t *out) {
    fkey_t k;
    if (first >= s->count) return 0;
    if (count > s->count - first) count = s->count - first;
    for (uint64_t i = 0; i < count; i++) {
        load_key(s, first + i, &k);
        key_to_p64(&s->c, &k, out + i * FC_P64_SIZE);
    }
    return count;
}

/* ---- the states in the order of their P64 records (certificates are sorted) ---- */
typedef struct { uint64_t key; uint32_t idx; } skey_t;

static int cmp_skey(const void *a, const void *b) {
    const skey_t *x = (const skey_t *)a, *y = (const skey_t *)b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The record of element i of a collection (a search's state i, a disk search's key i), as P64. */
typedef void (*rec_fn)(const void *src, uint64_t i, uint8_t *rec);

static void search_rec(const void *src, uint64_t i, uint8_t *rec) {
    const fc_search *s = (const fc_search *)src;
    fkey_t k;
    load_key(s, i, &k);
    key_to_p64(&s->c, &k, rec);
}

/* Sort v by the P64 bytes off..off+7 (big-endian), then each run of equal bytes by the next eight. */
static void sort_level(rec_fn f, const void *src, skey_t *v, uint64_t n, int off) {
    uint8_t rec[FC_P64_SIZE];
    for (uint64_t i = 0; i < n; i++) {
        f(src, v[i].idx, rec);
        uint64_t x = 0;
        for (int t = 0; t < 8; t++) x = x << 8 | rec[off + t];
        v[i].key = x;
    }
    qsort(v, (size_t)n, sizeof *v, cmp_skey);
    if (off + 8 >= FC_P64_SIZE) return;
    for (uint64_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && v[j].key == v[i].key; j++) {}
        if (j - i > 1) sort_level(f, src, v + i, j - i, off + 8);
    }
}

static void buffer_rec(const void *src, uint64_t i, uint8_t *rec) {
    memcpy(rec, (const uint8_t *)src + i * FC_P64_SIZE, FC_P64_SIZE);
}

/* Up to this many states (16.7 M: a buffer of 1 GB at most), their records are decoded once into a buffer (64
   bytes each) that the sort reads, instead of once a level of sort_level (the same order; 2.6 times as fast on
   deal 1387739's 1,487,998 records); above it, or when the buffer cannot be had, as before. */
#define SORT_BUFFERED_MAX (1u << 24)

int fc_search_sort_p64(const fc_search *s, uint32_t *order) {
    skey_t *v = (skey_t *)malloc((size_t)(s->count ? s->count : 1) * sizeof *v);
    if (!v) return FC_ENOMEM;
    for (uint64_t i = 0; i < s->count; i++) v[i].idx = (uint32_t)i;
    uint8_t *buf = s->count <= SORT_BUFFERED_MAX ? (uint8_t *)malloc((size_t)(s->count ? s->count : 1) * FC_P64_SIZE)
                                                 : NULL;
    if (buf) {
        fc_search_export_p64(s, 0, s->count, buf);
        sort_level(buffer_rec, buf, v, s->count, 0);
        free(buf);
    } else
        sort_level(search_rec, s, v, s->count, 0);
    for (uint64_t i = 0; i < s->count; i++) order[i] = v[i].idx;
    free(v);
    return 0;
}

uint64_t fc_search_export_p64_at(const fc_search *s, const uint32_t *idx, uint64_t count, uint8_t *out) {
    fkey_t k;
    for (uint64_t i = 0; i < count; i++) {
        if (idx[i] >= s->count) return i;
        load_key(s, idx[i], &k);
        key_to_p64(&s->c, &k, out + i * FC_P64_SIZE);
    }
    return count;
}

void fc_p64_column_order(uint8_t *recs, uint64_t n) {
    for (uint64_t r = 0; r < n; r++) {
        uint8_t *p = recs + r * FC_P64_SIZE, out[FC_P64_SIZE];
        int start[8], key[8], order[8], at = 0, o = 0;
        for (int c = 0; c < 8; c++, at++) {
            start[c] = at;
            while (at < FC_P64_SIZE && p[at]) at++;
            key[c] = at > start[c] ? p[start[c]] : 53;          /* empty: after every card (1..52) */
        }
        if (at > FC_P64_SIZE) continue;                      /* fewer than eight column ends */
        for (int c = 0; c < 8; c++) {                        /* insertion sort, stable */
            int i = c;
            for (; i > 0 && key[order[i - 1]] > key[c]; i--) order[i] = order[i - 1];
            order[i] = c;
        }
        for (int i = 0; i < 8; i++) {
            int c = order[i], len = 0;
            while (p[start[c] + len]) len++;
            memcpy(out + o, p + start[c], (size_t)len);
            o += len;
            out[o++] = 0;
        }
        memcpy(out + o, p + at, (size_t)(FC_P64_SIZE - at));   /* the free cells and the zeros after them */
        memcpy(p, out, FC_P64_SIZE);
    }
}

/* ---- parents from the event bitmap (FC_ORDER_BFS/DFS) ---- */

/* the bit position of the idx-th 0 (idx >= 1, idx <= nzero) */
static uint64_t select0(const fc_search *s, uint64_t idx) {
    uint64_t lo = 0, hi = s->nzdir;
    while (hi - lo > 1) {               /* the last directory entry with fewer than idx zeros before it */
        uint64_t m = (lo + hi) / 2;
        if (s->zdir[m] < idx) lo = m; else hi = m;
    }
    uint64_t z = s->zdir[lo], w = lo * ZWORDS;
    for (;; w++) {
        uint64_t zeros = 64 - (uint64_t)popc64(s->pbit[w]);
        if (z + zeros >= idx) break;
        z += zeros;
    }
    uint64_t word = ~s->pbit[w];
    for (uint64_t r = idx - z; r > 1; r--) word &= word - 1;
    return w * 64 + (uint64_t)ctz64(word);
}

/* Replays the bitmap up to state upto (>= 1): par[i] = parent of i for 1 <= i <= upto when par is not
   NULL; returns the parent of upto (FC_ENOMEM). BFS: expansion j is state j. DFS: the stack is replayed
   (its top is expanded; then popped, and the states found pushed, the first one on top). */
static int64_t walk_parents(const fc_search *s, uint64_t upto, uint32_t *par) {
    uint32_t *st = NULL;
    uint64_t sp = 0, scap = 0, next = 1, first = 1;
    int64_t cur = -1, j = -1, res = FC_ENOMEM;
    const int dfs = s->order == FC_ORDER_DFS;
    if (dfs) {
        scap = 4096;
        st = (uint32_t *)malloc(scap * sizeof *st);
        if (!st) return FC_ENOMEM;
        st[sp++] = 0;
    }
    for (uint64_t b = 0; b < s->nbits; b++) {
        if ((s->pbit[b >> 6] >> (b & 63)) & 1) {
            j++;
            if (!dfs) { cur = j; continue; }
            if (cur >= 0) {
                sp--;
                if (sp + (next - first) > scap) {
                    while (sp + (next - first) > scap) scap *= 2;
                    uint32_t *t = (uint32_t *)realloc(st, scap * sizeof *t);
                    if (!t) break;
                    st = t;
                }
                for (uint64_t t = next; t-- > first;) st[sp++] = (uint32_t)t;
            }
            cur = st[sp - 1];
            first = next;
        } else {
            if (par) par[next] = (uint32_t)cur;
            if (next == upto) { res = cur; break; }
            next++;
        }
    }
    free(st);
    return res;
}

int64_t fc_search_parent(const fc_search *s, uint64_t idx) {
    if (idx >= s->count || idx == 0) return -1;
    if (s->order == FC_ORDER_BEST) return s->parent[idx] == 0xFFFFFFFFu ? -1 : (int64_t)s->parent[idx];
    if (s->order == FC_ORDER_BFS) return (int64_t)(select0(s, idx) - (idx - 1)) - 1;
    int64_t p = walk_parents(s, idx, NULL);
    return p < 0 ? -1 : p;
}

/* The states from the start to idx (malloc'd, *len of them), or NULL (FC_ENOMEM). */
static uint64_t *path_to(const fc_search *s, uint64_t idx, uint64_t *len) {
    uint32_t *par = NULL;
    uint64_t n = 1;
    if (s->order == FC_ORDER_DFS && idx > 0) {
        par = (uint32_t *)malloc((idx + 1) * sizeof *par);
        if (!par || walk_parents(s, idx, par) < 0) { free(par); return NULL; }
        par[0] = 0xFFFFFFFFu;
    }
#define PARENT_OF(k) (par ? (par[k] == 0xFFFFFFFFu ? -1 : (int64_t)par[k]) : fc_search_parent(s, (uint64_t)(k)))
    for (int64_t k = (int64_t)idx; k > 0; k = PARENT_OF(k)) n++;
    uint64_t *path = (uint64_t *)malloc(n * sizeof *path);
    if (path) {
        uint64_t t = n;
        for (int64_t k = (int64_t)idx; k >= 0; k = k ? PARENT_OF(k) : -1) path[--t] = (uint64_t)k;
    }
#undef PARENT_OF
    free(par);
    *len = n;
    return path;
}

int64_t fc_search_path(const fc_search *s, uint64_t idx, uint64_t *out, uint64_t cap) {
    uint64_t n;
    if (idx >= s->count) return FC_ERANGE;
    uint64_t *path = path_to(s, idx, &n);
    if (!path) return FC_ENOMEM;
    if (n <= cap) memcpy(out, path, n * sizeof *path);
    free(path);
    return (int64_t)n;
}

int fc_search_home_count(const fc_search *s, uint64_t idx) {
    fkey_t k;
    if (idx >= s->count) return -1;
    load_key(s, idx, &k);
    return home_sum(&k);
}

int fc_search_successors_p64(const fc_search *s, uint64_t idx, uint8_t *out, int cap) {
    fkey_t buf[SOLVE_MAX_SUCC], k;
    if (idx >= s->count) return FC_ERANGE;
    if (s->c.hand) return FC_EBADRULES;
    load_key(s, idx, &k);
    int n = gen(&s->c, &k, buf);
    if (n > cap) return FC_ERANGE;
    for (int i = 0; i < n; i++) {
        autoplay_key(&s->c, &buf[i]);
        key_to_p64(&s->c, &buf[i], out + (size_t)i * FC_P64_SIZE);
    }
    return n;
}

int64_t fc_search_find_p64(const fc_search *s, const uint8_t *in64) {
    fc_pos p;
    fkey_t k;
    ckey_t ck;
    if (fc_p64_to_pos(in64, &p)) return -1;
    if (pos_to_key(&s->c, &p, &k)) return -1;
    if (s->c.canonical) canon_key(&k);
    return lookup(s, &k, &ck, prep_key(s, &k, &ck));
}

uint64_t fc_search_memory(const fc_search *s) {
    return s->nblk * ((uint64_t)1 << BLKBITS) * s->ks + s->blkcap * sizeof(uint8_t *)
           + s->ovfcap * sizeof(fkey_t) + s->tsize * sizeof(uint32_t)
           + s->pbcap * sizeof(uint64_t) + s->zdcap * sizeof(uint64_t)
           + s->scap * sizeof(uint32_t) + sizeof *s
           + s->pcap * (sizeof(uint32_t) + 2 * sizeof(uint16_t)) + s->hcap * sizeof(uint64_t);
}

uint64_t fc_search_overflow(const fc_search *s) { return s->compact ? s->novf : s->count; }

int fc_version(void) { return 3; }

/* =========================================================================================================
 * The solver (FC_ORDER_BEST, fc_solve, fc_search_moves, fc_shorten, fc_apply_move)
 *
 * Best first: a min-heap of unexpanded states keyed by score(state) + w[5] * depth, ties to the newest
 * state. The successors are those of `gen` (gen_mv), except that in the canonical mode a card goes to
 * the first empty column only, and a column's only card never goes to an empty column (both give
 * positions equal up to column order to ones generated anyway). fc_solve adds sequence moves (gen_super:
 * a whole top sequence onto a column, as many cards as the free cells and empty columns allow) and, in
 * its first stages, the move pruning FC_PRUNE_*. Automatic moves are tried only where a move can have
 * made one possible (a card sent home or back, or a column top uncovered): the stored states are closed
 * under them. A state whose columns are all sorted (ranks never rise toward the top) is as good as won:
 * every card then goes home, the lowest first; the won position is stored as its child with the move
 * MV_HOMEALL.
 *
 * Lines: every state remembers the move that made it (card and destination, the destination column
 * numbered as in the parent's stored -- canonical -- key). The line is rebuilt on the real position
 * from the start: the canonical column order of the real position maps the stored column numbers back
 * to real columns, the automatic moves are written out one card at a time, and a sequence move card by
 * card through the free cells and empty columns (move_seq). Every step is checked against the stored
 * key. fc_shorten then replays the line in the plain rules and takes shortcuts to later positions.
 * ========================================================================================================= */

/* heuristic weights (see score, heap_push): w[0] per card not home, w[1] per card above a lower card of its
   column, w[2] per card above the next card of its suit, w[3] per occupied cell, w[4] per non-empty column,
   w[5] per move made (the search step: a sequence move counts one), w[6] per card below the top sequence
   of its column, w[7] per rank of spread between the highest and the lowest foundation; w[8] != 0: depth
   first (the deepest state first, siblings by score); w[9] > 0: a pseudo-random 0..w[9]-1 added to the
   score, a function of the position and the seed w[10] (randomised restarts: each seed orders ties and
   near-ties differently). DEFAULT_WEIGHTS were tuned on deals 1..1500 (fewest positions). */
static const int DEFAULT_WEIGHTS[FC_NWEIGHTS] = {6, 4, 2, 9, 4, 4, 5, 3, 0, 0, 0, 0};

/* The stages of fc_solve, run one after the other until one wins; `states` is the stage's budget (0: the
   caller's max_states), every budget is capped by max_states. The first stage (pruned, plain weights)
   solves nearly every deal with 4 cells in a few hundred positions; the next ones are restarts with the
   pruning and randomised weights -- four bases: the plain weights, with the depth counting less (W_D2),
   stressing the free cells and columns (W_CELLS) or ignoring the depth (W_GREEDY) -- each with its own
   seed: a deal the heuristic leads astray under one ordering is rarely led astray under all of them
   (deals 114255, 305642, 429182 and 496564 were not solved within 3,000,000 positions by one ordering;
   a hard deal is typically won by about half of the short restarts, in a few thousand positions, so
   many short restarts beat a few long ones). Two stages have no pruning (some deals need a move the
   pruning leaves out); the last of them, up to max_states: when it runs out of positions (FC_DONE) the
   solver's whole space was seen. Chosen on the deals of 1..400,000 the first stage does not solve,
   those four, 971761 (not solved within 3,000,000 by an earlier portfolio of nine stages), and deals
   1..200 with 2 and 3 free cells (fewest positions in all). */
typedef struct {
    int prune;
    uint32_t states;
    int w[FC_NWEIGHTS];
} stage_t;

#define W_D(seed) {6, 4, 2, 9, 4, 4, 5, 3, 0, 20, seed, 0}
#define W_D2(seed) {6, 4, 2, 9, 4, 2, 5, 3, 0, 20, seed, 0}
#define W_CELLS(seed) {6, 4, 2, 16, 8, 1, 5, 3, 0, 20, seed, 0}
#define W_GREEDY(seed) {6, 4, 2, 9, 4, 0, 5, 3, 0, 20, seed, 0}
static const stage_t PORTFOLIO[] = {
    {FC_PRUNE_ALL, 15000, {6, 4, 2, 9, 4, 2, 5, 3, 0, 0, 0, 0}},
    {FC_PRUNE_ALL, 8000, W_CELLS(1)},
    {FC_PRUNE_ALL, 8000, W_GREEDY(2)},
    {FC_PRUNE_ALL, 8000, W_D(3)},
    {FC_PRUNE_ALL, 8000, W_D2(4)},
    {FC_PRUNE_ALL, 8000, W_CELLS(5)},
    {FC_PRUNE_ALL, 8000, W_GREEDY(6)},
    {FC_PRUNE_ALL, 8000, W_D(7)},
    {FC_PRUNE_ALL, 8000, W_D2(8)},
    {0, 20000, W_D(9)},
    {FC_PRUNE_ALL, 30000, W_GREEDY(10)},
    {FC_PRUNE_ALL, 30000, W_CELLS(11)},
    {FC_PRUNE_ALL, 30000, W_D(12)},
    {FC_PRUNE_ALL, 30000, W_D2(13)},
    {FC_PRUNE_ALL, 60000, W_GREEDY(14)},
    {0, 0, W_D(15)},
};
#define NPORTFOLIO ((int)(sizeof PORTFOLIO / sizeof PORTFOLIO[0]))

int fc_weights(int base, int seed, int *w) {
    const int d[FC_NWEIGHTS] = W_D(seed), d2[FC_NWEIGHTS] = W_D2(seed), cells[FC_NWEIGHTS] = W_CELLS(seed),
              greedy[FC_NWEIGHTS] = W_GREEDY(seed);
    const int *src = base == FC_WEIGHTS_D ? d : base == FC_WEIGHTS_D2 ? d2 : base == FC_WEIGHTS_CELLS ? cells
                     : base == FC_WEIGHTS_GREEDY ? greedy : NULL;
    if (!src) return FC_ERANGE;
    memcpy(w, src, sizeof d);
    return 0;
}

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

/* Sequence moves from column i (its top chain of >= 2 cards): the top k >= 2 cards onto a column whose
   top card the k-th card stacks on, or onto an empty column, when k <= (free cells + 1) * 2^(empty
   columns other than the destination). Appended to out/mv from n; returns the new count. all = 0: to the
   first empty column of `empty` only (the solver); all = 1: to every empty column (explore's supermoves). */
static int gen_super(const ctx_t *c, const fkey_t *k, int i, const int *top, unsigned empty,
                     unsigned allempty, fkey_t *out, uint16_t *mv, int n, int prune, int all) {
    uint32_t w = k->w[i] & WMASK;
    int ch = w_chain(w), L = (int)((w >> 6) & 63), x = top[i];
    int f = c->cells - popc64(k->cells);
    if (f < 0) f = 0;
    int ne = popc64(allempty);
    int cards[14], have = 0, xr = isred(x);
    if (!all) empty &= -empty;   /* one empty destination only (SOLVE_MAX_SUCC relies on it) */
    for (int j = 0; j < 8; j++) {
        if (j == i) continue;
        int kmin, kmax;
        if (top[j] >= 0) {
            /* the card t below the top is of rank(x) + t and, the chain alternating, of x's colour
               exactly when t is even */
            int t = rank0(top[j]) - 1 - rank0(x);
            if (t < 1 || t > ch || (xr ^ (t & 1)) == isred(top[j])) continue;
            if (t + 1 > ((f + 1) << ne)) continue;
            kmin = kmax = t + 1;
        } else {
            if (!((empty >> j) & 1)) continue;
            kmin = 2;
            kmax = ch + 1;
            int cap = (f + 1) << (ne - 1);
            if (kmax > cap) kmax = cap;
            if (prune && L == 1 && kmax == ch + 1) kmax--;   /* not the whole column */
            if (c->pflags & FC_PRUNE_LONGEST) kmin = kmax;
            if (kmax < 2) continue;
        }
        if (!have) {   /* the chain's cards, read once the first move is found */
            for (int t = 0; t <= ch; t++) cards[t] = w_chain_card(c, w, t);
            have = 1;
        }
        for (int kk = kmin; kk <= kmax; kk++) {
            fkey_t b = *k;
            uint32_t ws = w;
            for (int t = 0; t < kk; t++) ws = w_pop(c, ws);
            b.w[i] = (k->w[i] & HMASK) | ws;
            uint32_t wd = b.w[j];
            for (int t = kk - 1; t >= 0; t--) wd = w_push(wd, cards[t]);
            b.w[j] = wd;
            out[n] = b;
            mv[n++] = (uint16_t)(mvcode(cards[kk - 1], j) | MV_SUPER);
        }
    }
    return n;
}

/* gen with move codes; prune: the canonical mode's reductions (see above) */
static int gen_mv(const ctx_t *c, const fkey_t *k, fkey_t *out, uint16_t *mv, uint8_t *from, int prune) {
    uint32_t pw[8];
    uint8_t dst[52];
    int top[8], h[4], n = 0;
    unsigned empty = col_targets(c, k, pw, top, dst, h);
    unsigned allempty = empty;
    if (prune) empty &= -empty;     /* the first empty column only */
    int room = popc64(k->cells) < c->cells;
    /* for gen_super: bit r of rtop[q] when a column's top card has rank0 r and isred ^ (r & 1) == q. The card
       t below the top of a chain headed by x (rank0 rx) goes onto a top of rank0 rx + 1 + t and of the other
       colour than its own, x's colour when t is even: that top's q is isred(x) ^ 1 ^ ((rx + 1) & 1) for
       every t, so the chain's possible destinations are one run of bits of one mask */
    uint32_t rtop[2] = {0, 0};
    if (c->super)
        for (int j = 0; j < 8; j++)
            if (top[j] >= 0) rtop[isred(top[j]) ^ (rank0(top[j]) & 1)] |= 1u << rank0(top[j]);

    for (int i = 0; i < 8; i++) {
        int x = top[i];
        if (x < 0) continue;
        fkey_t b = *k;
        uint32_t rest = w_pop(c, pw[i]);
        b.w[i] = (k->w[i] & HMASK) | rest;
        int n0 = n;
        if (h[suit(x)] == rank0(x)) { out[n] = b; out[n].w[suit(x)] += HOME1; mv[n++] = mvcode(x, FC_TO_HOME); }
        int onp = w_chain(pw[i]) > 0;   /* x lies on its stacking parent */
        unsigned to = (onp && (c->pflags & FC_PRUNE_SWAP)) ? 0u : dst[x];
        if (!((prune && !rest) || (onp && (c->pflags & FC_PRUNE_BREAK)))) to |= empty;
        to &= ~(1u << i);
        for (unsigned m = to; m; m &= m - 1) {
            int j = ctz64(m);
            out[n] = b; out[n].w[j] = w_push(k->w[j], x); mv[n++] = mvcode(x, j);
        }
        if (room && !(onp && (c->pflags & FC_PRUNE_CELL))) { out[n] = b; out[n].cells |= 1ull << x; mv[n++] = mvcode(x, FC_TO_CELL); }
        if (c->super && w_chain(pw[i])) {
            int ch = w_chain(pw[i]), rx = rank0(x);
            uint32_t want = (((1u << ch) - 1) << (rx + 2)) & rtop[isred(x) ^ 1 ^ ((rx + 1) & 1)];
            if (want || empty) n = gen_super(c, k, i, top, empty, allempty, out, mv, n, prune, 0);
        }
        for (int q = n0; q < n; q++) from[q] = (uint8_t)i;
    }
    int n1 = n;
    for (uint64_t cm = k->cells; cm; cm &= cm - 1) {
        int x = ctz64(cm);
        fkey_t b = *k;
        b.cells &= ~(1ull << x);
        if (h[suit(x)] == rank0(x)) { out[n] = b; out[n].w[suit(x)] += HOME1; mv[n++] = mvcode(x, FC_TO_HOME); }
        for (unsigned m = dst[x] | empty; m; m &= m - 1) {
            int j = ctz64(m);
            out[n] = b; out[n].w[j] = w_push(k->w[j], x); mv[n++] = mvcode(x, j);
        }
    }
    for (int q = n1; q < n; q++) from[q] = FC_TO_CELL;
    if (c->fret) {
        int n2 = n;
        for (int s = 0; s < 4; s++) {
            if (!h[s]) continue;
            int x = (h[s] - 1) * 4 + s;
            fkey_t b = *k;
            b.w[s] -= HOME1;
            for (unsigned m = dst[x] | empty; m; m &= m - 1) {
                int j = ctz64(m);
                out[n] = b; out[n].w[j] = w_push(b.w[j], x); mv[n++] = mvcode(x, j);
            }
        }
        for (int q = n2; q < n; q++) from[q] = FC_TO_HOME;
    }
    return n;
}

/* autoplay_key, writing each card it sends home as a move (while there is room); 0 or FC_ERANGE */
static int autoplay_rec(const ctx_t *c, fkey_t *k, uint16_t *out, int *n, int cap) {
    int r = autoplay_moves(c, k, out, n, cap);
    return r < 0 ? r : 0;
}

/* every column sorted: ranks never rise toward the top */
static int key_sorted(const ctx_t *c, const fkey_t *k) {
    for (int i = 0; i < 8; i++) {
        uint32_t w = k->w[i] & WMASK;
        int L = (int)((w >> 6) & 63);
        if (L >= 2 && !c->osorted[c->colof[w & 63]][L]) return 0;
    }
    return 1;
}

/* the won position (every column and cell empty, every foundation at the king) */
static void won_key(fkey_t *k) {
    memset(k, 0, sizeof *k);
    for (int s = 0; s < 4; s++) k->w[s] = 13u << 28;
}

/* Apply move (x, dest) to k if legal under the plain rules of c (cells, fret). 0 or FC_EILLEGAL. */
static int key_apply(const ctx_t *c, fkey_t *k, int x, int dest) {
    int src = -1, incell = 0, fromhome = 0;
    if (x < 0 || x >= 52 || dest < 0 || dest > FC_TO_HOME) return FC_EILLEGAL;
    for (int i = 0; i < 8; i++) {
        uint32_t w = k->w[i] & WMASK;
        if (w && w_top(c, w) == x) { src = i; break; }
    }
    int hs = (int)(k->w[suit(x)] >> 28);
    if (src < 0) {
        if ((k->cells >> x) & 1) incell = 1;
        else if (c->fret && hs == rank0(x) + 1) fromhome = 1;
        else return FC_EILLEGAL;
    }
    if (dest == FC_TO_HOME) {
        if (fromhome || hs != rank0(x)) return FC_EILLEGAL;
    } else if (dest == FC_TO_CELL) {
        if (src < 0 || popc64(k->cells) >= c->cells) return FC_EILLEGAL;
    } else {
        if (dest == src) return FC_EILLEGAL;
        uint32_t wd = k->w[dest] & WMASK;
        if (wd && !stacks(x, w_top(c, wd))) return FC_EILLEGAL;
    }
    if (src >= 0) k->w[src] = (k->w[src] & HMASK) | w_pop(c, k->w[src] & WMASK);
    else if (incell) k->cells &= ~(1ull << x);
    else k->w[suit(x)] -= HOME1;
    if (dest == FC_TO_HOME) k->w[suit(x)] += HOME1;
    else if (dest == FC_TO_CELL) k->cells |= 1ull << x;
    else k->w[dest] = w_push(k->w[dest], x);
    return 0;
}

/* perm[p]: the real column that is at place p in the canonical order of k */
static void canon_perm(const fkey_t *k, int *perm) {
    uint32_t v[8];
    for (int i = 0; i < 8; i++) { v[i] = k->w[i] & WMASK; perm[i] = i; }
    for (int i = 1; i < 8; i++) {      /* the same insertion sort as canon_key */
        uint32_t x = v[i];
        int xi = perm[i], j = i - 1;
        while (j >= 0 && v[j] < x) { v[j + 1] = v[j]; perm[j + 1] = perm[j]; j--; }
        v[j + 1] = x;
        perm[j + 1] = xi;
    }
}

/* The score of a state, lower is better: a weighted sum of the cards not home, the cards lying above a
   lower card of their column ("blocked"), the cards above the next card of each suit ("buried"), the
   occupied free cells, the non-empty columns, the cards below the top sequence of their column
   ("unsequenced"), and the spread of the foundations. Computed from the column words and tables of the
   start columns, without decoding the columns. */
static int score(const ctx_t *c, const fkey_t *k, const int *w) {
    int h[4], home = 0, blocked = 0, buried = 0, nonempty = 0, unseq = 0, hmin = 13, hmax = 0;
    int L[8], ch[8], rb[8], n[8];
    int8_t at[52];           /* at[x]: the column whose bottom card is x, -1 when none */
    uint32_t ww[8];
    memset(at, -1, sizeof at);
    for (int s = 0; s < 4; s++) {
        h[s] = (int)(k->w[s] >> 28); home += h[s];
        if (h[s] < hmin) hmin = h[s];
        if (h[s] > hmax) hmax = h[s];
    }
    for (int i = 0; i < 8; i++) {
        uint32_t wi = k->w[i] & WMASK;
        ww[i] = wi;
        if (!wi) { n[i] = 0; continue; }
        int c0 = (int)(wi & 63), l = (int)((wi >> 6) & 63), chn = w_chain(wi), mn;
        int b = rank0(w_head(c, wi));
        if (l == 1) mn = rank0(c0);
        else {
            int col = c->colof[c0];
            blocked += c->oblk[col][l];
            mn = c->omin[col][l];
        }
        int cb = b - 1 - mn;                 /* chain cards (ranks b-1 down to b-chn) above rank mn */
        blocked += cb < 0 ? 0 : (cb < chn ? cb : chn);
        L[i] = l; ch[i] = chn; rb[i] = b; n[i] = l + chn;
        at[c0] = (int8_t)i;
        nonempty++;
        unseq += l - 1;
    }
    for (int s = 0; s < 4; s++) {
        if (h[s] >= 13) continue;
        int x = h[s] * 4 + s, r = h[s];
        if ((k->cells >> x) & 1) continue;
        /* x is in exactly one column: still in the base of its start column (whose bottom card is that
           column's), the one-card base of a column, or a chain card */
        if (c->ocol[x] != 0xFF) {
            int i = at[c->orig[c->ocol[x]][0]];
            if (i >= 0 && L[i] >= 2 && c->opos[x] < L[i]) { buried += n[i] - 1 - c->opos[x]; continue; }
        }
        if (at[x] >= 0 && L[at[x]] == 1) { buried += ch[at[x]]; continue; }
        for (int i = 0; i < 8; i++) {
            if (!n[i]) continue;
            uint32_t wi = ww[i];
            int lo = rb[i] - ch[i];
            if (r >= lo && r < rb[i] && w_chain_card(c, wi, r - lo) == x) { buried += r - lo; break; }
        }
    }
    return w[0] * (52 - home) + w[1] * blocked + w[2] * buried + w[3] * popc64(k->cells)
           + w[4] * nonempty + w[6] * unseq + w[7] * (hmax - hmin);
}

static int heap_push_key(fc_search *s, uint64_t key) {
    if (s->hn == s->hcap) {
        uint64_t ncap = s->hcap ? s->hcap * 2 : 4096;
        uint64_t *h = (uint64_t *)realloc(s->heap, ncap * sizeof *h);
        if (!h) return FC_ENOMEM;
        s->heap = h;
        s->hcap = ncap;
    }
    uint64_t i = s->hn++;
    uint64_t *h = s->heap;
    while (i > 0) {
        uint64_t p = (i - 1) >> 1;
        if (h[p] <= key) break;
        h[i] = h[p];
        i = p;
    }
    h[i] = key;
    return 0;
}

static uint32_t heap_pop(fc_search *s) {
    uint64_t *h = s->heap;
    uint64_t top = h[0], last = h[--s->hn], n = s->hn, i = 0;
    for (;;) {
        uint64_t l = 2 * i + 1;
        if (l >= n) break;
        uint64_t m = (l + 1 < n && h[l + 1] < h[l]) ? l + 1 : l;
        if (h[m] >= last) break;
        h[i] = h[m];
        i = m;
    }
    if (n) h[i] = last;
    return 0xFFFFFFFFu - (uint32_t)top;
}

static int heap_push(fc_search *s, uint32_t idx) {
    const int *w = s->w;
    fkey_t k;
    load_key(s, idx, &k);
    int64_t f = (int64_t)score(&s->c, &k, w);
    if (w[9] > 0) f += (int64_t)((hash_key(&k) ^ (uint32_t)w[10]) % (uint32_t)w[9]);
    if (w[8]) {
        /* depth first: the deepest state first, its children in the order of their scores */
        if (f < 0) f = 0;
        if (f > 0x7FFF) f = 0x7FFF;
        f |= (int64_t)(0xFFFF - s->dep[idx]) << 15;
    } else {
        f += (int64_t)w[5] * s->dep[idx];
        if (f < 0) f = 0;
        if (f > 0x7FFFFFFF) f = 0x7FFFFFFF;
    }
    return heap_push_key(s, ((uint64_t)f << 32) | (0xFFFFFFFFu - idx));
}

/* After state idx was stored: when its columns are sorted, store the won position as its child.
   Returns 1 when the won position was stored, 0 if not, or FC_LIMIT / FC_ENOMEM. */
static int best_goal(fc_search *s, uint32_t idx) {
    fkey_t k;
    ckey_t ck;
    load_key(s, idx, &k);
    if (!key_sorted(&s->c, &k)) return 0;
    won_key(&k);
    int e = insert(s, &k, &ck, prep_key(s, &k, &ck), idx);
    if (e == 1) {
        s->mv[s->count - 1] = MV_HOMEALL;
        s->dep[s->count - 1] = s->dep[idx] == 0xFFFF ? 0xFFFF : (uint16_t)(s->dep[idx] + 1);
    }
    return e;
}

static int run_best(fc_search *s, uint64_t max_expand) {
    const ctx_t *c = &s->c;
    uint64_t budget = max_expand;
    while (s->hn) {
        if (max_expand && budget-- == 0) return FC_RUNNING;
        uint32_t cur = heap_pop(s);
        fkey_t k;
        load_key(s, cur, &k);
        int n = gen_mv(c, &k, s->buf, s->mvbuf, s->frombuf, c->canonical);
        s->generated += (uint64_t)n;
        if (c->autoplay) {
            /* the stored states are closed under autoplay: only a move to a foundation, a foundation
               return, or a newly exposed column top can make a card safe to send home */
            for (int i = 0; i < n; i++) {
                fkey_t *b = &s->buf[i];
                int f = s->frombuf[i];
                if ((s->mvbuf[i] >> 8) == FC_TO_HOME || f == FC_TO_HOME) autoplay_key(c, b);
                else if (f < 8) {
                    uint32_t w = b->w[f] & WMASK;
                    if (w && safe_home(c->autoplay, w_top(c, w), b)) autoplay_key(c, b);
                }
            }
        }
        if (c->canonical) for (int i = 0; i < n; i++) canon_key(&s->buf[i]);
        for (int i = 0; i < n; i++) {
            s->hbuf[i] = prep_key(s, &s->buf[i], &s->cbuf[i]);
            PREFETCH(&s->table[slot_of(s, s->hbuf[i])]);
        }
        uint16_t d = s->dep[cur] == 0xFFFF ? 0xFFFF : (uint16_t)(s->dep[cur] + 1);
        for (int i = 0; i < n; i++) {
            int e = insert(s, &s->buf[i], &s->cbuf[i], s->hbuf[i], cur);
            if (UNLIKELY(e > 1 || e < 0)) return e;
            if (e == 1) {
                uint32_t idx = (uint32_t)(s->count - 1);
                s->mv[idx] = s->mvbuf[i];
                s->dep[idx] = d;
                if (UNLIKELY(s->won && s->stop_on_win)) return FC_WON;
                e = best_goal(s, idx);
                if (UNLIKELY(e > 1 || e < 0)) return e;
                if (UNLIKELY(s->won && s->stop_on_win)) return FC_WON;
                if (heap_push(s, idx)) return FC_ENOMEM;
            }
        }
        s->expanded++;
    }
    return FC_DONE;
}

/* ---- lines ---- */

static inline int key_eq_canon(const ctx_t *c, const fkey_t *a, const fkey_t *stored) {
    fkey_t t = *a;
    if (c->canonical) canon_key(&t);
    return key_eq(&t, stored);
}

/* send every card home, lowest available first (the position must be sorted or won) */
static int home_all_rec(const ctx_t *c, fkey_t *k, uint16_t *out, int *n, int cap) {
    for (;;) {
        int moved = 0;
        for (int i = 0; i < 8; i++) {
            uint32_t w = k->w[i] & WMASK;
            if (!w) continue;
            int x = w_top(c, w);
            if ((int)(k->w[suit(x)] >> 28) == rank0(x)) {
                if (*n >= cap) return FC_ERANGE;
                out[(*n)++] = mvcode(x, FC_TO_HOME);
                k->w[i] = (k->w[i] & HMASK) | w_pop(c, w);
                k->w[suit(x)] += HOME1;
                moved = 1;
            }
        }
        for (uint64_t m = k->cells; m; m &= m - 1) {
            int x = ctz64(m);
            if ((int)(k->w[suit(x)] >> 28) == rank0(x)) {
                if (*n >= cap) return FC_ERANGE;
                out[(*n)++] = mvcode(x, FC_TO_HOME);
                k->cells &= ~(1ull << x);
                k->w[suit(x)] += HOME1;
                moved = 1;
            }
        }
        if (!moved) return home_sum(k) == 52 ? 0 : FC_EENCODE;
    }
}

/* one step of a line on the real position a: to stored state j (parent already matched) */
/* move the top k cards of column src onto column dst one card at a time, through the free cells and
   the empty columns in `empties` (dst not among them): the classic recursion */
static int move_seq(const ctx_t *c, fkey_t *a, int k, int src, int dst, unsigned empties,
                    uint16_t *out, int *n, int cap) {
    int f = c->cells - popc64(a->cells);
    int e = popc64(empties);
    if (k <= f + 1 || e == 0) {
        int parked[FC_MAX_CELLS + 1], np = 0;
        if (k > f + 1) return FC_EENCODE;
        for (int t = 0; t < k; t++) {
            uint32_t w = a->w[src] & WMASK;
            if (!w) return FC_EENCODE;
            int x = w_top(c, w), d = t == k - 1 ? dst : FC_TO_CELL;
            if (key_apply(c, a, x, d)) return FC_EENCODE;
            if (*n >= cap) return FC_ERANGE;
            out[(*n)++] = mvcode(x, d);
            if (d == FC_TO_CELL) parked[np++] = x;
        }
        while (np > 0) {
            int x = parked[--np];
            if (key_apply(c, a, x, dst)) return FC_EENCODE;
            if (*n >= cap) return FC_ERANGE;
            out[(*n)++] = mvcode(x, dst);
        }
        return 0;
    }
    int e1 = ctz64(empties);
    unsigned rest = empties & (empties - 1);
    int capm = (f + 1) << (e - 1);
    int ktop = k - capm;
    if (ktop <= 0) return move_seq(c, a, k, src, dst, rest, out, n, cap);
    int r = move_seq(c, a, ktop, src, e1, rest, out, n, cap);
    if (!r) r = move_seq(c, a, k - ktop, src, dst, rest, out, n, cap);
    if (!r) r = move_seq(c, a, ktop, e1, dst, rest, out, n, cap);
    return r;
}

static int step_stored(const fc_search *s, fkey_t *a, uint64_t j, uint16_t *out, int *n, int cap) {
    const ctx_t *c = &s->c;
    uint16_t code = s->mv[j];
    if (code == MV_HOMEALL) return home_all_rec(c, a, out, n, cap);
    int x = code & 63, dest = (code >> 8) & 15;
    if (c->canonical && dest < 8) {
        int perm[8];
        canon_perm(a, perm);
        dest = perm[dest];
    }
    if (code & MV_SUPER) {
        /* the column holding x and how many cards lie on it */
        uint8_t cards[64];
        int src = -1, k = 0;
        unsigned empties = 0;
        for (int i = 0; i < 8; i++) {
            int m = decode_col(c, a->w[i], cards);
            if (!m) { if (i != dest) empties |= 1u << i; continue; }
            for (int t = 0; t < m; t++) if (cards[t] == x) { src = i; k = m - t; }
        }
        if (src < 0 || src == dest || dest >= 8) return FC_EENCODE;
        int e = move_seq(c, a, k, src, dest, empties, out, n, cap);
        if (e) return e;
    } else {
        if (key_apply(c, a, x, dest)) return FC_EENCODE;
        if (*n >= cap) return FC_ERANGE;
        out[(*n)++] = mvcode(x, dest);
    }
    return autoplay_rec(c, a, out, n, cap);
}

/* one step by regenerating the real position's successors and matching the stored key */
static int step_match(const fc_search *s, fkey_t *a, uint64_t j, uint16_t *out, int *n, int cap) {
    const ctx_t *c = &s->c;
    fkey_t buf[FC_MAX_SUCC];
    uint16_t mv[FC_MAX_SUCC];
    uint8_t from[FC_MAX_SUCC];
    fkey_t kj;
    load_key(s, j, &kj);
    int m = gen_mv(c, a, buf, mv, from, 0);
    for (int i = 0; i < m; i++) {
        fkey_t t = buf[i];
        autoplay_key(c, &t);
        if (key_eq_canon(c, &t, &kj)) {
            if (*n >= cap) return FC_ERANGE;
            out[(*n)++] = mv[i];
            *a = buf[i];
            return autoplay_rec(c, a, out, n, cap);
        }
    }
    if (home_sum(&kj) == 52 && key_sorted(c, a))   /* a won child of a sorted position */
        return home_all_rec(c, a, out, n, cap);
    return FC_EENCODE;
}

int fc_search_moves(const fc_search *s, uint64_t idx, uint16_t *moves, int cap) {
    if (idx >= s->count) return FC_ERANGE;
    uint64_t len;
    uint64_t *path = path_to(s, idx, &len);
    if (!path) return FC_ENOMEM;
    fkey_t a = s->start_raw, kj;
    int n = 0, e = autoplay_rec(&s->c, &a, moves, &n, cap);
    load_key(s, 0, &kj);
    if (!e && !key_eq_canon(&s->c, &a, &kj)) e = FC_EENCODE;
    for (uint64_t i = 1; !e && i < len; i++) {
        e = s->order == FC_ORDER_BEST ? step_stored(s, &a, path[i], moves, &n, cap)
                                      : step_match(s, &a, path[i], moves, &n, cap);
        load_key(s, path[i], &kj);
        if (!e && !key_eq_canon(&s->c, &a, &kj)) e = FC_EENCODE;
    }
    free(path);
    return e ? e : n;
}

/* ---- shortening (plain rules) ---- */

typedef struct {
    fkey_t *k;
    int *at;                 /* the last index of the line with this position (up to column order) */
    uint32_t mask;
} lmap_t;

static int lmap_find(const lmap_t *m, const fkey_t *k) {
    uint32_t p = hash_key(k) & m->mask;
    while (m->at[p] >= 0) {
        if (key_eq(&m->k[p], k)) return m->at[p];
        p = (p + 1) & m->mask;
    }
    return -1;
}

static void lmap_put(lmap_t *m, const fkey_t *k, int at) {
    uint32_t p = hash_key(k) & m->mask;
    while (m->at[p] >= 0 && !key_eq(&m->k[p], k)) p = (p + 1) & m->mask;
    m->k[p] = *k;
    m->at[p] = at;
}

static int canon_find(const lmap_t *m, const fkey_t *k) {
    fkey_t t = *k;
    canon_key(&t);
    return lmap_find(m, &t);
}

static int shorten_keys(const ctx_t *c, const fkey_t *start, const uint16_t *moves, int n, int level,
                        uint16_t *out, int cap) {
    uint32_t size = 16;
    while (size < 2u * (uint32_t)(n + 1)) size <<= 1;
    lmap_t m;
    m.mask = size - 1;
    m.k = (fkey_t *)malloc(size * sizeof *m.k);
    m.at = (int *)malloc(size * sizeof *m.at);
    fkey_t *buf = (fkey_t *)malloc(2 * FC_MAX_SUCC * sizeof *buf);
    uint16_t mv1[FC_MAX_SUCC], mv2[FC_MAX_SUCC];
    uint8_t from[FC_MAX_SUCC];
    if (!m.k || !m.at || !buf) { free(m.k); free(m.at); free(buf); return FC_ENOMEM; }
    fkey_t *b1 = buf, *b2 = buf + FC_MAX_SUCC;
    for (uint32_t i = 0; i < size; i++) m.at[i] = -1;
    fkey_t a = *start, t;
    t = a; canon_key(&t); lmap_put(&m, &t, 0);
    for (int i = 0; i < n; i++) {
        if (key_apply(c, &a, moves[i] & 0xFF, moves[i] >> 8)) {
            free(m.k); free(m.at); free(buf); return FC_EILLEGAL;
        }
        t = a; canon_key(&t); lmap_put(&m, &t, i + 1);
    }
    a = *start;
    int at = canon_find(&m, &a), len = 0, e = 0;
    while (at < n) {
        int n1 = gen_mv(c, &a, b1, mv1, from, 0);
        int best1 = -1, bi = -1, best2 = -1, b2i = -1;
        uint16_t code2 = 0;
        for (int i = 0; i < n1; i++) {
            int j = canon_find(&m, &b1[i]);
            if (j > best1) { best1 = j; bi = i; }
        }
        if (level >= 2) {
            for (int i = 0; i < n1; i++) {
                int n2 = gen_mv(c, &b1[i], b2, mv2, from, 0);
                for (int u = 0; u < n2; u++) {
                    int j = canon_find(&m, &b2[u]);
                    if (j > best2) { best2 = j; b2i = i; code2 = mv2[u]; t = b2[u]; }
                }
            }
        }
        if (best1 <= at && best2 <= at) { e = FC_EENCODE; break; }   /* cannot happen on a legal line */
        if (level >= 2 && best2 > best1 + 1) {
            if (len + 2 > cap) { e = FC_ERANGE; break; }
            out[len++] = mv1[b2i];
            out[len++] = code2;
            a = t;
            at = best2;
        } else {
            if (len + 1 > cap) { e = FC_ERANGE; break; }
            out[len++] = mv1[bi];
            a = b1[bi];
            at = best1;
        }
    }
    free(m.k); free(m.at); free(buf);
    return e ? e : len;
}

static int plain_ctx(ctx_t *c, const fc_pos *start, const fc_rules *rules, fkey_t *k) {
    fc_rules r = *rules;
    int e = check_rules(&r);
    if (e) return e;
    r.autoplay = FC_AUTOPLAY_NONE;
    r.canonical = 0;
    if (fc_pos_check(start, FC_MAX_CELLS)) return FC_EBADPOS;
    if (ctx_init(c, start, &r) || pos_to_key(c, start, k)) return FC_EBADPOS;
    return 0;
}

int fc_shorten(const fc_pos *start, const fc_rules *rules, const uint16_t *moves, int n, int level,
               uint16_t *out, int cap) {
    ctx_t c;
    fkey_t k;
    int e = plain_ctx(&c, start, rules, &k);
    if (e) return e;
    if (n < 0) return FC_ERANGE;
    return shorten_keys(&c, &k, moves, n, level, out, cap);
}

int fc_apply_move(fc_pos *p, const fc_rules *rules, uint16_t move) {
    ctx_t c;
    fkey_t k;
    int e = plain_ctx(&c, p, rules, &k);
    if (e) return e;
    if (key_apply(&c, &k, move & 0xFF, move >> 8)) return FC_EILLEGAL;
    key_to_pos(&c, &k, p);
    return 0;
}

/* The solver's working memory: one search, reused by every stage (and by every deal of fc_solve_deals),
   and the line buffers. */
typedef struct {
    fc_search *s;
    uint16_t *a;             /* 2 * FC_MAX_LINE codes: the line as found, and the shortened one */
} solver_mem;

static void solver_mem_free(solver_mem *m) {
    fc_search_free(m->s);
    free(m->a);
    m->s = NULL;
    m->a = NULL;
}

/* one stage of fc_solve: a best-first search in m->s; on FC_WON the line is read from m->s */
static int solve_stage(solver_mem *m, const fc_pos *start, const fc_rules *rules, const fc_solve_opts *opts,
                       uint64_t max_states, int pflags, const int *weights, fc_solve_result *out) {
    int err = 0;
    if (opts->max_states && (max_states == 0 || max_states > opts->max_states)) max_states = opts->max_states;
    if (!m->s) {
        m->s = fc_search_new(start, rules, max_states, 1, FC_ORDER_BEST, &err);
        if (!m->s) return err;
    } else if ((err = search_start(m->s, start, rules, max_states, 1, FC_ORDER_BEST)) != 0) {
        return err;
    }
    fc_search *s = m->s;
    memcpy(s->w, weights, sizeof s->w);
    s->c.super = opts->supermoves != 0;
    s->c.pflags = pflags;
    int st = fc_search_run(s, 0);
    out->states += s->count;
    out->expanded += s->expanded;
    out->stages++;
    /* a pruned stage that runs out of positions has not seen the solver's whole space */
    return st == FC_DONE && pflags ? FC_LIMIT : st;
}

static int solve_with(solver_mem *m, const fc_pos *start, const fc_rules *rules, const fc_solve_opts *opts,
                      uint16_t *moves, int cap, fc_solve_result *out) {
    memset(out, 0, sizeof *out);
    int st = FC_DONE;
    if (opts->nstages < 0 || opts->nstages > FC_MAX_STAGES) return out->status = FC_ERANGE;
    if ((st = check_rules(rules)) != 0) return out->status = st;
    if (fc_pos_check(start, FC_MAX_CELLS)) return out->status = FC_EBADPOS;
    st = FC_DONE;
    int nst = opts->nstages ? opts->nstages : opts->single_stage ? 1 : NPORTFOLIO;
    for (int i = 0; i < nst && st != FC_WON; i++) {
        if (opts->nstages)
            st = solve_stage(m, start, rules, opts, opts->stage_states[i], opts->stage_prune[i],
                             opts->stage_weights[i], out);
        else if (opts->single_stage)
            st = solve_stage(m, start, rules, opts, 0, 0, DEFAULT_WEIGHTS, out);
        else
            st = solve_stage(m, start, rules, opts, PORTFOLIO[i].states, PORTFOLIO[i].prune, PORTFOLIO[i].w,
                             out);
        if (st < 0) return out->status = st;
    }
    out->status = st;
    if (st != FC_WON) return 0;
    if (!m->a && !(m->a = (uint16_t *)malloc(2 * FC_MAX_LINE * sizeof *m->a))) return out->status = FC_ENOMEM;
    uint16_t *a = m->a, *b = a + FC_MAX_LINE;
    int n = fc_search_moves(m->s, (uint64_t)m->s->won_index, a, FC_MAX_LINE);
    if (n < 0) return out->status = n;
    out->found_len = n;
    if (opts->shorten > 0) {
        for (int pass = 0; pass < 8; pass++) {    /* until nothing changes */
            int k = fc_shorten(start, rules, a, n, opts->shorten, b, FC_MAX_LINE);
            if (k < 0) return out->status = k;
            memcpy(a, b, (size_t)k * sizeof *a);
            if (k == n) break;
            n = k;
        }
    }
    if (n > cap) return out->status = FC_ERANGE;
    memcpy(moves, a, (size_t)n * sizeof *a);
    out->len = n;
    return n;
}

int fc_solve(const fc_pos *start, const fc_rules *rules, const fc_solve_opts *opts, uint16_t *moves,
             int cap, fc_solve_result *out) {
    solver_mem m = {NULL, NULL};
    int n = solve_with(&m, start, rules, opts, moves, cap, out);
    solver_mem_free(&m);
    return n;
}

/* ---- the survey's batch -------------------------------------------------------------------------------- */

int fc_deal(uint64_t n, fc_pos *out) {
    if (n < 1 || n > 8589934591ull) return FC_ERANGE;
    uint8_t deck[52], order[52];
    uint64_t x = n < 4294967296ull ? n : n - 4294967296ull;
    for (int c = 0; c < 52; c++) deck[c] = (uint8_t)c;
    for (int k = 0; k < 52; k++) {
        x = (214013 * x + 2531011) & 0xFFFFFFFFull;
        uint32_t r = n < 2147483648ull ? (uint32_t)((x >> 16) & 0x7FFF)
                   : n < 4294967296ull ? (uint32_t)(((x >> 16) & 0x7FFF) | 0x8000)
                   : (uint32_t)(((x >> 16) & 0xFFFF) + 1);
        uint32_t j = r % (uint32_t)(52 - k);
        order[k] = deck[j];
        deck[j] = deck[51 - k];
    }
    memset(out, 0, sizeof *out);
    for (int k = 0; k < 52; k++) out->col[k % 8][out->len[k % 8]++] = order[k];
    return 0;
}

int fc_solve_deals(uint64_t first, int count, const fc_rules *rules, const fc_solve_opts *opts,
                   int32_t *status, int32_t *len, uint64_t *states, uint64_t *offset, double *seconds,
                   uint16_t *moves, uint64_t cap) {
    solver_mem m = {NULL, NULL};
    uint64_t used = 0;
    int done = 0, e = 0;
    if (count < 0 || first < 1 || first + (uint64_t)count - 1 > 8589934591ull) return FC_ERANGE;
    for (; done < count; done++) {
        fc_pos p;
        fc_solve_result r;
        clock_t t = clock();
        fc_deal(first + (uint64_t)done, &p);
        uint64_t room = cap - used;
        int n = solve_with(&m, &p, rules, opts, moves + used, room > FC_MAX_LINE ? FC_MAX_LINE : (int)room, &r);
        if (n < 0 && r.status == FC_ERANGE && room < FC_MAX_LINE) break;  /* moves is full: the caller goes on */
        if (n < 0) { e = n; break; }
        status[done] = r.status;
        states[done] = r.states;
        len[done] = r.status == FC_WON ? n : -1;
        offset[done] = used;
        seconds[done] = (double)(clock() - t) / CLOCKS_PER_SEC;
        if (r.status == FC_WON) used += (uint64_t)n;
    }
    solver_mem_free(&m);
    return e ? e : done;
}

/* =========================================================================================================
 * The enumeration on disk: delayed duplicate detection (fc_ddd_*)
 *
 * Breadth first by layers, in the manner of Korf's external-memory search: layer d+1 is made from layer d
 * by generating every successor into a buffer of `mem` bytes (24-byte keys dkey_t, mem/24 of them: the
 * position packed as in "The compact store", by the same code (pack_words), but into up to DDD_KBITS = 191
 * bits, which every position fits (the bound is at dkey_t; format 2 and state version 2 had the memory
 * store's 16-byte key, 127 bits: on deal 982 with 2 cells, 11% of the positions did not fit and their
 * overflow set stopped the search near 305 M positions)), sorting it (its repeats dropped: about half the
 * successors of a layer) and writing it as a run whenever it is full; the layer's last buffer is not
 * written: it stays in memory, sorted, as one more run (most layers have no other: no file written and
 * read back). Then the runs are merged (duplicates dropped) and the keys of every earlier layer are
 * subtracted in the same pass (moves are not all reversible: a new position may repeat one of any earlier
 * layer). Each layer is a file of sorted,
 * distinct keys (L<d>.keys in the folder given); the visited set is their union. The visited files are
 * disjoint, so they are not merged with each other for the subtraction: each is read on to the candidate
 * (ks_has: one comparison a visited key, one a file a candidate; a heap over them took 13% of the time,
 * every visited key a heap step). A won successor stops
 * the search (stop_on_win); the line to it is read back through the layer files (fc_ddd_line) -- from the
 * oldest layer kept: the merged ones' depths are gone, and the caller finds the line from the start to that
 * layer by another search, for one position (fc_ddd_target: a target met where a win would be).
 * A position that does not pack into the key (none at 191 bits; fc_ddd_new's key_bits narrows the key for the
 * tests) is kept whole in memory instead, in the overflow set:
 * its fkey_t in the order found (so by layer: ovl[l] is layer l's first), and a hash table over them. Each
 * position has exactly one form (packed or not), so the files and the set are disjoint: a successor that
 * does not pack is looked up in the set at once (it holds every earlier layer's and this one's so far),
 * and added to layer cur+1 when new. The layer's overflow positions are expanded before its file.
 * At the end the keys are put in the order of their P64 records (chunks of mem/40 keys sorted by
 * sort_level, written as runs S<i>.keys of their records, merged), the overflow positions sorted on their
 * records in memory and merged in, for the certificate (fc_ddd_next_p64).
 * Every file is removed by fc_ddd_free (in keep mode the last checkpoint's stay: see "Checkpoints"); reading
 * and writing use plain stdio. Between layers, when more than DDD_MAXF layer files would be visited by the
 * next merge, the older ones are merged into one file V<nseen>.
 *
 * The files (kreader, kwriter), format 3: a head of DDD_FHEAD = 32 bytes -- the magic "FCDK", the format
 * (4 bytes), the search's number (8: random, drawn by fc_ddd_new and kept in the state file), the file's
 * kind (8: its letter, L R V or S) and its number (8), all little-endian -- checked whole when the file is
 * opened for reading (another search's file, another layer's, a file of format 1 or 2: EIO; fc_ddd_resume
 * checks the heads of the files its state lists), then one raw deflate stream (level 1, the fastest; no
 * zlib header or Adler-32: the blocks' CRC-32 checks the deflated bytes, so the inflated ones; zlib's
 * Adler-32 took 2.5% of the time) of the keys encoded one after the other, cut in blocks of about
 * DDD_WRAW encoded bytes (a sync flush each), every block with a head of 12 bytes: its deflated bytes, its
 * encoded bytes and a CRC-32 of these 8 bytes and the deflated ones (little-endian; format 1's CRC-32 was
 * of the encoded bytes, 5x more: 3.7% of the time). A reader checks a block's CRC-32 before it inflates
 * it: the search stops reading a visited file where its candidates end, and keys from a damaged stream
 * once made a wrong count under a complete search (and garbage keys crashed the certificate's sort).
 * (Format 1, to November 2026: no head, a zlib stream; its folders are refused by the state file's
 * version.) The files of keys (L, R, V: ascending) hold each key as its difference from the one
 * before (the first from 0), a 192-bit number in LEB128 (7 bits a byte from the low end, the top bit on
 * every byte but the last). Sorted keys of reachable positions differ mostly in their low fields (column 0
 * first), by 22..32 bits, and from a few values over and over (the same moves of the low columns under
 * many high ones): 4.8 bytes a key before zlib, 0.55..0.9 after it (measured on deal 219837216's files at
 * 20 M positions; the runs, denser, compress best), against 16 raw (format 2's keys; 24 now, with the
 * same differences: a key's high word is 0 where the 16-byte key fitted). The S runs are in P64 order, not
 * key order, so their keys have no small differences: they hold the 64-byte records themselves (the merge at
 * the end needs them, and no longer unpacks keys), each as the length it shares with the one before (a
 * byte), the length of its rest up to its trailing zeros (a byte) and that rest: 14.5 bytes a record
 * before zlib, about 2 after (2.2 on deal 1474422072 with 16 MB: chunks of 524,288). They must be small
 * too: at the end they grow while the visited files shrink (each removed once read), so the last peak is
 * all the S runs plus the largest visited file. (Raw keys through zlib, without the differences, take 3.3
 * bytes even in key order.)
 * The cost is processor time: deflating every file written and inflating every file read (the visited
 * set is read once a layer) cost 1.24x the processor time of raw files on deal 219837216 to 30 M positions
 * (2 GB buffer), 1.56x on deal 1474422072 whole (16 MB: small, sparser runs), with the files in the page
 * cache (scripts/bench.py --disk; format 1, every run written, the visited files merged through a heap);
 * the peak disk falls from 24.1 to 0.96 bytes a position (0.90 at 120 M; 0.69 at 30 M with the last run
 * kept in memory) and from 16.3 to 1.67 (2.2 in the sort at the end), so a search whose raw files would pass the
 * machine's memory stays in its page cache instead of reading the disk every layer, and a search 15x
 * bigger fits on the same disk. A damaged or cut file is refused (EIO: its head, a block's CRC-32 or
 * zlib's checks, a key past 191 bits, a record not after the one before, bytes past the stream's end), so
 * no wrong set comes out of one: the search stops as an I/O error. fc_ddd_file_write/read expose the layer
 * to tests (their head: search number 0, kind L for keys and S for records, number 0).
 * The time, against format 1 with a heap over the visited files, every run written and Hoare's quicksort
 * (`nice -n 19 python scripts/bench.py --disk --disk-other MAIN`: both in one run, load 4.8 on 2 cores):
 * deal 219837216 to 30 M positions (2 GB buffer) 27.6 s of processor against 44.1 (0.63x), 0.69 bytes of
 * disk a position at most against 0.96 (no run file); deal 1474422072 whole (16 MB) 4.3 s against 8.0
 * (0.54x; in memory it takes about 2 s), 1.65 bytes a position against 1.67; the same certificate body.
 * What is left (perf, 219837216 to 15 M): the sort 22%, packing and unpacking keys and generating moves
 * 38% (as in memory), the merge 15% (its files' scans: a visited file's next key against the candidate),
 * decoding the files 6%, zlib under 5%.
 * ========================================================================================================= */
#define DDD_RKEYS 1024       /* keys per reader buffer (24 KB) */
#define DDD_RRECS 256        /* records per reader buffer (16 KB) */
#define DDD_WRAW 65536       /* a writer's encoded bytes deflated at once: a block (see "The files") */
#define DDD_BRAW (DDD_WRAW + 2 * FC_P64_SIZE)        /* a block's encoded bytes at most */
#define DDD_BHEAD 12         /* a block's head: its deflated bytes, its encoded bytes, their CRC-32 */
#define DDD_ZMAX (DDD_BRAW + DDD_BRAW / 8 + 1024)    /* a block's deflated bytes at most (zlib's bound is far below) */
#define DDD_RRAW (DDD_BRAW + 256)                    /* a reader's inflated bytes: a block and what is left of one */
#define DDD_KEYMAX 28        /* bytes of an encoded key at most (192 bits, 7 a byte) */
#define DDD_ZLEVEL 1         /* zlib's fastest level (see "The files") */
#define DDD_MINMEM (SOLVE_MAX_SUCC * sizeof(dkey_t))   /* the smallest buffer: every successor of a position */
#define DDD_OVFMIN (1u << 20)              /* the overflow set may take mem/4 bytes, at least this */

static inline int dk_less(const dkey_t *a, const dkey_t *b) {
    return a->hi < b->hi || (a->hi == b->hi && (a->mid < b->mid || (a->mid == b->mid && a->lo < b->lo)));
}

static inline int dk_same(const dkey_t *a, const dkey_t *b) {
    return a->hi == b->hi && a->mid == b->mid && a->lo == b->lo;
}

/* Sort keys ascending (as 192-bit numbers): quicksort with a branchless partition (Lomuto's, each key swapped
   to the front when below the pivot, the count advanced by the comparison's 0 or 1: no mispredicted branch;
   44 ns a key against 69 for Hoare's partition with branches, on the 889,824 successors of deal 1474422072's
   layer 47, in a test program), median of three, insertion sort below 16. A pivot with no key below it
   gathers its equals first (keys repeated many times take no more passes than distinct ones). */
#if defined(__SIZEOF_INT128__)       /* the low 128 bits: a compare and a subtract with borrow */
#define DK_BELOW(x, p) (((x).hi < (p).hi) | (((x).hi == (p).hi) \
    & ((((unsigned __int128)(x).mid << 64) | (x).lo) < (((unsigned __int128)(p).mid << 64) | (p).lo))))
#else
#define DK_BELOW(x, p) (((x).hi < (p).hi) | (((x).hi == (p).hi) \
    & (((x).mid < (p).mid) | (((x).mid == (p).mid) & ((x).lo < (p).lo)))))
#endif
static void dk_sort(dkey_t *v, uint64_t n) {
    while (n > 16) {
        uint64_t m = n / 2, pi;
        if (dk_less(&v[0], &v[m])) pi = dk_less(&v[m], &v[n - 1]) ? m : dk_less(&v[0], &v[n - 1]) ? n - 1 : 0;
        else pi = dk_less(&v[0], &v[n - 1]) ? 0 : dk_less(&v[m], &v[n - 1]) ? n - 1 : m;
        dkey_t p = v[pi], t;
        v[pi] = v[n - 1];
        v[n - 1] = p;
        uint64_t lt = 0;
        for (uint64_t i = 0; i < n - 1; i++) {        /* v[0 .. lt-1] < p */
            dkey_t x = v[i];
            int below = DK_BELOW(x, p);
            v[i] = v[lt];
            v[lt] = x;
            lt += (uint64_t)below;
        }
        t = v[lt]; v[lt] = v[n - 1]; v[n - 1] = t;  /* p at lt, keys not below it after */
        uint64_t from = lt + 1;
        if (lt == 0) {                                /* p is the least: its equals next to it, then the rest */
            for (uint64_t i = 1; i < n; i++) {
                dkey_t x = v[i];
                int same = (x.hi == p.hi) & (x.mid == p.mid) & (x.lo == p.lo);
                v[i] = v[from];
                v[from] = x;
                from += (uint64_t)same;
            }
        }
        if (lt < n - from) { dk_sort(v, lt); v += from; n -= from; }
        else { dk_sort(v + from, n - from); n = lt; }
    }
    for (uint64_t i = 1; i < n; i++) {
        dkey_t x = v[i];
        uint64_t j = i;
        while (j > 0 && dk_less(&x, &v[j - 1])) { v[j] = v[j - 1]; j--; }
        v[j] = x;
    }
}

/* Sort v[0 .. n-1] and drop its repeats: the number of distinct keys, now v[0 ..]. */
static uint64_t dk_sort_unique(dkey_t *v, uint64_t n) {
    uint64_t m = 0;
    dk_sort(v, n);
    for (uint64_t i = 0; i < n; i++) if (!m || !dk_same(&v[i], &v[m - 1])) v[m++] = v[i];
    return m;
}

typedef struct {             /* a file of keys (or of records: S runs) read a buffer at a time (see "The files") */
    FILE *f;
    z_stream z;
    int zok;                 /* z is initialized (inflateEnd due) */
    int ended;               /* the zlib stream's end was met (and nothing follows it in the file) */
    int recs;                /* 1: P64 records, front-coded; 0: keys, delta-coded */
    uint8_t *in;             /* compressed bytes read from f */
    uint8_t *raw;            /* inflated bytes; raw[ra .. rn-1] are not decoded yet */
    size_t ra, rn;
    dkey_t *buf;             /* keys: the decoded ones, buf[at .. n-1] still to come */
    uint8_t *rbuf;           /* records: the decoded ones, 64 bytes each (rbuf + 64 * at the current one) */
    size_t n, at;
    dkey_t prev;             /* the last key decoded */
    const uint8_t *rec;      /* records: the current one (P64 order merges compare them) */
    uint8_t prec[FC_P64_SIZE];/* records: the last one decoded */
    uint64_t count;          /* records decoded */
    int err;                 /* errno of a failed read (EIO: a damaged or truncated file), else 0 */
    int borrowed;            /* buf is the search's buffer (the layer's last run, kept in memory): not freed */
} kreader;

typedef struct {             /* a file of keys (or records) written: encoded, deflated a buffer at a time */
    FILE *f;
    z_stream z;
    int zok, recs;
    uint8_t raw[DDD_BRAW];   /* encoded, not deflated yet */
    size_t rn;
    uint8_t out[DDD_BHEAD + DDD_ZMAX];   /* a block: its head, its deflated bytes */
    dkey_t prev;             /* the last key put */
    uint8_t prec[FC_P64_SIZE];/* the last record put */
    uint64_t count;          /* keys (records) put */
    uint64_t bytes;          /* bytes handed to the file so far (all of it after kw_close) */
    int err;
} kwriter;

typedef struct {             /* the merge of several sorted key files: a min-heap of readers */
    kreader *r;
    int *heap;
    int n, hn;
    const ctx_t *c;          /* non-NULL: ordered by the keys' P64 records, else by the keys */
} kmerge;

typedef struct { int kind; uint64_t idx; } fref;   /* a file of the disk search: kind (FK_*) and number */
enum { FK_LAYER, FK_RUN, FK_SEEN, FK_SORTED, FK_KINDS };
static const char FK_NAME[FK_KINDS] = {'L', 'R', 'V', 'S'};
#define DDD_STATE "search.state"           /* the checkpoint (see "Checkpoints") */
#define DDD_FHEAD 32                       /* a file's head (see "The files") */
static const char DDD_FMAGIC[4] = {'F', 'C', 'D', 'K'};
#define DDD_FVERSION 3u      /* the files' format: 2 had 128-bit keys (127 used); 1 no head and zlib streams (an
                                Adler-32 after the blocks) */
#define DDD_STATE_TMP "search.state.tmp"
#define DDD_MAXF 32          /* files merged at once (a merge of more is done in passes) */

struct fc_ddd {
    ctx_t c;
    char dir[4096];
    uint64_t mem, max_states;
    int stop_on_win;
    uint64_t id;             /* the search's number, random, in every file's head and in the state file */
    dkey_t *buf;             /* successors of the layer being expanded, sorted into runs when full */
    uint64_t cap, nbuf;
    uint64_t *fsz[FK_KINDS]; /* keys in each file, by kind and number */
    uint64_t fcap[FK_KINDS];
    uint64_t *fbytes[FK_KINDS];/* bytes of each file (what d->disk adds up) */
    uint64_t fbcap[FK_KINDS];
    uint64_t nlayers;        /* layer files L0 .. L<nlayers-1> made (the first `lfirst` merged into V<nseen-1>) */
    uint64_t lfirst, nseen;
    uint64_t cur;            /* the layer being expanded */
    uint64_t rfirst, nruns;  /* the live runs of this layer: R<rfirst> .. R<nruns-1> */
    uint64_t sfirst, nsorted;/* the live P64-order runs: S<sfirst> .. S<nsorted-1> */
    uint64_t runs_total;
    uint64_t states, expanded, generated, disk, disk_peak;
    int max_home, won, status, phase, sys_errno;
    fkey_t won_key, won_parent;  /* the won position, and (when the expansion stopped at it) its parent */
    int won_has_parent;
    uint64_t won_layer;
    int has_target;          /* 1: the search looks for `target` (fc_ddd_target) instead of a won position */
    int target_packs;        /* ... which packs into target_ck (else it is met in the overflow set only) */
    fkey_t target;
    dkey_t target_ck;
    /* the overflow set: positions that do not pack into the key, kept whole in memory (see above) */
    fkey_t *ovf;             /* in the order found, so by layer */
    uint64_t novf, ovfcap;
    uint32_t *otab;          /* open addressing, linear probing: index+1, 0 = free; otsize a power of 2 */
    uint64_t otsize;
    uint64_t *ovl;           /* ovl[l]: the first overflow position of layer l (l <= cur + 1) */
    uint64_t ovlcap, ovltop; /* ovl[0 .. ovltop] are set */
    uint64_t oexp;           /* PH_EXPAND: the next overflow position of layer cur to expand */
    uint64_t ovf_limit;      /* bytes the overflow set may take (FC_EOVERFLOW past them) */
    uint32_t *oorder;        /* PH_P64: the overflow positions in the order of their records */
    uint64_t oat;            /* PH_P64: the next one of oorder */
    uint8_t orec[FC_P64_SIZE];/* PH_P64: its record */
    kreader front;           /* PH_EXPAND: the layer being expanded */
    kmerge cand, seen;       /* PH_MERGE: the runs, and the earlier layers */
    kwriter *out;            /* PH_MERGE: the new layer */
    uint64_t out_bytes;      /* PH_MERGE: its bytes in the disk figures */
    kmerge sorted;           /* PH_P64: the S runs in P64 order */
    dkey_t last;
    int have_last;
    fkey_t kb[SOLVE_MAX_SUCC];
    /* checkpoints: a resumable search (fc_ddd_keep, fc_ddd_resume; see "Checkpoints" below) */
    fc_pos start;            /* the start position and the rules, as given (the state file holds them) */
    fc_rules rules;
    int keep;                /* 1: a checkpoint after every layer; fc_ddd_free keeps the files it lists */
    int between;             /* 1: between layers (nothing of layer cur expanded yet): a checkpoint may be written */
    uint64_t ck_lfirst, ck_nlayers, ck_nseen;   /* the last checkpoint's files: V<ck_nseen-1>, L<ck_lfirst..ck_nlayers-1> */
    uint64_t checkpoints, ck_bytes;             /* checkpoints written, the last one's bytes */
    double ck_seconds;                          /* wall time spent writing them */
    int resumed;             /* 1: made by fc_ddd_resume, from layer resumed_layer */
    uint64_t resumed_layer, resumed_states;
    double prior_seconds;    /* the earlier runs' time, up to the checkpoint this one went on from */
    double seconds;          /* wall time in fc_ddd_run this run, up to its last return */
    double run_t0;           /* when the fc_ddd_run call under way began (in_run 1) */
    int in_run;
};

enum { PH_EXPAND, PH_MERGE, PH_END, PH_P64 };

static int ddd_path(const fc_ddd *d, fref f, char *path) {
    int n = snprintf(path, 4200, "%s/%c%06llu.keys", d->dir, FK_NAME[f.kind], (unsigned long long)f.idx);
    return n > 0 && n < 4200 ? 0 : FC_EIO;
}

static fref FR(int kind, uint64_t idx) { fref f; f.kind = kind; f.idx = idx; return f; }

/* v as `bytes` little-endian bytes at p (the files' heads and block heads, the state file's numbers). */
static inline void put_le(uint8_t *p, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* The head of file f of the search `id` into h (DDD_FHEAD bytes; see "The files"), and h. */
static const uint8_t *ddd_fhead(uint64_t id, fref f, uint8_t *h) {
    memcpy(h, DDD_FMAGIC, 4);
    put_le(h + 4, DDD_FVERSION, 4);
    put_le(h + 8, id, 8);
    put_le(h + 16, (uint64_t)(uint8_t)FK_NAME[f.kind], 8);
    put_le(h + 24, f.idx, 8);
    return h;
}

/* The head of one of the search's files. */
static const uint8_t *ddd_head(const fc_ddd *d, fref f, uint8_t *h) { return ddd_fhead(d->id, f, h); }

static int ddd_fail(fc_ddd *d, int e) {
    if (!d->sys_errno) d->sys_errno = e ? e : EIO;
    return d->status = FC_EIO;
}

static void kr_close(kreader *r) {
    if (r->zok) inflateEnd(&r->z);
    if (r->f) fclose(r->f);
    free(r->in);
    free(r->raw);
    if (!r->borrowed) free(r->buf);
    free(r->rbuf);
    memset(r, 0, sizeof *r);
}

/* Open a file of keys (recs 0) or of P64 records (recs 1) whose head must be `head` (DDD_FHEAD bytes: the
   file of this search, kind and number); 0, FC_ENOMEM or FC_EIO (r->err: the errno; EIO: another head). */
static int kr_open(kreader *r, const char *path, int recs, const uint8_t *head) {
    memset(r, 0, sizeof *r);
    r->recs = recs;
    r->in = (uint8_t *)malloc(DDD_ZMAX);
    r->raw = (uint8_t *)calloc(DDD_RRAW + DDD_KEYMAX, 1);   /* room for a key past the end (kr_keys) */
    if (recs) r->rbuf = (uint8_t *)malloc(DDD_RRECS * FC_P64_SIZE);
    else r->buf = (dkey_t *)malloc(DDD_RKEYS * sizeof *r->buf);
    if (!r->in || !r->raw || (recs ? !r->rbuf : !r->buf) || inflateInit2(&r->z, -15) != Z_OK) {
        kr_close(r);
        return FC_ENOMEM;
    }
    r->zok = 1;
    r->f = fopen(path, "rb");
    if (!r->f) { r->err = errno ? errno : EIO; return FC_EIO; }
    uint8_t h[DDD_FHEAD];
    if (fread(h, 1, DDD_FHEAD, r->f) != DDD_FHEAD) { r->err = ferror(r->f) && errno ? errno : EIO; return FC_EIO; }
    if (memcmp(h, head, DDD_FHEAD)) { r->err = EIO; return FC_EIO; }
    return 0;
}

/* The 4 bytes at p as a little-endian number. */
static inline uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Make raw hold at least `want` bytes not decoded yet, unless the stream ends first: the next blocks read,
   their CRC-32 checked (over the head's two lengths and the deflated bytes) before they are inflated; 0 or an
   errno (EIO: the file is damaged, or ends before its stream does, or goes on after it). */
static int kr_fill(kreader *r, size_t want) {
    if (r->rn - r->ra >= want || r->ended) return 0;
    memmove(r->raw, r->raw + r->ra, r->rn - r->ra);
    r->rn -= r->ra;
    r->ra = 0;
    while (r->rn < want && !r->ended) {
        uint8_t h[DDD_BHEAD];
        if (fread(h, 1, DDD_BHEAD, r->f) != DDD_BHEAD) return ferror(r->f) && errno ? errno : EIO;
        uint32_t clen = le32(h), rawlen = le32(h + 4), crc = le32(h + 8);
        if (clen > DDD_ZMAX || rawlen > DDD_BRAW || r->rn + rawlen > DDD_RRAW) return EIO;
        if (fread(r->in, 1, clen, r->f) != clen) return ferror(r->f) && errno ? errno : EIO;
        if (crc32(crc32(0L, h, 8), r->in, clen) != crc) return EIO;
        r->z.next_in = r->in;
        r->z.avail_in = clen;
        r->z.next_out = r->raw + r->rn;
        r->z.avail_out = rawlen + 1;        /* one more: a block that inflates to more is refused */
        int z = inflate(&r->z, Z_SYNC_FLUSH);
        if ((z != Z_OK && z != Z_STREAM_END) || r->z.avail_in || r->z.avail_out != 1) return EIO;
        r->rn += rawlen;
        if (z == Z_STREAM_END) {
            r->ended = 1;
            if (fgetc(r->f) != EOF) return EIO;
        }
    }
    return 0;
}

/* The 8 bytes at p as a little-endian number. */
static inline uint64_t le64(const uint8_t *p) {
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24
         | (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}

/* The low 7 bits of each byte of x, gathered (LEB128's 8 bytes as a 56-bit number). */
static inline uint64_t leb_gather(uint64_t x) {
    return (x & 0x7Full) | (x >> 1 & 0x3F80ull) | (x >> 2 & 0x1FC000ull) | (x >> 3 & 0xFE00000ull)
         | (x >> 4 & 0x7F0000000ull) | (x >> 5 & 0x3F800000000ull) | (x >> 6 & 0x1FC0000000000ull)
         | (x >> 7 & 0xFE000000000000ull);
}

/* Decode the next keys into buf: each the difference from the one before (the first from 0) as a 192-bit
   number, 7 bits a byte from the low end, the top bit set on every byte but the last (LEB128). raw has
   DDD_KEYMAX bytes of room past rn, so a key is read whole before its end is checked. */
static int kr_keys(kreader *r) {
    int e;
    dkey_t prev = r->prev;
    r->n = r->at = 0;
    while (r->n < DDD_RKEYS) {
        if (r->rn - r->ra < DDD_KEYMAX && (e = kr_fill(r, DDD_KEYMAX))) return e;
        const uint8_t *p = r->raw + r->ra, *end = r->raw + r->rn;
        if (p == end) break;
        while (r->n < DDD_RKEYS && p < end && (r->ended || end - p >= DDD_KEYMAX)) {
            uint64_t x = le64(p), stop = ~x & 0x8080808080808080ull, v[3] = {0, 0, 0};
            if (LIKELY(stop)) {   /* at most 8 bytes: up to the first without the top bit */
                v[0] = leb_gather(x & (stop ^ (stop - 1)));
                p += ctz64(stop) / 8 + 1;
            } else {              /* more: 56 bits, then 7 a byte from bit 56 on, up to 192 bits (28 bytes) */
                v[0] = leb_gather(x);
                p += 8;
                for (int sh = 56;; sh += 7) {
                    if (sh >= 192) return EIO;                   /* past 192 bits */
                    uint64_t b = *p++, y = b & 127;
                    int i = sh >> 6, o = sh & 63;
                    v[i] |= y << o;
                    if (o > 57) {                                /* the byte's bits cross into the next word */
                        if (i < 2) v[i + 1] |= y >> (64 - o);
                        else if (y >> (64 - o)) return EIO;      /* past 192 bits */
                    }
                    if (!(b & 128)) break;
                }
            }
            if (p > end) return EIO;   /* the stream ends inside a key */
            dkey_t k;                  /* prev + v, carries through the words */
            k.lo = prev.lo + v[0];
            uint64_t c1 = k.lo < v[0], m = prev.mid + v[1], c2 = m < v[1];
            k.mid = m + c1;
            c2 |= k.mid < m;
            uint64_t h = prev.hi + v[2];
            k.hi = h + c2;
            if (h < v[2] || k.hi < h || (k.hi & DOVF)) return EIO;   /* past 2^191: no key */
            r->buf[r->n++] = prev = k;
        }
        r->ra = (size_t)(p - r->raw);
    }
    r->prev = prev;
    return 0;
}

/* Decode the next records into rbuf: each the length it shares with the one before (one byte), the length of
   the rest up to its trailing zeros (one byte), the rest. They must ascend. */
static int kr_recs(kreader *r) {
    int e;
    r->n = r->at = 0;
    while (r->n < DDD_RRECS) {
        if ((e = kr_fill(r, 2 + FC_P64_SIZE))) return e;
        if (r->ra == r->rn) break;
        size_t left = r->rn - r->ra;
        const uint8_t *p = r->raw + r->ra;
        uint8_t *rec = r->rbuf + r->n * FC_P64_SIZE;
        const uint8_t *prev = r->n ? rec - FC_P64_SIZE : r->prec;   /* the last record decoded */
        unsigned k = p[0], m = left > 1 ? p[1] : 255;
        if (k + m > FC_P64_SIZE || 2 + m > left || (!r->count && k)) return EIO;
        memcpy(rec, prev, k);
        memcpy(rec + k, p + 2, m);
        memset(rec + k + m, 0, FC_P64_SIZE - k - m);
        if (r->count && k < FC_P64_SIZE && rec[k] <= prev[k]) return EIO;   /* not after the one before */
        r->ra += 2 + m;
        r->n++;
        r->count++;
    }
    if (r->n) memcpy(r->prec, r->rbuf + (r->n - 1) * FC_P64_SIZE, FC_P64_SIZE);
    return 0;
}

/* Whether the reader has a current key (record: r->rec), decoding more when its buffer is used up; at the end
   or on an error 0 (r->err set on an error). */
static int kr_more(kreader *r) {
    if (r->at < r->n) {
        if (r->recs) r->rec = r->rbuf + r->at * FC_P64_SIZE;
        return 1;
    }
    if (!r->f || r->err) return 0;
    int e = r->recs ? kr_recs(r) : kr_keys(r);
    if (e) { r->err = e; r->n = r->at = 0; }
    if (r->n && r->recs) r->rec = r->rbuf;
    return r->n != 0;
}

/* The reader's current key, or NULL at the end (r->err set when a read failed). */
static inline const dkey_t *kr_peek(kreader *r) {
    if (r->at < r->n) return &r->buf[r->at];
    return kr_more(r) ? &r->buf[0] : NULL;
}

/* A new file of keys (recs 0) or records (recs 1), beginning with `head` (DDD_FHEAD bytes); NULL with *err an
   errno on failure. */
static kwriter *kw_open(const char *path, int recs, const uint8_t *head, int *err) {
    kwriter *w = (kwriter *)calloc(1, sizeof *w);
    if (!w) { *err = ENOMEM; return NULL; }
    w->recs = recs;
    if (deflateInit2(&w->z, DDD_ZLEVEL, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(w); *err = ENOMEM; return NULL;
    }
    w->zok = 1;
    int no = 0;
    w->f = fopen(path, "wb");
    if (!w->f) no = errno ? errno : EIO;
    else if (fwrite(head, 1, DDD_FHEAD, w->f) != DDD_FHEAD) { no = errno ? errno : EIO; fclose(w->f); remove(path); }
    if (no) { *err = no; deflateEnd(&w->z); free(w); return NULL; }
    w->bytes = DDD_FHEAD;
    return w;
}

/* Deflate the encoded bytes as one block (flush: Z_SYNC_FLUSH, or Z_FINISH to end the stream) and write it:
   its head (deflated bytes, encoded bytes, the CRC-32 of these 8 bytes and the deflated ones), then the
   deflated bytes. */
static int kw_flush(kwriter *w, int flush) {
    uint32_t rawlen = (uint32_t)w->rn;
    w->z.next_in = w->raw;
    w->z.avail_in = rawlen;
    w->rn = 0;
    if (w->err) return w->err;
    w->z.next_out = w->out + DDD_BHEAD;
    w->z.avail_out = DDD_ZMAX;
    int z = deflate(&w->z, flush);
    if ((flush == Z_FINISH ? z != Z_STREAM_END : z != Z_OK) || w->z.avail_in || !w->z.avail_out) return w->err = EIO;
    uint32_t clen = (uint32_t)(DDD_ZMAX - w->z.avail_out);
    put_le(w->out, clen, 4);
    put_le(w->out + 4, rawlen, 4);
    put_le(w->out + 8, crc32(crc32(0L, w->out, 8), w->out + DDD_BHEAD, clen), 4);
    size_t have = DDD_BHEAD + clen;
    if (fwrite(w->out, 1, have, w->f) != have) return w->err = errno ? errno : EIO;
    w->bytes += have;
    return 0;
}

/* Put the next key (not below the one before): its difference from it, LEB128 (see kr_keys). */
static inline int kw_put(kwriter *w, const dkey_t *k) {
    if (dk_less(k, &w->prev)) return w->err = w->err ? w->err : EINVAL;
    uint64_t b1 = k->lo < w->prev.lo, lo = k->lo - w->prev.lo;         /* the difference, borrows carried */
    uint64_t mid = k->mid - w->prev.mid - b1, b2 = k->mid < w->prev.mid || (k->mid == w->prev.mid && b1);
    uint64_t hi = k->hi - w->prev.hi - b2;
    w->prev = *k;
    w->count++;
    uint8_t *p = w->raw + w->rn;
    while (hi || mid || lo > 127) {
        *p++ = (uint8_t)(lo | 128);
        lo = (lo >> 7) | (mid << 57);
        mid = (mid >> 7) | (hi << 57);
        hi >>= 7;
    }
    *p++ = (uint8_t)lo;
    w->rn = (size_t)(p - w->raw);
    return w->rn >= DDD_WRAW ? kw_flush(w, Z_SYNC_FLUSH) : w->err;
}

/* Put the next P64 record (not below the one before), front-coded (see kr_recs). */
static int kw_put_rec(kwriter *w, const uint8_t *rec) {
    unsigned k = 0, e = FC_P64_SIZE;
    if (w->count) {
        while (k < FC_P64_SIZE && rec[k] == w->prec[k]) k++;
        if (k < FC_P64_SIZE && rec[k] < w->prec[k]) return w->err = w->err ? w->err : EINVAL;
    }
    while (e > k && !rec[e - 1]) e--;
    uint8_t *p = w->raw + w->rn;
    p[0] = (uint8_t)k;
    p[1] = (uint8_t)(e - k);
    memcpy(p + 2, rec + k, e - k);
    w->rn += 2 + (e - k);
    memcpy(w->prec, rec, FC_P64_SIZE);
    w->count++;
    return w->rn >= DDD_WRAW ? kw_flush(w, Z_SYNC_FLUSH) : w->err;
}

/* End the stream, close, free; 0 or the errno of the first failure (a full disk: ENOSPC). *bytes (when not
   NULL): the file's size. */
static int kw_close(kwriter *w, uint64_t *bytes) {
    int e = kw_flush(w, Z_FINISH);
    deflateEnd(&w->z);
    if (fclose(w->f) && !e) e = errno ? errno : EIO;
    if (bytes) *bytes = w->bytes;
    free(w);
    return e;
}

static inline int km_less(const kmerge *m, int a, int b) {
    if (m->c) return memcmp(m->r[a].rec, m->r[b].rec, FC_P64_SIZE) < 0;
    return dk_less(&m->r[a].buf[m->r[a].at], &m->r[b].buf[m->r[b].at]);
}

static void km_down(kmerge *m, int i) {
    for (;;) {
        int l = 2 * i + 1, b = i;
        if (l < m->hn && km_less(m, m->heap[l], m->heap[b])) b = l;
        if (l + 1 < m->hn && km_less(m, m->heap[l + 1], m->heap[b])) b = l + 1;
        if (b == i) return;
        int t = m->heap[i]; m->heap[i] = m->heap[b]; m->heap[b] = t;
        i = b;
    }
}

static void km_close(kmerge *m) {
    for (int i = 0; i < m->n; i++) kr_close(&m->r[i]);
    free(m->r);
    free(m->heap);
    memset(m, 0, sizeof *m);
}

/* Open the files f[0 .. count-1] for a merge (c: in P64 order), and with them the sorted keys mem[0 .. nmem-1]
   when mem is not NULL (a run kept in memory: a source like the files); 0 or a negative error. */
static int km_open(fc_ddd *d, kmerge *m, const fref *f, uint64_t count, const ctx_t *c, dkey_t *mem, uint64_t nmem) {
    char path[4200];
    memset(m, 0, sizeof *m);
    m->c = c;
    m->r = (kreader *)calloc(count + 1, sizeof *m->r);
    m->heap = (int *)malloc((count + 1) * sizeof *m->heap);
    if (!m->r || !m->heap) { km_close(m); return FC_ENOMEM; }
    if (mem && nmem) {                 /* no file: kr_more ends it when its keys are used up */
        kreader *r = &m->r[m->n];
        r->buf = mem;
        r->n = (size_t)nmem;
        r->borrowed = 1;
        m->heap[m->hn++] = m->n++;
    }
    for (uint64_t i = 0; i < count; i++) {
        if (ddd_path(d, f[i], path)) { km_close(m); return ddd_fail(d, ENAMETOOLONG); }
        kreader *r = &m->r[m->n++];
        uint8_t h[DDD_FHEAD];
        int e = kr_open(r, path, c != NULL, ddd_head(d, f[i], h));
        if (e) { int no = r->err; km_close(m); return e == FC_EIO ? ddd_fail(d, no) : e; }
        if (kr_more(r)) {
            m->heap[m->hn++] = m->n - 1;
        } else if (r->err) {
            int no = r->err; km_close(m); return ddd_fail(d, no);
        }
    }
    for (int i = m->hn / 2 - 1; i >= 0; i--) km_down(m, i);
    return 0;
}

static inline const dkey_t *km_peek(const kmerge *m) {
    return m->hn ? &m->r[m->heap[0]].buf[m->r[m->heap[0]].at] : NULL;
}

/* Advance past the smallest key; 0 or the errno of a failed read. */
static int km_pop(kmerge *m) {
    int i = m->heap[0];
    m->r[i].at++;
    if (!kr_more(&m->r[i])) {
        if (m->r[i].err) return m->r[i].err;
        m->heap[0] = m->heap[--m->hn];
    }
    km_down(m, 0);
    return 0;
}

/* Whether k is in one of the merge's files (m: opened on disjoint files of keys: the visited layers), each
   read on up to its first key not below k (the calls' k must ascend): the files are not merged with each
   other, so a visited key costs one comparison, a candidate one per file. 0 or 1; *err the errno of a failed
   read. */
static int ks_has(kmerge *m, const dkey_t *k, int *err) {
    for (int j = 0; j < m->hn; j++) {
        kreader *r = &m->r[m->heap[j]];
        for (;;) {
            const dkey_t *b = r->buf;
            size_t at = r->at, n = r->n;
            while (at < n && dk_less(&b[at], k)) at++;
            r->at = at;
            if (at < n) break;
            if (!kr_more(r)) break;
        }
        if (r->at == r->n) {           /* this file is used up (or failed) */
            if (r->err) { *err = r->err; return 0; }
            m->heap[j--] = m->heap[--m->hn];
            continue;
        }
        if (dk_same(&r->buf[r->at], k)) return 1;
    }
    return 0;
}

/* A file got n more keys (records) and is `bytes` long now (it is being written: n = 1 a key, or was). */
static int ddd_grew(fc_ddd *d, fref f, uint64_t n, uint64_t bytes) {
    int e = 0;
    d->fsz[f.kind] = (uint64_t *)room_for(d->fsz[f.kind], f.idx, &d->fcap[f.kind], sizeof(uint64_t), 256, &e);
    d->fbytes[f.kind] = (uint64_t *)room_for(d->fbytes[f.kind], f.idx, &d->fbcap[f.kind], sizeof(uint64_t), 256, &e);
    if (e) return e;
    d->fsz[f.kind][f.idx] += n;
    d->disk = d->disk - d->fbytes[f.kind][f.idx] + bytes;
    d->fbytes[f.kind][f.idx] = bytes;
    if (d->disk > d->disk_peak) d->disk_peak = d->disk;
    return 0;
}

static uint64_t ddd_size(const fc_ddd *d, fref f) {
    return f.idx < d->fcap[f.kind] ? d->fsz[f.kind][f.idx] : 0;
}

static void ddd_remove(fc_ddd *d, fref f) {
    char path[4200];
    if (!ddd_path(d, f, path)) remove(path);
    if (f.idx < d->fcap[f.kind]) d->fsz[f.kind][f.idx] = 0;
    if (f.idx < d->fbcap[f.kind]) {
        d->disk -= d->fbytes[f.kind][f.idx];
        d->fbytes[f.kind][f.idx] = 0;
    }
}

/* Merge the files in[0 .. count-1] (c: in P64 order) into the new file `out`, a repeated key written once;
   the inputs are removed (unless keep_inputs: the caller removes them). 0 or a negative error. */
static int ddd_combine(fc_ddd *d, const fref *in, uint64_t count, fref out, const ctx_t *c, int keep_inputs) {
    char path[4200];
    kmerge m;
    int e = 0;
    if (ddd_path(d, out, path)) return ddd_fail(d, ENAMETOOLONG);
    if ((e = km_open(d, &m, in, count, c, NULL, 0))) return e;
    uint8_t h[DDD_FHEAD];
    kwriter *w = kw_open(path, c != NULL, ddd_head(d, out, h), &e);
    if (!w) { km_close(&m); return ddd_fail(d, e); }
    dkey_t last = {0, 0, 0};
    uint64_t n = 0, bytes = 0;
    while (m.hn) {
        const kreader *r = &m.r[m.heap[0]];
        if (c ? !n || memcmp(r->rec, w->prec, FC_P64_SIZE) : !n || !dk_same(&r->buf[r->at], &last)) {
            n++;
            if (!c) last = r->buf[r->at];
            if (c ? kw_put_rec(w, r->rec) : kw_put(w, &last)) break;
        }
        if ((e = km_pop(&m))) break;
    }
    km_close(&m);
    int we = kw_close(w, &bytes);
    if (ddd_grew(d, out, n, bytes)) return FC_ENOMEM;
    if (e || we) return ddd_fail(d, e ? e : we);
    for (uint64_t i = 0; i < count && !keep_inputs; i++) ddd_remove(d, in[i]);
    return 0;
}

/* Merge the oldest DDD_MAXF files of kind first .. *next-1 into a new one while there are more than
   DDD_MAXF (so a merge never holds more files open). */
static int ddd_passes(fc_ddd *d, int kind, uint64_t *first, uint64_t *next, const ctx_t *c) {
    fref f[DDD_MAXF];
    while (*next - *first > DDD_MAXF) {
        for (int i = 0; i < DDD_MAXF; i++) f[i] = FR(kind, *first + (uint64_t)i);
        int e = ddd_combine(d, f, DDD_MAXF, FR(kind, *next), c, 0);
        if (e) return e;
        *first += DDD_MAXF;
        (*next)++;
    }
    return 0;
}

/* The visited files: V<nseen-1> (when the oldest layers were merged) and L<lfirst> .. L<upto>. */
static uint64_t ddd_visited(const fc_ddd *d, uint64_t upto, fref *f) {
    uint64_t n = 0;
    if (d->nseen) f[n++] = FR(FK_SEEN, d->nseen - 1);
    for (uint64_t l = d->lfirst; l <= upto && l < d->nlayers; l++) f[n++] = FR(FK_LAYER, l);
    return n;
}

/* Sort the buffer, drop its duplicates, write it as run R<nruns>. */
static int ddd_flush_run(fc_ddd *d) {
    char path[4200];
    int e = 0;
    if (!d->nbuf) return 0;
    d->nbuf = dk_sort_unique(d->buf, d->nbuf);
    fref f = FR(FK_RUN, d->nruns);
    uint8_t h[DDD_FHEAD];
    if (ddd_path(d, f, path)) return ddd_fail(d, ENAMETOOLONG);
    kwriter *w = kw_open(path, 0, ddd_head(d, f, h), &e);
    if (!w) return ddd_fail(d, e);
    for (uint64_t i = 0; i < d->nbuf; i++) if (kw_put(w, &d->buf[i])) break;
    uint64_t n = w->count, bytes = 0;
    d->nruns++;
    d->runs_total++;
    d->nbuf = 0;
    e = kw_close(w, &bytes);
    if (ddd_grew(d, f, n, bytes)) return d->status = FC_ENOMEM;
    if (e) return ddd_fail(d, e);
    return ddd_passes(d, FK_RUN, &d->rfirst, &d->nruns, NULL);
}

/* ---- the overflow set: the positions that do not pack into the key ---- */

/* Bytes the overflow set holds: its positions, its table, its layer starts, its P64 order. */
static uint64_t ddd_ovf_bytes(const fc_ddd *d, uint64_t ovfcap, uint64_t otsize) {
    return ovfcap * sizeof(fkey_t) + otsize * sizeof(uint32_t) + d->ovlcap * sizeof(uint64_t)
         + (d->oorder ? d->novf * sizeof(uint32_t) : 0);
}

/* Two keys of the same position (the words' content and the cells; the home nibbles follow from them). */
static int fk_same(const fkey_t *a, const fkey_t *b) {
    if (a->cells != b->cells) return 0;
    for (int i = 0; i < 8; i++) if ((a->w[i] ^ b->w[i]) & WMASK) return 0;
    return 1;
}

static uint64_t ovf_hash(const fkey_t *k) {
    fkey_t t = *k;
    for (int i = 0; i < 8; i++) t.w[i] &= WMASK;
    return hash64_key(&t);
}

/* The slot of k in the table: its entry when k is there, else the free slot where it would go. */
static uint64_t ddd_ovf_slot(const fc_ddd *d, const fkey_t *k) {
    uint64_t mask = d->otsize - 1, p = ovf_hash(k) & mask;
    while (d->otab[p] && !fk_same(&d->ovf[d->otab[p] - 1], k)) p = (p + 1) & mask;
    return p;
}

/* Add k (a position that does not pack) to the overflow set unless it is there: 1 added, 0 there already,
   or FC_LIMIT (max_states), FC_EOVERFLOW (the set would pass ovf_limit bytes), FC_ENOMEM. */
static int ddd_ovf_add(fc_ddd *d, const fkey_t *k) {
    if (d->otsize && d->otab[ddd_ovf_slot(d, k)]) return 0;
    if (d->max_states && d->states >= d->max_states) return FC_LIMIT;
    if (d->novf >= 0xFFFFFFFEull) return FC_EOVERFLOW;
    uint64_t ncap = d->novf < d->ovfcap ? d->ovfcap : d->ovfcap ? d->ovfcap * 2 : 1024;
    uint64_t nts = 2 * (d->novf + 1) <= d->otsize ? d->otsize : d->otsize ? d->otsize * 2 : 2048;
    if (ddd_ovf_bytes(d, ncap, nts) > d->ovf_limit) return FC_EOVERFLOW;
    if (ncap != d->ovfcap) {
        fkey_t *a = (fkey_t *)realloc(d->ovf, ncap * sizeof *a);
        if (!a) return FC_ENOMEM;
        d->ovf = a;
        d->ovfcap = ncap;
    }
    if (nts != d->otsize) {   /* a table twice the size, rebuilt */
        uint32_t *t = (uint32_t *)calloc(nts, sizeof *t);
        if (!t) return FC_ENOMEM;
        free(d->otab);
        d->otab = t;
        d->otsize = nts;
        for (uint64_t i = 0; i < d->novf; i++) d->otab[ddd_ovf_slot(d, &d->ovf[i])] = (uint32_t)(i + 1);
    }
    d->ovf[d->novf] = *k;
    d->otab[ddd_ovf_slot(d, k)] = (uint32_t)(d->novf + 1);
    d->novf++;
    d->states++;
    int h = home_sum(k);
    if (h > d->max_home) d->max_home = h;
    return 1;
}

static int ddd_open_front(fc_ddd *d) {
    char path[4200];
    int e = 0;
    /* the overflow positions of layer cur are those found so far from ovl[cur] on: ovl[cur+1] is here */
    d->ovl = (uint64_t *)room_for(d->ovl, d->cur + 1, &d->ovlcap, sizeof *d->ovl, 256, &e);
    if (e) return d->status = e;
    d->ovl[d->cur + 1] = d->novf;
    d->ovltop = d->cur + 1;
    d->oexp = d->ovl[d->cur];
    uint8_t h[DDD_FHEAD];
    if (ddd_path(d, FR(FK_LAYER, d->cur), path)) return ddd_fail(d, ENAMETOOLONG);
    e = kr_open(&d->front, path, 0, ddd_head(d, FR(FK_LAYER, d->cur), h));
    return e == FC_EIO ? ddd_fail(d, d->front.err) : e;
}

/* A disk search with no layer yet: its context, buffer and limits (keep: 2 = fc_ddd_free touches no file,
   for fc_ddd_resume). NULL with *err set. */
static fc_ddd *ddd_make(const fc_pos *start, const fc_rules *r, const char *dir, uint64_t mem, uint64_t max_states,
                        int stop_on_win, int key_bits, int keep, int *err) {
    int e = check_rules(r);
    if (e || r->hand) { *err = FC_EBADRULES; return NULL; }
    if (fc_pos_check(start, FC_MAX_CELLS)) { *err = FC_EBADPOS; return NULL; }
    if (strlen(dir) >= 4000) { *err = FC_EIO; return NULL; }
    fc_ddd *d = (fc_ddd *)calloc(1, sizeof *d);
    if (!d) { *err = FC_ENOMEM; return NULL; }
    d->keep = keep;
    if (ctx_init(&d->c, start, r)) { free(d); *err = FC_EBADPOS; return NULL; }
    if (d->c.hb > 8 || d->c.cb > 30 || 8 * (d->c.hb + 4) + 52 + d->c.cb + d->c.hand > DDD_KBITS) {
        free(d); *err = FC_EBADPOS; return NULL;     /* never: the bound above DDD_KBITS */
    }
    d->c.kbits = key_bits > 0 && key_bits < DDD_KBITS ? key_bits : DDD_KBITS;
    strcpy(d->dir, dir);
    d->start = *start;
    d->rules = *r;
    d->mem = mem < DDD_MINMEM ? DDD_MINMEM : mem;
    d->ovf_limit = d->mem / 4 < DDD_OVFMIN ? DDD_OVFMIN : d->mem / 4;
    d->max_states = max_states;
    d->stop_on_win = stop_on_win != 0;
    d->cap = d->mem / sizeof(dkey_t);
    d->buf = (dkey_t *)malloc(d->cap * sizeof *d->buf);
    if (!d->buf) { fc_ddd_free(d); *err = FC_ENOMEM; return NULL; }
    return d;
}

/* A number for a new search (in its files' heads): 64 bits of /dev/urandom, else of the clock, the process and
   the search's address mixed (splitmix64). */
static uint64_t ddd_new_id(const fc_ddd *d) {
    uint64_t id = 0;
    FILE *f = fopen("/dev/urandom", "rb");
    if (f) {
        if (fread(&id, 1, sizeof id, f) != sizeof id) id = 0;
        fclose(f);
    }
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    uint64_t z = id ^ ((uint64_t)t.tv_sec << 30) ^ (uint64_t)t.tv_nsec ^ ((uint64_t)getpid() << 40)
               ^ (uint64_t)(uintptr_t)d;
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

fc_ddd *fc_ddd_new(const fc_pos *start, const fc_rules *r, const char *dir, uint64_t mem, uint64_t max_states,
                   int stop_on_win, int key_bits, int *err) {
    int e = 0, dummy;
    if (!err) err = &dummy;
    fc_ddd *d = ddd_make(start, r, dir, mem, max_states, stop_on_win, key_bits, 0, err);
    if (!d) return NULL;
    fkey_t k;
    dkey_t ck;
    if (pos_to_key(&d->c, start, &k)) { fc_ddd_free(d); *err = FC_EENCODE; return NULL; }
    autoplay_key(&d->c, &k);
    if (d->c.canonical) canon_key(&k);
    int fits = !pack_dkey(&d->c, &k, &ck);   /* the start is in L0, or in the overflow set (and L0 empty) */
    if (!fits && (e = ddd_ovf_add(d, &k)) != 1) { fc_ddd_free(d); *err = e == FC_LIMIT ? FC_ENOMEM : e; return NULL; }
    char path[4200];
    uint8_t h[DDD_FHEAD];
    d->id = ddd_new_id(d);
    if (ddd_path(d, FR(FK_LAYER, 0), path)) { fc_ddd_free(d); *err = FC_EIO; return NULL; }
    kwriter *w = kw_open(path, 0, ddd_head(d, FR(FK_LAYER, 0), h), &e);
    if (!w) { d->sys_errno = e; *err = FC_EIO; fc_ddd_free(d); return NULL; }
    d->nlayers = 1;
    if (fits) kw_put(w, &ck);
    uint64_t bytes = 0;
    if ((e = kw_close(w, &bytes)) || ddd_grew(d, FR(FK_LAYER, 0), (uint64_t)fits, bytes)) {
        d->sys_errno = e; fc_ddd_free(d); *err = e ? FC_EIO : FC_ENOMEM; return NULL;
    }
    d->states = 1;
    d->max_home = home_sum(&k);
    d->status = FC_RUNNING;
    if (d->max_home == 52) {
        d->won = 1;
        d->won_key = k;
        d->won_layer = 0;
        if (d->stop_on_win) d->status = FC_WON;
    }
    if (d->status == FC_RUNNING && ddd_open_front(d)) { *err = FC_EIO; fc_ddd_free(d); return NULL; }
    d->between = 1;
    *err = 0;
    return d;
}

static int ddd_listed(const fc_ddd *d, fref f);
static int ddd_state_path(const fc_ddd *d, const char *name, char *path);
static int ddd_layer_done(fc_ddd *d);

void fc_ddd_free(fc_ddd *d) {
    if (!d) return;
    kr_close(&d->front);
    km_close(&d->cand);
    km_close(&d->seen);
    km_close(&d->sorted);
    if (d->out) { kw_close(d->out, NULL); d->out = NULL; }
    uint64_t upto[FK_KINDS] = {d->nlayers + 1, d->nruns + 1, d->nseen + 1, d->nsorted + 1};   /* + a file being made */
    for (int t = 0; t < FK_KINDS; t++) {
        for (uint64_t i = 0; i < upto[t] && d->keep != 2; i++) if (!ddd_listed(d, FR(t, i))) ddd_remove(d, FR(t, i));
        free(d->fsz[t]);
        free(d->fbytes[t]);
    }
    if (d->keep == 1) {            /* a half-written state file goes; the last one stays */
        char path[4200];
        if (!ddd_state_path(d, DDD_STATE_TMP, path)) remove(path);
    }
    free(d->buf);
    free(d->ovf);
    free(d->otab);
    free(d->ovl);
    free(d->oorder);
    free(d);
}

/* Whether k is what the search looks for: its target when one is set (fc_ddd_target), else a won position. */
static int ddd_goal(const fc_ddd *d, const fkey_t *k) {
    return d->has_target ? fk_same(k, &d->target) : home_sum(k) == 52;
}

/* The same for a packed key (a position met in a merge). */
static int ddd_goal_packed(const fc_ddd *d, const dkey_t *k) {
    return d->has_target ? d->target_packs && dk_same(k, &d->target_ck) : dkey_home(&d->c, k) == 52;
}

/* The successors of k (autoplay and canonical order applied) into d->kb and packed into out (out[i].hi = DOVF
   when one does not pack: it goes to the overflow set); the count. *won: the index of one the search looks
   for (ddd_goal: a won one, or the target). */
static int ddd_succ(fc_ddd *d, const fkey_t *k, dkey_t *out, int *won) {
    int n = gen(&d->c, k, d->kb);
    for (int i = 0; i < n; i++) {
        if (d->c.autoplay) autoplay_key(&d->c, &d->kb[i]);
        if (d->c.canonical) canon_key(&d->kb[i]);
        if (pack_dkey(&d->c, &d->kb[i], &out[i])) { out[i].lo = out[i].mid = 0; out[i].hi = DOVF; }
        if (ddd_goal(d, &d->kb[i])) *won = i;
    }
    return n;
}

/* A position as the search stores it: its key, autoplay and canonical order applied. */
static int ddd_key(const fc_ddd *d, const fc_pos *p, fkey_t *k) {
    if (pos_to_key(&d->c, p, k)) return FC_EENCODE;
    if (d->c.autoplay) autoplay_key(&d->c, k);
    if (d->c.canonical) canon_key(k);
    return 0;
}

int fc_ddd_overflow_limit(fc_ddd *d, uint64_t bytes) {
    d->ovf_limit = bytes < DDD_OVFMIN ? DDD_OVFMIN : bytes;
    return 0;
}

int fc_ddd_target(fc_ddd *d, const uint8_t *p64) {
    fc_pos p;
    fkey_t k, s;
    if (d->keep || d->resumed || d->expanded || d->cur || d->status != FC_RUNNING) return FC_ERANGE;
    if (fc_p64_to_pos(p64, &p)) return FC_EBADPOS;
    if (ddd_key(d, &p, &k) || ddd_key(d, &d->start, &s)) return FC_EENCODE;
    d->has_target = 1;
    d->target = k;
    d->target_packs = !pack_dkey(&d->c, &k, &d->target_ck);
    d->won = fk_same(&s, &k);            /* the start: a won one no longer counts, the target does */
    d->won_key = s;
    d->won_layer = 0;
    d->won_has_parent = 0;
    if (d->won && d->stop_on_win) d->status = FC_WON;
    return 0;
}

/* ---- checkpoints: a resumable disk search ----
 *
 * Between two layers (layer cur's merge done, nothing of it expanded) the whole search is its counters, the
 * files V<nseen-1> and L<lfirst> .. L<cur>, and the overflow set. In keep mode (fc_ddd_keep) they are
 * written at the end of every layer to the state file DDD_STATE -- its temporary name first, fsync'd,
 * renamed, the folder fsync'd -- and no file it lists is removed before the next state file replaces it
 * (the layer's merge of old layers into V keeps its inputs until then). The layer files are not copied:
 * a checkpoint is the state file only (its counters, the search's number (in every file's head) and its
 * time so far, the live files' names and byte sizes, the overflow set). fc_ddd_resume reads it back,
 * checks every listed file's size (stat) and head (another search's file, or a layer file under another
 * layer's name, is refused: FC_ESTATE), removes the files it does not list (runs, a half-written layer) and
 * goes on from layer cur. Version 1 (files of format 1, no number, no time) is refused in one line.
 * Every number is written little-endian; an FNV-1a checksum of the bytes before it ends the file.
 */
static const char DDD_MAGIC[8] = {'F', 'C', 'D', 'D', 'D', 'S', 'T', '1'};
#define DDD_VERSION 3u      /* 2: files of format 2 (16-byte keys of 127 bits); 1: files of format 1, no search
                               number, no total time */

typedef struct { uint8_t *p; size_t n, cap; int err; } sbuf;        /* a state file being built */
typedef struct { const uint8_t *p; size_t n, at; int bad; } sread;  /* one being read */

static void sb_put(sbuf *b, const void *src, size_t n) {
    if (b->err) return;
    if (b->n + n > b->cap) {
        size_t nc = b->cap ? b->cap : 4096;
        while (nc < b->n + n) nc *= 2;
        uint8_t *q = (uint8_t *)realloc(b->p, nc);
        if (!q) { b->err = 1; return; }
        b->p = q;
        b->cap = nc;
    }
    memcpy(b->p + b->n, src, n);
    b->n += n;
}

static void sb_u64(sbuf *b, uint64_t v) {
    uint8_t x[8];
    put_le(x, v, 8);
    sb_put(b, x, 8);
}

static const uint8_t *sr_get(sread *r, size_t n) {
    if (r->bad || r->n - r->at < n) { r->bad = 1; return NULL; }
    r->at += n;
    return r->p + r->at - n;
}

static uint64_t sr_u64(sread *r) {
    const uint8_t *x = sr_get(r, 8);
    return x ? le64(x) : 0;
}

static uint64_t fnv64(const uint8_t *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) { h ^= p[i]; h *= 0x100000001b3ull; }
    return h;
}

static void sb_key(sbuf *b, const fkey_t *k) {
    for (int i = 0; i < 8; i++) sb_u64(b, k->w[i]);
    sb_u64(b, k->cells);
}

static void sr_key(sread *r, fkey_t *k) {
    for (int i = 0; i < 8; i++) k->w[i] = (uint32_t)sr_u64(r);
    k->cells = sr_u64(r);
}

static void sb_pos(sbuf *b, const fc_pos *p) {
    sb_put(b, p->len, 8);
    sb_put(b, p->col, sizeof p->col);
    sb_put(b, &p->ncells, 1);
    sb_put(b, p->cells, 8);
    sb_put(b, p->home, 4);
}

static void sr_pos(sread *r, fc_pos *p) {
    const uint8_t *x;
    memset(p, 0, sizeof *p);
    if ((x = sr_get(r, 8))) memcpy(p->len, x, 8);
    if ((x = sr_get(r, sizeof p->col))) memcpy(p->col, x, sizeof p->col);
    if ((x = sr_get(r, 1))) p->ncells = x[0];
    if ((x = sr_get(r, 8))) memcpy(p->cells, x, 8);
    if ((x = sr_get(r, 4))) memcpy(p->home, x, 4);
}

static void sb_rules(sbuf *b, const fc_rules *r) {
    int v[6] = {r->cells, r->foundation_return, r->autoplay, r->canonical, r->supermoves, r->hand};
    for (int i = 0; i < 6; i++) sb_u64(b, (uint64_t)(int64_t)v[i]);
}

static void sr_rules(sread *r, fc_rules *out) {
    int v[6];
    for (int i = 0; i < 6; i++) v[i] = (int)(int64_t)sr_u64(r);
    out->cells = v[0]; out->foundation_return = v[1]; out->autoplay = v[2];
    out->canonical = v[3]; out->supermoves = v[4]; out->hand = v[5];
}

static double ddd_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The search's time over its runs: the earlier runs' (to the checkpoint this run went on from) and this one's in
   fc_ddd_run so far. */
static double ddd_total_seconds(const fc_ddd *d) {
    return d->prior_seconds + d->seconds + (d->in_run ? ddd_now() - d->run_t0 : 0.0);
}

static int ddd_state_path(const fc_ddd *d, const char *name, char *path) {
    int n = snprintf(path, 4200, "%s/%s", d->dir, name);
    return n > 0 && n < 4200 ? 0 : FC_EIO;
}

/* The live files between layers: V<nseen-1> and L<lfirst> .. L<cur> (ddd_visited). */
static uint64_t ddd_live(const fc_ddd *d, fref *f) { return ddd_visited(d, d->cur, f); }

/* Write the state file (between layers only). 0 or a negative error (FC_EIO: errno in sys_errno). */
static int ddd_checkpoint(fc_ddd *d) {
    char path[4200], tmp[4200];
    fref f[DDD_MAXF + 2];
    sbuf b;
    double t0 = ddd_now();
    if (!d->between || d->phase != PH_EXPAND) return FC_ERANGE;
    memset(&b, 0, sizeof b);
    sb_put(&b, DDD_MAGIC, 8);
    sb_u64(&b, DDD_VERSION);
    sb_pos(&b, &d->start);
    sb_rules(&b, &d->rules);
    sb_u64(&b, (uint64_t)d->c.kbits);
    sb_u64(&b, d->id);
    sb_u64(&b, (uint64_t)(ddd_total_seconds(d) * 1e6));   /* microseconds */
    uint64_t head[] = {d->states, d->expanded, d->generated, d->nlayers, d->lfirst, d->nseen, d->cur,
                       d->runs_total, d->disk_peak, (uint64_t)d->max_home, (uint64_t)d->won,
                       (uint64_t)d->won_has_parent, d->won_layer};
    for (size_t i = 0; i < sizeof head / sizeof head[0]; i++) sb_u64(&b, head[i]);
    sb_key(&b, &d->won_key);
    sb_key(&b, &d->won_parent);
    uint64_t n = ddd_live(d, f);
    sb_u64(&b, n);
    for (uint64_t i = 0; i < n; i++) {
        struct stat st;
        if (ddd_path(d, f[i], path)) { free(b.p); return ddd_fail(d, ENAMETOOLONG); }
        int fd = open(path, O_RDONLY), no = 0;      /* its bytes on the disk before the state lists it */
        if (fd < 0 || fsync(fd) || fstat(fd, &st)) no = errno ? errno : EIO;
        if (fd >= 0) close(fd);
        if (no) { free(b.p); return ddd_fail(d, no); }
        sb_u64(&b, (uint64_t)f[i].kind);
        sb_u64(&b, f[i].idx);
        sb_u64(&b, ddd_size(d, f[i]));
        sb_u64(&b, (uint64_t)st.st_size);
    }
    sb_u64(&b, d->novf);
    for (uint64_t i = 0; i < d->novf; i++) sb_key(&b, &d->ovf[i]);
    for (uint64_t l = 0; l <= d->cur + 1; l++) sb_u64(&b, d->ovl[l]);
    sb_u64(&b, fnv64(b.p, b.n));
    if (b.err) { free(b.p); return d->status = FC_ENOMEM; }
    if (ddd_state_path(d, DDD_STATE_TMP, tmp) || ddd_state_path(d, DDD_STATE, path)) {
        free(b.p); return ddd_fail(d, ENAMETOOLONG);
    }
    FILE *o = fopen(tmp, "wb");
    int e = o ? 0 : (errno ? errno : EIO);
    if (o && fwrite(b.p, 1, b.n, o) != b.n) e = errno ? errno : EIO;
    if (o && fflush(o) && !e) e = errno ? errno : EIO;
    if (o && fsync(fileno(o)) && !e) e = errno ? errno : EIO;
    if (o && fclose(o) && !e) e = errno ? errno : EIO;
    if (!e && rename(tmp, path)) e = errno ? errno : EIO;
    size_t bytes = b.n;
    free(b.p);
    if (e) { remove(tmp); return ddd_fail(d, e); }
    d->ck_lfirst = d->lfirst;      /* the new state is in place: its files are the ones to keep */
    d->ck_nlayers = d->cur + 1;
    d->ck_nseen = d->nseen;
    d->checkpoints++;
    d->ck_bytes = bytes;
    int fd = open(d->dir, O_RDONLY);   /* the rename itself reaches the disk */
    if (fd < 0 || fsync(fd)) e = errno ? errno : EIO;
    if (fd >= 0) close(fd);
    d->ck_seconds += ddd_now() - t0;
    return e ? ddd_fail(d, e) : 0;
}

/* Whether f is one of the last checkpoint's files (kept by fc_ddd_free in keep mode). */
static int ddd_listed(const fc_ddd *d, fref f) {
    if (d->keep != 1) return 0;
    if (f.kind == FK_SEEN) return d->ck_nseen && f.idx == d->ck_nseen - 1;
    return f.kind == FK_LAYER && f.idx >= d->ck_lfirst && f.idx < d->ck_nlayers;
}

/* Layer cur's merge is done and its expansion about to begin: when more than DDD_MAXF layer files would be
   visited by its merge, the older ones are merged into one file V; in keep mode a checkpoint is written, and
   only then are the merged inputs removed (the previous state file lists them). */
static int ddd_layer_done(fc_ddd *d) {
    fref f[DDD_MAXF + 2];
    uint64_t n = 0;
    int e = 0;
    d->between = 1;
    if (d->cur + 1 - d->lfirst > DDD_MAXF) {
        n = ddd_visited(d, d->cur - 1, f);
        if ((e = ddd_combine(d, f, n, FR(FK_SEEN, d->nseen), NULL, 1))) return e;
        d->nseen++;
        d->lfirst = d->cur;
    }
    if (d->keep && (e = ddd_checkpoint(d))) return e;
    for (uint64_t i = 0; i < n; i++) ddd_remove(d, f[i]);
    return 0;
}

int fc_ddd_keep(fc_ddd *d, int on) {
    char path[4200];
    if (!on) {
        d->keep = 0;
        if (!ddd_state_path(d, DDD_STATE, path)) remove(path);
        return 0;
    }
    if (!d->between || d->phase != PH_EXPAND || d->status != FC_RUNNING || d->has_target) return FC_ERANGE;
    d->keep = 1;
    int e = ddd_checkpoint(d);
    if (e) d->keep = 0;
    return e;
}

/* The rules in words, for a message: "1 free cell, column order" (into buf, which it returns). */
static const char *rules_words(const fc_rules *r, char *buf, size_t n) {
    int k = snprintf(buf, n, "%d free cell%s", r->cells, r->cells == 1 ? "" : "s");
    static const char *const autoplay[] = {NULL, "automatic moves (safe)", "automatic moves (horne)",
                                           "automatic moves (aces and twos)"};
    const char *more[] = {r->foundation_return ? "foundation returns" : NULL,
                          r->autoplay > 0 && r->autoplay < 4 ? autoplay[r->autoplay] : NULL,
                          r->canonical ? "column order" : NULL,
                          r->supermoves ? "supermoves" : NULL, r->hand ? "the favor" : NULL};
    for (size_t i = 0; i < sizeof more / sizeof *more; i++)
        if (more[i] && k >= 0 && (size_t)k < n) k += snprintf(buf + k, n - (size_t)k, ", %s", more[i]);
    return buf;
}

/* A reason into why (printf style), and code. */
static int ddd_why(char *why, uint64_t whylen, int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (why && whylen) vsnprintf(why, (size_t)whylen, fmt, ap);
    va_end(ap);
    return code;
}

/* Whether a folder entry is named as one of the search's files ("L000012.keys"); then *f is that file. */
static int ddd_own_name(const char *name, fref *f) {
    if (strlen(name) != 12 || strcmp(name + 7, ".keys")) return 0;
    for (int t = 0; t < FK_KINDS; t++) {
        if (name[0] != FK_NAME[t]) continue;
        uint64_t v = 0;
        for (int i = 1; i < 7; i++) {
            if (name[i] < '0' || name[i] > '9') return 0;
            v = v * 10 + (uint64_t)(name[i] - '0');
        }
        f->kind = t;
        f->idx = v;
        return 1;
    }
    return 0;
}

/* Read and check the state file into d (its start, rules, key bits compared with the caller's), restore
   the counters, the live files' sizes and the overflow set. 0, FC_ESTATE or FC_EOTHER (why says which),
   FC_ENOMEM. */
static int ddd_restore(fc_ddd *d, const uint8_t *p, size_t n, int key_bits, char *why, uint64_t whylen) {
    sread r = {p, n, 0, 0};
    fc_pos start;
    fc_rules rules;
    int e = 0;
    if (n < 16 || memcmp(p, DDD_MAGIC, 8))
        return ddd_why(why, whylen, FC_ESTATE, "%s: not a disk search's state file", DDD_STATE);
    if (fnv64(p, n - 8) != (r.at = n - 8, sr_u64(&r)))
        return ddd_why(why, whylen, FC_ESTATE, "%s: damaged (its checksum does not match)", DDD_STATE);
    r.at = 8;
    r.n = n - 8;
    uint64_t version = sr_u64(&r);
    if (version != DDD_VERSION)
        return ddd_why(why, whylen, FC_ESTATE, "%s: written in format %llu by %s version of this program, which "
                       "reads format %u only", DDD_STATE, (unsigned long long)version,
                       version < DDD_VERSION ? "an older" : "a newer", DDD_VERSION);
    sr_pos(&r, &start);
    sr_rules(&r, &rules);
    uint64_t kbits = sr_u64(&r);
    d->id = sr_u64(&r);
    d->prior_seconds = (double)sr_u64(&r) / 1e6;
    if (r.bad) return ddd_why(why, whylen, FC_ESTATE, "%s: cut short", DDD_STATE);
    if (memcmp(&start, &d->start, sizeof start))
        return ddd_why(why, whylen, FC_EOTHER, "it holds the search of another start position");
    if (memcmp(&rules, &d->rules, sizeof rules)) {
        char there[160], asked[160];
        return ddd_why(why, whylen, FC_EOTHER, "it holds a search under other rules: there %s; asked %s",
                       rules_words(&rules, there, sizeof there), rules_words(&d->rules, asked, sizeof asked));
    }
    int want = key_bits > 0 && key_bits < DDD_KBITS ? key_bits : DDD_KBITS;
    if (kbits != (uint64_t)want)
        return ddd_why(why, whylen, FC_EOTHER, "it holds a search with keys of %llu bits, not %d",
                       (unsigned long long)kbits, want);
    uint64_t head[13];
    for (int i = 0; i < 13; i++) head[i] = sr_u64(&r);
    d->states = head[0]; d->expanded = head[1]; d->generated = head[2]; d->nlayers = head[3];
    d->lfirst = head[4]; d->nseen = head[5]; d->cur = head[6]; d->runs_total = head[7];
    d->disk_peak = head[8]; d->max_home = (int)head[9]; d->won = (int)head[10];
    d->won_has_parent = (int)head[11]; d->won_layer = head[12];
    sr_key(&r, &d->won_key);
    sr_key(&r, &d->won_parent);
    uint64_t nf = sr_u64(&r);
    fref want_f[DDD_MAXF + 2];
    uint64_t filed = 0;            /* positions in the listed files */
    if (r.bad || head[9] > 52 || head[10] > 1 || head[11] > 1 || d->nlayers != d->cur + 1 || d->lfirst > d->cur
        || d->cur - d->lfirst + 1 > DDD_MAXF || (d->lfirst && !d->nseen) || d->nseen > (1ull << 40)
        || d->cur > (1ull << 40) || nf != ddd_live(d, want_f))
        return ddd_why(why, whylen, FC_ESTATE, "%s: its counters do not hold together", DDD_STATE);
    for (uint64_t i = 0; i < nf; i++) {
        char path[4200];
        struct stat st;
        fref f;
        f.kind = (int)sr_u64(&r);
        f.idx = sr_u64(&r);
        uint64_t keys = sr_u64(&r), bytes = sr_u64(&r);
        if (r.bad || f.kind != want_f[i].kind || f.idx != want_f[i].idx)
            return ddd_why(why, whylen, FC_ESTATE, "%s: its file list does not hold together", DDD_STATE);
        if (ddd_path(d, f, path)) return FC_EIO;
        const char *name = strrchr(path, '/') + 1;
        if (stat(path, &st))
            return ddd_why(why, whylen, FC_ESTATE, "%s is missing (the state file lists it)", name);
        if ((uint64_t)st.st_size != bytes)
            return ddd_why(why, whylen, FC_ESTATE, "%s has %llu bytes, the state file says %llu", name,
                           (unsigned long long)st.st_size, (unsigned long long)bytes);
        uint8_t h[DDD_FHEAD], want[DDD_FHEAD];
        FILE *fh = fopen(path, "rb");
        size_t got = fh ? fread(h, 1, DDD_FHEAD, fh) : 0;
        if (fh) fclose(fh);
        if (got != DDD_FHEAD || memcmp(h, ddd_head(d, f, want), DDD_FHEAD))
            return ddd_why(why, whylen, FC_ESTATE, "%s is not this search's file of that name (its head names "
                           "another search, file or format)", name);
        if ((e = ddd_grew(d, f, keys, bytes))) return FC_ENOMEM;
        filed += keys;
    }
    uint64_t novf = sr_u64(&r);
    if (r.bad || novf > (r.n - r.at) / 72)
        return ddd_why(why, whylen, FC_ESTATE, "%s: cut short", DDD_STATE);
    uint64_t limit = d->max_states, s = d->states;
    d->max_states = 0;
    for (uint64_t i = 0; i < novf; i++) {
        fkey_t k;
        sr_key(&r, &k);
        e = ddd_ovf_add(d, &k);           /* rebuilds the set as it grew: the same sizes, table and order */
        d->states = s;
        if (e == FC_EOVERFLOW)
            return ddd_why(why, whylen, FC_EOVERFLOW, "its %llu positions over the key need more than "
                           "a quarter of this --memory", (unsigned long long)novf);
        if (e != 1) return e < 0 ? e : ddd_why(why, whylen, FC_ESTATE, "%s: its overflow set repeats a position",
                                               DDD_STATE);
    }
    d->max_states = limit;
    e = 0;
    if ((r.n - r.at) / 8 < d->cur + 2) r.bad = 1;
    for (uint64_t l = 0; l <= d->cur + 1 && !e && !r.bad; l++) {
        d->ovl = (uint64_t *)room_for(d->ovl, l, &d->ovlcap, sizeof *d->ovl, 256, &e);
        if (!e) d->ovl[l] = sr_u64(&r);
        if (!e && (d->ovl[l] > novf || (l && d->ovl[l] < d->ovl[l - 1]))) r.bad = 1;
    }
    if (e) return e;
    if (r.bad || r.at != r.n || d->ovl[d->cur + 1] != novf)
        return ddd_why(why, whylen, FC_ESTATE, "%s: its overflow set does not hold together", DDD_STATE);
    if (d->states != filed + novf || d->won != (d->max_home == 52))   /* every position is in one file or the set */
        return ddd_why(why, whylen, FC_ESTATE, "%s: its counters do not hold together", DDD_STATE);
    d->ovltop = d->cur + 1;
    return 0;
}

/* Remove the folder's files of the search that the state does not list (runs, a half-written layer, P64
   runs, a merge into V not finished, the state's temporary file). */
static int ddd_sweep(fc_ddd *d) {
    char path[4200];
    fref live[DDD_MAXF + 2], f;
    uint64_t n = ddd_live(d, live);
    DIR *dh = opendir(d->dir);
    if (!dh) return ddd_fail(d, errno);
    struct dirent *ent;
    while ((ent = readdir(dh))) {
        int listed = 0, own = ddd_own_name(ent->d_name, &f);
        if (!own && strcmp(ent->d_name, DDD_STATE_TMP)) continue;     /* not the search's: left alone */
        for (uint64_t i = 0; own && i < n; i++) listed |= live[i].kind == f.kind && live[i].idx == f.idx;
        if (!listed && snprintf(path, sizeof path, "%s/%s", d->dir, ent->d_name) < (int)sizeof path) remove(path);
    }
    closedir(dh);
    return 0;
}

fc_ddd *fc_ddd_resume(const fc_pos *start, const fc_rules *rules, const char *dir, uint64_t mem,
                      uint64_t max_states, int stop_on_win, int key_bits, int *err, char *why, uint64_t whylen) {
    int dummy;
    if (!err) err = &dummy;
    if (why && whylen) why[0] = 0;
    fc_ddd *d = ddd_make(start, rules, dir, mem, max_states, stop_on_win, key_bits, 2, err);
    if (!d) return NULL;
    char path[4200];
    uint8_t *p = NULL;
    long size = -1;
    FILE *f = NULL;
    struct stat st;                /* a regular file (not a folder, not a pipe), no bigger than the overflow
                                      set this --memory allows needs (72 bytes a position written), read whole */
    uint64_t most = (1u << 20) + 2 * d->ovf_limit;
    int e = 0;
    if (ddd_state_path(d, DDD_STATE, path) || stat(path, &st))
        e = ddd_why(why, whylen, FC_ESTATE, "%s: cannot be read (missing?)", DDD_STATE);
    else if (!S_ISREG(st.st_mode))
        e = ddd_why(why, whylen, FC_ESTATE, "%s: not a regular file", DDD_STATE);
    else if ((uint64_t)st.st_size > most)
        e = ddd_why(why, whylen, FC_EOVERFLOW, "%s: %llu bytes, more than the overflow set of this --memory "
                    "holds", DDD_STATE, (unsigned long long)st.st_size);
    if (!e && (f = fopen(path, "rb")) && (p = (uint8_t *)malloc(st.st_size ? (size_t)st.st_size : 1))
        && fread(p, 1, (size_t)st.st_size, f) == (size_t)st.st_size) size = (long)st.st_size;   /* its size: stat's */
    if (f) fclose(f);
    if (!e) e = size < 0 ? ddd_why(why, whylen, FC_ESTATE, "%s: cannot be read", DDD_STATE)
                         : ddd_restore(d, p, (size_t)size, key_bits, why, whylen);
    free(p);
    if (!e) e = ddd_sweep(d);
    if (!e) {
        d->status = FC_RUNNING;
        d->phase = PH_EXPAND;
        if (ddd_open_front(d)) e = FC_EIO;
    }
    if (e) {                       /* keep 2: fc_ddd_free removes nothing of the folder */
        *err = e;
        fc_ddd_free(d);
        return NULL;
    }
    d->between = 1;
    d->keep = 1;                   /* its files are this state's until the next checkpoint */
    d->resumed = 1;
    d->resumed_layer = d->cur;
    d->resumed_states = d->states;
    d->ck_lfirst = d->lfirst;
    d->ck_nlayers = d->cur + 1;
    d->ck_nseen = d->nseen;
    *err = 0;
    return d;
}

/* Begin the merge of the runs against the earlier layers into the new layer L<cur+1>. */
static int ddd_begin_merge(fc_ddd *d) {
    char path[4200];
    fref f[DDD_MAXF + 2];
    int e = 0;
    uint64_t nr = d->nruns - d->rfirst;
    for (uint64_t i = 0; i < nr; i++) f[i] = FR(FK_RUN, d->rfirst + i);
    if ((e = km_open(d, &d->cand, f, nr, NULL, d->buf, d->nbuf))) return e;
    if ((e = km_open(d, &d->seen, f, ddd_visited(d, d->cur, f), NULL, NULL, 0))) return e;
    uint8_t h[DDD_FHEAD];
    if (ddd_path(d, FR(FK_LAYER, d->cur + 1), path)) return ddd_fail(d, ENAMETOOLONG);
    d->out = kw_open(path, 0, ddd_head(d, FR(FK_LAYER, d->cur + 1), h), &e);
    if (!d->out) return ddd_fail(d, e);
    d->nlayers = d->cur + 2;
    d->out_bytes = 0;
    d->have_last = 0;
    d->phase = PH_MERGE;
    return 0;
}

/* The merge is over: the runs go, the new layer becomes the one to expand (or the search is done). */
static int ddd_end_merge(fc_ddd *d) {
    uint64_t bytes = 0, n = d->out->count;
    int e = kw_close(d->out, &bytes);
    d->out = NULL;
    int g = ddd_grew(d, FR(FK_LAYER, d->cur + 1), n, bytes);
    km_close(&d->cand);
    km_close(&d->seen);
    for (uint64_t i = 0; i < d->nruns; i++) ddd_remove(d, FR(FK_RUN, i));
    d->nruns = d->rfirst = 0;
    d->nbuf = 0;                   /* the run kept in memory is merged */
    if (e) return ddd_fail(d, e);
    if (g) return d->status = g;
    d->cur++;
    if (!ddd_size(d, FR(FK_LAYER, d->cur)) && d->novf == d->ovl[d->cur]) {
        ddd_remove(d, FR(FK_LAYER, d->cur));
        d->nlayers--;
        return d->status = FC_DONE;
    }
    d->phase = PH_EXPAND;
    if ((e = ddd_open_front(d))) return e;
    return ddd_layer_done(d);
}

static int ddd_run(fc_ddd *d, uint64_t max_expand);

int fc_ddd_run(fc_ddd *d, uint64_t max_expand) {
    d->run_t0 = ddd_now();
    d->in_run = 1;
    int e = ddd_run(d, max_expand);
    d->in_run = 0;
    d->seconds += ddd_now() - d->run_t0;
    return e;
}

static int ddd_run(fc_ddd *d, uint64_t max_expand) {
    uint64_t budget = max_expand;
    dkey_t out[SOLVE_MAX_SUCC];
    while (d->status == FC_RUNNING) {
        if (max_expand && budget-- == 0) return FC_RUNNING;
        if (d->phase == PH_EXPAND) {
            d->between = 0;
            int from_ovf = d->oexp < d->ovl[d->cur + 1];   /* the layer's overflow positions first */
            const dkey_t *k = from_ovf ? NULL : kr_peek(&d->front);
            if (!from_ovf && !k) {
                if (d->front.err) return ddd_fail(d, d->front.err);
                kr_close(&d->front);
                d->nbuf = dk_sort_unique(d->buf, d->nbuf);   /* the last run stays in memory for the merge */
                if (d->nbuf) d->runs_total++;
                if (!d->nbuf && d->nruns == d->rfirst && d->novf == d->ovl[d->cur + 1]) {   /* layer cur+1 is empty */
                    d->phase = PH_END;
                    d->cur++;
                    return d->status = FC_DONE;
                }
                int e = ddd_begin_merge(d);
                if (e) return d->status = e;
                continue;
            }
            fkey_t cur;
            if (from_ovf) cur = d->ovf[d->oexp++];
            else { unpack_dkey(&d->c, k, &cur); d->front.at++; }
            int won = -1, n = ddd_succ(d, &cur, out, &won);
            d->expanded++;
            d->generated += (uint64_t)n;
            if (won >= 0 && d->stop_on_win) {
                d->won = 1;
                d->won_key = d->kb[won];
                d->won_parent = cur;
                d->won_has_parent = 1;
                d->won_layer = d->cur + 1;
                if (home_sum(&d->won_key) > d->max_home) d->max_home = home_sum(&d->won_key);
                free(d->buf);              /* never used again (no sort after a win): the line's further */
                d->buf = NULL;             /* searches (fc_ddd_target) take their own buffers */
                return d->status = FC_WON;
            }
            if (d->nbuf + (uint64_t)n > d->cap) { int e = ddd_flush_run(d); if (e) return d->status = e; }
            for (int i = 0; i < n; i++) {
                if (!(out[i].hi & DOVF)) { d->buf[d->nbuf++] = out[i]; continue; }
                int e = ddd_ovf_add(d, &d->kb[i]);
                if (e < 0 || e == FC_LIMIT) return d->status = e;
                if (e && ddd_goal(d, &d->kb[i]) && !d->won) {
                    d->won = 1; d->won_key = d->kb[i]; d->won_layer = d->cur + 1;
                }
            }
        } else {   /* PH_MERGE: up to 64 candidates a unit of the budget */
            for (int t = 0; t < 64; t++) {
                const dkey_t *c = km_peek(&d->cand);
                if (!c) {
                    int e = ddd_end_merge(d);
                    if (e < 0 && d->status == FC_RUNNING) d->status = e;
                    break;
                }
                dkey_t k = *c;
                int e = km_pop(&d->cand);
                if (e) return ddd_fail(d, e);
                if (d->have_last && dk_same(&k, &d->last)) continue;
                d->last = k;
                d->have_last = 1;
                if (ks_has(&d->seen, &k, &e)) continue;
                if (e) return ddd_fail(d, e);
                if (d->max_states && d->states >= d->max_states) return d->status = FC_LIMIT;
                if (kw_put(d->out, &k)) return ddd_fail(d, d->out->err);
                if (d->out->bytes != d->out_bytes) {   /* a block written: the disk figures (its keys at the end) */
                    d->out_bytes = d->out->bytes;
                    if (ddd_grew(d, FR(FK_LAYER, d->cur + 1), 0, d->out_bytes)) return d->status = FC_ENOMEM;
                }
                d->states++;
                int h = dkey_home(&d->c, &k);
                if (h > d->max_home) d->max_home = h;
                if (!d->won && ddd_goal_packed(d, &k)) {
                    d->won = 1; unpack_dkey(&d->c, &k, &d->won_key); d->won_layer = d->cur + 1;
                }
            }
        }
    }
    return d->status;
}

void fc_ddd_stats(const fc_ddd *d, fc_ddd_info *out) {
    out->states = d->states;
    out->expanded = d->expanded;
    out->generated = d->generated;
    out->layer = d->cur;
    uint64_t oin = !d->ovl ? d->novf : (d->cur + 1 <= d->ovltop ? d->ovl[d->cur + 1] : d->novf) - d->ovl[d->cur];
    out->layer_states = ddd_size(d, FR(FK_LAYER, d->cur)) + oin;
    out->runs = d->runs_total;
    out->disk = d->disk;
    out->disk_peak = d->disk_peak;
    out->memory = d->cap * sizeof(dkey_t);   /* memory / 24 keys */
    out->overflow = d->novf;
    out->overflow_memory = ddd_ovf_bytes(d, d->ovfcap, d->otsize);
    out->overflow_limit = d->ovf_limit;
    out->max_home = d->max_home;
    out->won = d->won;
    out->status = d->status;
    out->sys_errno = d->sys_errno;
    out->checkpoints = d->checkpoints;
    out->checkpoint_bytes = d->ck_bytes;
    out->checkpoint_seconds = d->ck_seconds;
    out->resumed = d->resumed;
    out->resumed_layer = d->resumed_layer;
    out->resumed_states = d->resumed_states;
    out->prior_seconds = d->prior_seconds;
}

/* Whether one of cur's successors is *next (then *cur goes in the line). */
static int ddd_leads_to(fc_ddd *d, const fkey_t *cur, const fkey_t *next) {
    dkey_t succ[SOLVE_MAX_SUCC];
    int won = -1, m = ddd_succ(d, cur, succ, &won);
    for (int i = 0; i < m; i++) if (fk_same(&d->kb[i], next)) return 1;
    return 0;
}

/* The positions from layer `first` (0, or the oldest layer kept when older ones were merged) to the won one
   (or the target), read back through the layers: in layer l, the first of its overflow positions, then of its
   file's keys (in key order), with the next position of the line among its successors. With first NULL,
   FC_ERANGE when the older layers were merged into one file (their layer numbers are gone). */
int64_t fc_ddd_line(fc_ddd *d, uint8_t *out, uint64_t cap, uint64_t *first) {
    if (!d->won || (d->nseen && !first)) return FC_ERANGE;
    uint64_t lo = d->nseen ? d->lfirst : 0;
    if (lo > d->won_layer) lo = d->won_layer;   /* met in a merge before the layers it was in were merged */
    if (first) *first = lo;
    uint64_t n = d->won_layer - lo + 1;
    if (n > cap) return (int64_t)n;
    fkey_t *chain = (fkey_t *)malloc(n * sizeof *chain);   /* chain[i]: a position of layer lo + i */
    if (!chain) return FC_ENOMEM;
    chain[n - 1] = d->won_key;
    uint64_t known = 1;   /* chain[n-known .. n-1] are set */
    if (n >= 2 && d->won_has_parent) { chain[n - 2] = d->won_parent; known = 2; }
    for (uint64_t i = n - known; i-- > 0;) {
        uint64_t l = lo + i;
        char path[4200];
        kreader r;
        int found = 0;
        uint64_t oend = l + 1 <= d->ovltop ? d->ovl[l + 1] : d->novf;
        for (uint64_t j = d->ovl ? d->ovl[l] : 0; j < oend && !found; j++)
            if (ddd_leads_to(d, &d->ovf[j], &chain[i + 1])) { chain[i] = d->ovf[j]; found = 1; }
        memset(&r, 0, sizeof r);
        uint8_t h[DDD_FHEAD];
        if (!found && (ddd_path(d, FR(FK_LAYER, l), path) || kr_open(&r, path, 0, ddd_head(d, FR(FK_LAYER, l), h)))) {
            kr_close(&r); free(chain); return FC_EIO;
        }
        const dkey_t *k;
        while (!found && (k = kr_peek(&r))) {
            fkey_t cur;
            unpack_dkey(&d->c, k, &cur);
            r.at++;
            if (ddd_leads_to(d, &cur, &chain[i + 1])) { chain[i] = cur; found = 1; }
        }
        kr_close(&r);
        if (!found) { free(chain); return FC_EENCODE; }
    }
    for (uint64_t i = 0; i < n; i++) key_to_p64(&d->c, &chain[i], out + i * FC_P64_SIZE);
    free(chain);
    return (int64_t)n;
}

static void ddd_rec(const void *src, uint64_t i, uint8_t *rec) {
    const fc_ddd *d = (const fc_ddd *)src;
    fkey_t k;
    unpack_dkey(&d->c, &d->buf[i], &k);
    key_to_p64(&d->c, &k, rec);
}

/* Sort the first n keys of the buffer by their P64 records (v: the sort's index, in the buffer past the
   chunk's keys), write them as run S<nsorted>. */
static int ddd_flush_p64(fc_ddd *d, uint64_t n, skey_t *v) {
    char path[4200];
    int e = 0;
    for (uint64_t i = 0; i < n; i++) v[i].idx = (uint32_t)i;
    sort_level(ddd_rec, d, v, n, 0);
    fref f = FR(FK_SORTED, d->nsorted);
    uint8_t h[DDD_FHEAD];
    if (ddd_path(d, f, path)) return ddd_fail(d, ENAMETOOLONG);
    kwriter *w = kw_open(path, 1, ddd_head(d, f, h), &e);
    if (!w) return ddd_fail(d, e);
    uint8_t rec[FC_P64_SIZE];
    for (uint64_t i = 0; i < n; i++) {
        ddd_rec(d, v[i].idx, rec);
        if (kw_put_rec(w, rec)) break;
    }
    d->nsorted++;
    uint64_t bytes = 0;
    e = kw_close(w, &bytes);
    if (ddd_grew(d, f, n, bytes)) return d->status = FC_ENOMEM;
    if (e) return ddd_fail(d, e);
    return ddd_passes(d, FK_SORTED, &d->sfirst, &d->nsorted, &d->c);
}

static void ddd_ovf_rec(const void *src, uint64_t i, uint8_t *rec) {
    const fc_ddd *d = (const fc_ddd *)src;
    key_to_p64(&d->c, &d->ovf[i], rec);
}

/* The overflow positions in the order of their records (oorder), the first one's record in orec. */
static int ddd_ovf_sort(fc_ddd *d) {
    d->oorder = (uint32_t *)malloc((d->novf ? d->novf : 1) * sizeof *d->oorder);
    skey_t *v = (skey_t *)malloc((d->novf ? d->novf : 1) * sizeof *v);
    if (!d->oorder || !v) { free(v); return FC_ENOMEM; }
    for (uint64_t i = 0; i < d->novf; i++) v[i].idx = (uint32_t)i;
    sort_level(ddd_ovf_rec, d, v, d->novf, 0);
    for (uint64_t i = 0; i < d->novf; i++) d->oorder[i] = v[i].idx;
    free(v);
    d->oat = 0;
    if (d->novf) ddd_ovf_rec(d, d->oorder[0], d->orec);
    return 0;
}

int fc_ddd_sort_p64(fc_ddd *d) {
    if (d->status != FC_DONE || d->phase == PH_P64) return FC_ERANGE;
    /* in keep mode the layer files and the state stay (the folder's owner removes them when the certificate is
       written: a sort cut short is done again from the state); else each file goes once read */
    /* the buffer in two: a chunk of `half` keys, then their sort index (half skey_t's after them: half keys of
       24 bytes and half entries of 16 take at most the buffer's cap * 24 bytes; 24 * half is a multiple of 8,
       skey_t's alignment) */
    uint64_t half = d->cap * sizeof(dkey_t) / (sizeof(dkey_t) + sizeof(skey_t)), n = 0;
    skey_t *v = (skey_t *)(void *)((uint8_t *)d->buf + half * sizeof(dkey_t));
    fref f[DDD_MAXF + 2];
    if (!half || half > 0xFFFFFFFFull || !d->buf) return FC_ERANGE;
    uint64_t nf = ddd_visited(d, d->nlayers, f);
    for (uint64_t t = 0; t < nf; t++) {
        char path[4200];
        kreader r;
        memset(&r, 0, sizeof r);
        if (ddd_path(d, f[t], path)) return ddd_fail(d, ENAMETOOLONG);
        uint8_t h[DDD_FHEAD];
        if (kr_open(&r, path, 0, ddd_head(d, f[t], h))) { int no = r.err; kr_close(&r); return ddd_fail(d, no); }
        const dkey_t *k;
        while ((k = kr_peek(&r))) {
            d->buf[n++] = *k;
            r.at++;
            if (n == half) {
                int e = ddd_flush_p64(d, n, v);
                if (e) { kr_close(&r); return e; }
                n = 0;
            }
        }
        int no = r.err;
        kr_close(&r);
        if (no) return ddd_fail(d, no);
        if (!d->keep) ddd_remove(d, f[t]);
    }
    int e = n ? ddd_flush_p64(d, n, v) : 0;
    if (e) return e;
    if ((e = ddd_ovf_sort(d))) return d->status = e;
    uint64_t ns = d->nsorted - d->sfirst;
    for (uint64_t i = 0; i < ns; i++) f[i] = FR(FK_SORTED, d->sfirst + i);
    if ((e = km_open(d, &d->sorted, f, ns, &d->c, NULL, 0))) return e;
    d->phase = PH_P64;
    return 0;
}

uint64_t fc_ddd_next_p64(fc_ddd *d, uint8_t *out, uint64_t cap) {
    uint64_t n = 0;
    if (d->phase != PH_P64) return 0;
    while (n < cap && (d->sorted.hn || d->oat < d->novf)) {   /* the two sets are disjoint */
        const uint8_t *rec = d->sorted.hn ? d->sorted.r[d->sorted.heap[0]].rec : NULL;
        if (d->oat < d->novf && (!rec || memcmp(d->orec, rec, FC_P64_SIZE) < 0)) {
            memcpy(out + n * FC_P64_SIZE, d->orec, FC_P64_SIZE);
            n++;
            if (++d->oat < d->novf) ddd_ovf_rec(d, d->oorder[d->oat], d->orec);
            continue;
        }
        memcpy(out + n * FC_P64_SIZE, rec, FC_P64_SIZE);
        n++;
        int e = km_pop(&d->sorted);
        if (e) { ddd_fail(d, e); return n; }
    }
    return n;
}

int64_t fc_ddd_file_write(const char *path, int recs, const uint8_t *data, uint64_t n, int *sys_errno) {
    int e = 0;
    uint64_t bytes = 0;
    uint8_t h[DDD_FHEAD];
    kwriter *w = kw_open(path, recs != 0, ddd_fhead(0, FR(recs ? FK_SORTED : FK_LAYER, 0), h), &e);
    if (!w) { *sys_errno = e; return FC_EIO; }
    for (uint64_t i = 0; i < n && !e; i++) {
        if (recs) { e = kw_put_rec(w, data + i * FC_P64_SIZE); continue; }
        dkey_t k;
        memcpy(&k, data + i * sizeof k, sizeof k);
        e = kw_put(w, &k);
    }
    int ce = kw_close(w, &bytes);
    if (e || ce) { *sys_errno = e ? e : ce; return FC_EIO; }
    *sys_errno = 0;
    return (int64_t)bytes;
}

int64_t fc_ddd_file_read(const char *path, int recs, uint8_t *out, uint64_t cap, int *sys_errno) {
    kreader r;
    uint64_t n = 0;
    size_t size = recs ? FC_P64_SIZE : sizeof(dkey_t);   /* 24 bytes a key: lo, mid, hi */
    uint8_t h[DDD_FHEAD];
    int e = kr_open(&r, path, recs != 0, ddd_fhead(0, FR(recs ? FK_SORTED : FK_LAYER, 0), h));
    if (e) { *sys_errno = r.err; kr_close(&r); return e; }
    for (; kr_more(&r); r.at++, n++)
        if (n < cap) memcpy(out + n * size, recs ? (const void *)r.rec : (const void *)&r.buf[r.at], size);
    int err = r.err;
    kr_close(&r);
    *sys_errno = err;
    return err ? FC_EIO : (int64_t)n;
}
