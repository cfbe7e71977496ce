/* fccheck: the independent fast checker of freecell-proof certificates (format versions 2 and 3).

   It decides the three fence conditions of lean/FreeCell/Cert.lean's `checkCert`:
     1. the start position is in the set;
     2. every successor (Spec.lean's `moves`) of every member is in the set;
     3. no member is won.
   A certificate up to column order (header rules "column_order": true) is checked with every position put
   into the checkers' column order first (column_order below, the twin of certgen/columns.py's `canon` and
   CertUpTo.v's: columns sorted by their bottom card, empty columns last): the start in that order is a
   member, every member is stored in that order (else: invalid, "column-order"), none is won, and every
   successor in that order is a member (Columns.v's unwinnable_of_fence_up_to_column_order). With safe
   automatic moves beside it (header rules "autoplay": "safe") every position looked up, the start and each
   successor, is first taken after its safe automatic moves (autoplay below, the twin of certgen/autoplay.py
   and CertAuto.v's: while a card on top of a column or in a free cell may go home by Autoplay.v's rule
   `lowSafe`, the first such one goes home), and every member must be after them (else: invalid, "autoplay"):
   CertAuto.v's checkCertAuto, Autoplay.v's unwinnable_of_safe_autoplay_fence_up_to_column_order.
   It shares no source with the search core (the C files of solver/, fc.h): the certificate reader (msgpack, SHA-256,
   zlib inflation), the P64 decoding and `moves` are written here from docs/CERTIFICATE.md and
   lean/FreeCell/Spec.lean. The file is mapped, not read into memory, and its body inflated a piece at a
   time into the records held compactly: sorted, they are front-coded in blocks (about 11-15 bytes a
   position instead of 64), and membership is a binary search among the blocks' first records, then one
   block decoded (a cache keeps the blocks decoded last); or, for a certificate of at most N positions with
   --index-states N, a look-up in a hash index of the records' places (10 bytes a position more), the
   record found there decoded and compared whole.

   usage: fccheck [--json [--records-sha256]] [--progress] [--index-states N] CERT
                                                    check a certificate
          fccheck --successors [--cells K] [--foundation-return]
                                                    P64 records on stdin; for each, a 2-byte little-endian
                                                    count then its successors (P64, in Spec.lean's order)
          fccheck --deal N                          the P64 record of msDeal N on stdout
          fccheck --column-order                    P64 records on stdin, each in the checkers' column order
                                                    on stdout
          fccheck --autoplay                        P64 records on stdin, each after its safe automatic moves
                                                    on stdout
   Exit status: 0 valid, 1 invalid (one line naming the first failure), 2 a damaged or unreadable file,
   or bad arguments (one line `error: …` on stderr). */
#define _POSIX_C_SOURCE 200112L /* clock_gettime, mmap, sysconf */
#define _DEFAULT_SOURCE         /* madvise, where there is one */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <time.h>
#ifndef FCCHECK_LIBRARY
#include <zlib.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

#define P64 64
#define MAXMOVES 192 /* successors of a position: at most 8 columns x 10 + 8 cells x 9 + 4 foundations x 8 */

#ifndef FCCHECK_LIBRARY /* the certificate reader; the library (replay below) needs none of it */
/* ---- errors: one line, exit 2 -------------------------------------------------------------------- */

static const char *g_name = "certificate";

static void die(const char *fmt, ...) {
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "error: %s: ", g_name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(2);
}

/* ---- SHA-256 (FIPS 180-4) ------------------------------------------------------------------------ */

typedef struct { uint32_t h[8]; uint64_t len; unsigned char buf[64]; size_t n; } Sha;

static const uint32_t K256[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

#define ROR(x, k) (((x) >> (k)) | ((x) << (32 - (k))))

static void sha_block(Sha *s, const unsigned char *p) {
    uint32_t w[64], a, b, c, d, e, f, g, h;
    int i;
    for (i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (i = 16; i < 64; i++) {
        uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    a = s->h[0]; b = s->h[1]; c = s->h[2]; d = s->h[3]; e = s->h[4]; f = s->h[5]; g = s->h[6]; h = s->h[7];
    for (i = 0; i < 64; i++) {
        uint32_t t1 = h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K256[i] + w[i];
        uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
    }
    s->h[0] += a; s->h[1] += b; s->h[2] += c; s->h[3] += d; s->h[4] += e; s->h[5] += f; s->h[6] += g; s->h[7] += h;
}

static void sha_init(Sha *s) {
    static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, h0, sizeof h0);
    s->len = 0;
    s->n = 0;
}

static void sha_update(Sha *s, const unsigned char *p, size_t n) {
    s->len += n;
    if (s->n) {
        while (n && s->n < 64) { s->buf[s->n++] = *p++; n--; }
        if (s->n < 64) return;
        sha_block(s, s->buf);
        s->n = 0;
    }
    for (; n >= 64; p += 64, n -= 64) sha_block(s, p);
    memcpy(s->buf, p, n);
    s->n = n;
}

static void sha_hex(Sha *s, char out[65]) {
    uint64_t bits = s->len * 8;
    unsigned char pad = 0x80, zero = 0, lenb[8];
    int i;
    sha_update(s, &pad, 1);
    while (s->n != 56) sha_update(s, &zero, 1);
    for (i = 0; i < 8; i++) lenb[i] = (unsigned char)(bits >> (56 - 8 * i));
    sha_update(s, lenb, 8);
    for (i = 0; i < 32; i++) sprintf(out + 2 * i, "%02x", (unsigned)(s->h[i / 4] >> (24 - 8 * (i % 4))) & 0xff);
}

/* ---- a minimal msgpack reader --------------------------------------------------------------------- */

enum { M_NIL, M_BOOL, M_INT, M_STR, M_BIN, M_MAP, M_ARR, M_OTHER };

typedef struct { const unsigned char *p, *end; } Rd;
typedef struct {
    int type;
    int big;                  /* M_INT above INT64_MAX */
    int64_t i;                /* M_INT, M_BOOL */
    const unsigned char *ptr; /* M_STR, M_BIN: the bytes */
    uint64_t len;             /* M_STR, M_BIN: bytes; M_MAP: pairs; M_ARR: items */
} Val;

static uint64_t be(const unsigned char *p, int n) {
    uint64_t v = 0;
    while (n--) v = v << 8 | *p++;
    return v;
}

/* Read one value's head (and a string's or bin's bytes). 0 on truncation or an unused byte (0xc1). */
static int mp_read(Rd *r, Val *v) {
    unsigned b;
    int n = 0;
    uint64_t len = 0;
    memset(v, 0, sizeof *v);
    if (r->p >= r->end) return 0;
    b = *r->p++;
#define NEED(k) do { if ((uint64_t)(r->end - r->p) < (uint64_t)(k)) return 0; } while (0)
    if (b <= 0x7f) { v->type = M_INT; v->i = b; return 1; }
    if (b >= 0xe0) { v->type = M_INT; v->i = (int64_t)b - 256; return 1; }
    if ((b & 0xf0) == 0x80) { v->type = M_MAP; v->len = b & 0x0f; return 1; }
    if ((b & 0xf0) == 0x90) { v->type = M_ARR; v->len = b & 0x0f; return 1; }
    if ((b & 0xe0) == 0xa0) { v->type = M_STR; len = b & 0x1f; goto bytes; }
    switch (b) {
    case 0xc0: v->type = M_NIL; return 1;
    case 0xc2: case 0xc3: v->type = M_BOOL; v->i = b == 0xc3; return 1;
    case 0xc4: case 0xc5: case 0xc6:
        v->type = M_BIN; n = 1 << (b - 0xc4); NEED(n); len = be(r->p, n); r->p += n; goto bytes;
    case 0xd9: case 0xda: case 0xdb:
        v->type = M_STR; n = 1 << (b - 0xd9); NEED(n); len = be(r->p, n); r->p += n; goto bytes;
    case 0xcc: case 0xcd: case 0xce: case 0xcf: {
        uint64_t u;
        n = 1 << (b - 0xcc); NEED(n); u = be(r->p, n); r->p += n;
        v->type = M_INT; v->big = u > (uint64_t)INT64_MAX; v->i = (int64_t)(u & (uint64_t)INT64_MAX);
        return 1;
    }
    case 0xd0: case 0xd1: case 0xd2: case 0xd3: {
        uint64_t u;
        n = 1 << (b - 0xd0); NEED(n); u = be(r->p, n); r->p += n;
        if (n < 8 && (u >> (8 * n - 1))) u |= ~(uint64_t)0 << (8 * n); /* sign-extend */
        v->type = M_INT; v->i = (int64_t)u;
        return 1;
    }
    case 0xca: NEED(4); r->p += 4; v->type = M_OTHER; return 1;
    case 0xcb: NEED(8); r->p += 8; v->type = M_OTHER; return 1;
    case 0xdc: case 0xdd:
        n = b == 0xdc ? 2 : 4; NEED(n); v->type = M_ARR; v->len = be(r->p, n); r->p += n; return 1;
    case 0xde: case 0xdf:
        n = b == 0xde ? 2 : 4; NEED(n); v->type = M_MAP; v->len = be(r->p, n); r->p += n; return 1;
    case 0xd4: case 0xd5: case 0xd6: case 0xd7: case 0xd8: /* fixext 1..16 */
        len = 1 + ((uint64_t)1 << (b - 0xd4)); v->type = M_OTHER; goto bytes;
    case 0xc7: case 0xc8: case 0xc9: /* ext 8/16/32 */
        n = 1 << (b - 0xc7); NEED(n); len = be(r->p, n) + 1; r->p += n; v->type = M_OTHER; goto bytes;
    default: return 0; /* 0xc1: never used */
    }
bytes:
    NEED(len);
    v->ptr = r->p;
    v->len = len;
    r->p += len;
    return 1;
#undef NEED
}

static int is_str(const Val *v, const char *s) {
    return v->type == M_STR && v->len == strlen(s) && memcmp(v->ptr, s, v->len) == 0;
}

/* Strict UTF-8 (no overlong forms, no surrogates, at most U+10FFFF), as Python decodes msgpack strings. */
static int utf8(const unsigned char *p, uint64_t n) {
    uint64_t i = 0;
    while (i < n) {
        unsigned c = p[i], k, j, cp;
        if (c < 0x80) { i++; continue; }
        if (c < 0xc2 || c > 0xf4) return 0; /* a stray continuation byte, an overlong lead, above U+10FFFF */
        k = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : 1;
        if (n - i <= k) return 0;
        cp = c & (0x3fu >> k);
        for (j = 1; j <= k; j++) {
            if ((p[i + j] & 0xc0) != 0x80) return 0;
            cp = cp << 6 | (p[i + j] & 0x3f);
        }
        if (cp < (k == 1 ? 0x80u : k == 2 ? 0x800u : 0x10000u) || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return 0;
        i += k + 1;
    }
    return 1;
}

/* Read one whole value: its head in *v; *at: where its contents start (maps, arrays), which are skipped.
   Refuses what Python's msgpack.unpackb(raw=False) refuses: a string that is not UTF-8, a map or a list
   as a map's key. */
static int mp_value(Rd *r, Val *v, const unsigned char **at, int depth) {
    uint64_t n;
    if (depth > 1024 || !mp_read(r, v)) return 0; /* Python's msgpack nests at most 1024 deep */
    if (v->type == M_STR && !utf8(v->ptr, v->len)) return 0;
    *at = r->p;
    if (v->type != M_MAP && v->type != M_ARR) return 1;
    for (n = 0; n < (v->type == M_MAP ? 2 * v->len : v->len); n++) {
        Val inner;
        const unsigned char *skip;
        if (!mp_value(r, &inner, &skip, depth + 1)) return 0;
        if (v->type == M_MAP && n % 2 == 0 && (inner.type == M_MAP || inner.type == M_ARR)) return 0;
    }
    return 1;
}

/* A map's values for the keys names[0..n): found, the value's head, where its contents start. */
typedef struct { int found; Val v; Rd in; } Field;

/* Read the pairs of a map whose contents start at `at` (the map read whole before). A key given twice
   has its last value (as a Python dict). Returns how many keys are not among the names. */
static int fields(const unsigned char *at, const unsigned char *end, uint64_t pairs, const char *const *names,
                  int n, Field *out) {
    Rd r = {at, end};
    uint64_t i;
    int k, other = 0;
    for (k = 0; k < n; k++) out[k].found = 0;
    for (i = 0; i < pairs; i++) {
        Val key, v;
        const unsigned char *in;
        mp_value(&r, &key, &in, 1);
        mp_value(&r, &v, &in, 1);
        for (k = 0; k < n && !is_str(&key, names[k]); k++) continue;
        if (k == n || out[k].found) { other++; continue; }   /* a key met twice counts as another key */
        out[k].found = 1;
        out[k].v = v;
        out[k].in.p = in;
        out[k].in.end = end;
    }
    return other;
}

/* 1 when a string key occurs twice in the map of `pairs` pairs at `at` (or it has more than 1024 pairs):
   a decoder keeping the first value and one keeping the last would read two different maps. */
static int key_twice(const unsigned char *at, const unsigned char *end, uint64_t pairs) {
    Rd r = {at, end};
    Val keys[1024], v;
    const unsigned char *in;
    uint64_t i, j;
    if (pairs > 1024) return 1;
    for (i = 0; i < pairs; i++) {
        mp_value(&r, &keys[i], &in, 1);
        mp_value(&r, &v, &in, 1);
        for (j = 0; j < i && keys[i].type == M_STR; j++)
            if (keys[j].type == M_STR && keys[j].len == keys[i].len && !memcmp(keys[j].ptr, keys[i].ptr, keys[i].len))
                return 1;
    }
    return 0;
}

/* A scalar as Python's repr would show it (for messages that name a bad header value). */
static const char *repr(const Val *v, char *buf, size_t size) {
    switch (v->type) {
    case M_NIL: return "None";
    case M_BOOL: return v->i ? "True" : "False";
    case M_INT:
        if (v->big) return "a number above 2**63";
        snprintf(buf, size, "%lld", (long long)v->i);
        return buf;
    case M_STR: { /* quoted, control characters escaped (never a second line), at most 40 bytes shown */
        size_t i, o = 1;
        buf[0] = '\'';
        for (i = 0; i < v->len && i < 40 && o + 6 < size; i++) {
            unsigned char c = v->ptr[i];
            if (c == '\\' || c == '\'') o += (size_t)sprintf(buf + o, "\\%c", c);
            else if (c < 0x20 || c == 0x7f) o += (size_t)sprintf(buf + o, c == '\n' ? "\\n" : "\\x%02x", c);
            else buf[o++] = (char)c;
        }
        snprintf(buf + o, size - o, "%s'", i < v->len ? "..." : "");
        return buf;
    }
    case M_BIN: return "bytes";
    case M_MAP: return "a map";
    case M_ARR: return "a list";
    default: return "a value of another type";
    }
}

#endif

/* ---- cards and P64 records (docs/CERTIFICATE.md) --------------------------------------------------- */
/* A card is its P64 byte b = key + 1, 1..52, where key = (rank - 1) * 4 + suit. A record lists columns
   0..7, each bottom card first and ended by a 0 byte, then the free cells in ascending order, then zeros.
   Foundation heights are not stored: a suit's height is 13 minus its cards in the columns and cells. */

#define RANK(b) (((b) - 1) / 4 + 1)
#define SUIT(b) (((b) - 1) % 4)

/* A position: its record and where things are in it. */
typedef struct {
    unsigned char rec[P64];
    int end[8];  /* column c is rec[c ? end[c-1] + 1 : 0 .. end[c]), bottom to top; rec[end[c]] == 0 */
    int top[8];  /* column c's top card, 0 when it is empty */
    uint64_t empty, tops; /* bit c: column c is empty; bit b: card b is a column's top card */
    unsigned char col_of[64]; /* the column of each top card (valid for the bits of tops) */
    int cell0;   /* the free cells are rec[cell0 .. cell0 + ncell), ascending */
    int ncell;
    int home[4]; /* foundation height per suit */
} Pos;

#if defined(__GNUC__)
#define CTZ(x) __builtin_ctzll(x)
#define POPCOUNT(x) __builtin_popcountll(x)
#else
static int CTZ(uint64_t x) { int n = 0; for (; !(x & 1); x >>= 1) n++; return n; }
static int POPCOUNT(uint64_t x) { int n = 0; for (; x; x &= x - 1) n++; return n; }
#endif

static inline uint64_t le64(const unsigned char *p) {
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
           (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}

#define ONES 0x0101010101010101ull
#define LOW7 0x7f7f7f7f7f7f7f7full
#define BYTES(v) ((int)(((v) * ONES) >> 56)) /* the sum of the bytes of v, each 0 or 1 */

/* One pass over a record, eight bytes at a time: the 0 bytes (bit i set when rec[i] == 0) and the
   cards of each suit. In a word x, 0x80 marks each 0 byte exactly in ~(((x & LOW7) + LOW7) | x | LOW7),
   and a multiplication gathers the eight marks into one byte. Card b is of suit (b + 3) & 3, two bits
   whose planes are counted (a 0 byte counts as suit 3 and is taken off). */
static inline uint64_t zero_marks(uint64_t x) { return ~(((x & LOW7) + LOW7) | x | LOW7) >> 7; }

static uint64_t scan(const unsigned char *rec, int count[4]) {
    uint64_t zeros = 0;
    int w, n0 = 0, n1 = 0, n2 = 0, n3 = 0, nz = 0;
    for (w = 0; w < 8; w++) {
        uint64_t x = le64(rec + 8 * w), z = zero_marks(x);
        uint64_t suit = (x + 3 * ONES) & (3 * ONES), lo = suit & ONES, hi = suit >> 1 & ONES;
        zeros |= (z * 0x0102040810204080ull >> 56) << (8 * w);
        nz += BYTES(z);
        n1 += BYTES(lo & ~hi);
        n2 += BYTES(hi & ~lo);
        n3 += BYTES(lo & hi);
    }
    n3 -= nz;
    n0 = P64 - nz - n1 - n2 - n3;
    count[0] = n0; count[1] = n1; count[2] = n2; count[3] = n3;
    return zeros;
}

/* The 0 bytes of a record (bit i set when rec[i] == 0), as scan finds them. */
static inline uint64_t zero_bytes(const unsigned char *rec) {
    uint64_t zeros = 0;
    int w;
    for (w = 0; w < 8; w++) zeros |= (zero_marks(le64(rec + 8 * w)) * 0x0102040810204080ull >> 56) << (8 * w);
    return zeros;
}

/* The layout of a record already known to be a position (see parse). */
static void layout(const unsigned char *rec, Pos *s) {
    int c, count[4];
    uint64_t zeros = scan(rec, count), after;
    memcpy(s->rec, rec, P64);
    s->empty = s->tops = 0;
    for (c = 0; c < 8; c++, zeros &= zeros - 1) { /* the first eight 0 bytes end the columns */
        s->end[c] = CTZ(zeros);
        s->top[c] = s->end[c] > (c ? s->end[c - 1] + 1 : 0) ? rec[s->end[c] - 1] : 0;
        s->empty |= (uint64_t)(s->top[c] == 0) << c;
        s->tops |= (uint64_t)(s->top[c] != 0) << (s->top[c] & 63); /* & 63: parse calls this before it */
        s->col_of[s->top[c] & 63] = (unsigned char)c;                /* has refused bytes above 52 */
    }
    s->cell0 = s->end[7] + 1; /* zeros now holds the 0 bytes after the columns */
    after = s->cell0 < P64 ? ~zeros >> s->cell0 : 0;
    s->ncell = CTZ(~after);
    for (c = 0; c < 4; c++) s->home[c] = 13 - count[c];
}

/* Read a record into `s`. Returns NULL when it is a position, else what is wrong, in the words and the
   order of solver/packed.py's validator: 8 column ends; the free cells (the bytes after the eighth end)
   without a gap, zeros after them; every other byte a card 1..52, no card twice; at most 8 free cells,
   in ascending order; the cards not in play the lowest of their suits (the foundations hold them, the
   heights being derived from the cards in play). */
static const char *parse(const unsigned char *rec, Pos *s) {
    const uint64_t below_kings = ((uint64_t)1 << 49) - 2; /* bits 1..48: the cards of rank 1..12 */
    uint64_t seen = 0, over = 0;
    int i, zeros = 0;
    for (i = 0; i < P64; i++) zeros += rec[i] == 0;
    if (zeros < 8) return "fewer than 8 column ends";
    layout(rec, s);
    if (s->cell0 - 8 + s->ncell != P64 - zeros) return "a gap in the free cells"; /* a byte after them */
    for (i = 0; i < P64; i += 8) /* a byte above 52: 0x80 set in (b & 0x7f) + (0x80 - 53), or in b */
        over |= ((le64(rec + i) & LOW7) + (0x80 - 53) * ONES) | le64(rec + i);
    if (over & 0x8080808080808080ull) return "a byte that is no card, or a card twice";
    for (i = 0; i < P64; i++) seen |= (uint64_t)1 << rec[i];
    seen &= ~(uint64_t)1;
    if (POPCOUNT(seen) != P64 - zeros) return "a byte that is no card, or a card twice";
    if (s->ncell > 8) return "more than 8 free cells, or free cells out of order";
    for (i = s->cell0 + 1; i < s->cell0 + s->ncell; i++)
        if (rec[i - 1] >= rec[i]) return "more than 8 free cells, or free cells out of order";
    if ((seen & below_kings) << 4 & ~seen) /* card b in play, b + 4 (one rank higher) home */
        return "a card in play above a card of its suit on the foundation";
    return NULL;
}

/* The record of `s` after taking the byte at index `a` out (a < 0: nothing taken out; the card comes
   from its foundation) and putting `card` in before the byte at index `b` (b < 0: nowhere; the card
   goes to its foundation). Indices are those of s->rec; at most 60 of the 64 bytes are ever used, so
   the last byte is a 0 that may be dropped. */
static inline void patch(const Pos *s, int a, int b, int card, unsigned char *out) {
    const unsigned char *r = s->rec;
    int i;
    memcpy(out, r, P64);
    if (b < 0) { for (i = a; i < P64 - 1; i++) out[i] = r[i + 1]; out[P64 - 1] = 0; }
    else if (a < 0 || b <= a) { for (i = a < 0 ? P64 - 1 : a; i > b; i--) out[i] = r[i - 1]; out[b] = (unsigned char)card; }
    else { for (i = a; i < b - 1; i++) out[i] = r[i + 1]; out[b - 1] = (unsigned char)card; }
}

/* ---- the rules, from lean/FreeCell/Spec.lean --------------------------------------------------------- */

typedef struct { int cells; int foundation_return; int column_order; int autoplay; } Rules; /* autoplay: safe */

/* canStack c parent: one rank lower and the other colour. Read the other way: the k-th (k = 0, 1) card
   that c may go onto is one rank higher, of the first or the second suit of the other colour (clubs 0
   and spades 3 are black, diamonds 1 and hearts 2 red); none above a king. */
static inline int stacks_on(int c, int k) {
    static const int other[4][2] = {{1, 2}, {0, 3}, {0, 3}, {1, 2}};
    return RANK(c) == 13 ? 0 : RANK(c) * 4 + other[SUIT(c)][k] + 1;
}

/* canHome home c: the next card of its suit. */
static int can_home(const int home[4], int c) { return home[SUIT(c)] + 1 == RANK(c); }

/* toCols s c src: `card` taken off at index `a` (from column `src`; src -1: from a free cell or, with
   a -1, from a foundation), put onto each column j = 0..7, j != src, that is empty or whose top card it
   stacks on: it goes in before that column's terminator. Each successor's uncovered card is `up` (see
   moves); `emptied`: the card was alone in its column. */
static int to_cols(const Pos *s, int card, int a, int src, int up, int emptied, unsigned char *out,
                   unsigned char *uncovered, unsigned char *bottoms) {
    uint64_t targets = s->empty; /* bit j: column j */
    int k, n = 0;
    for (k = 0; k < 2; k++) {
        int p = stacks_on(card, k);
        if (p && (s->tops >> p & 1)) targets |= (uint64_t)1 << s->col_of[p];
    }
    if (src >= 0) targets &= ~((uint64_t)1 << src);
    for (; targets; targets &= targets - 1) {
        uncovered[n] = (unsigned char)up;
        bottoms[n] = (unsigned char)(emptied || (s->empty >> CTZ(targets) & 1));
        patch(s, a, s->end[CTZ(targets)], card, out + P64 * n++);
    }
    return n;
}

/* moves r s: every position one legal single-card move away from `s`, in Spec.lean's order: for each
   card that can be taken off (the top card of columns 0..7, then each free cell's card), to its
   foundation, onto the columns, then (from a column only) into a free cell; then, when the rules allow
   it, each foundation's top card back onto the columns. Returns the count; out has room for MAXMOVES.
   uncovered[k]: what the k-th move changes of the cards that may go home (for autoplay_after): the card it
   uncovers in a column (the one below the card taken off), 0 when none, HOME_CHANGED when a foundation
   changes (a card home, or one back from a foundation). bottoms[k]: 1 when the k-th move empties a column
   or puts a card into an empty one, the only moves that change a column's bottom card (the key of the
   checkers' column order: check). */
#define HOME_CHANGED 255
static int moves(const Rules *r, const Pos *s, unsigned char *out, unsigned char *uncovered, unsigned char *bottoms) {
    int n = 0, i, k;
    for (i = 0; i < 8; i++) { /* fromCols */
        int a = s->end[i] - 1, card = s->top[i], below, k2, up, emptied;
        if (card == 0) continue;
        emptied = a == (i ? s->end[i - 1] + 1 : 0);
        up = emptied ? 0 : s->rec[a - 1];
        if (can_home(s->home, card)) {
            uncovered[n] = HOME_CHANGED;
            bottoms[n] = (unsigned char)emptied;
            patch(s, a, -1, card, out + P64 * n++);
        }
        n += to_cols(s, card, a, i, up, emptied, out + P64 * n, uncovered + n, bottoms + n);
        if (s->ncell < r->cells) { /* into the free cells, kept sorted */
            for (below = 0, k2 = 0; k2 < s->ncell; k2++) below += s->rec[s->cell0 + k2] < card;
            uncovered[n] = (unsigned char)up;
            bottoms[n] = (unsigned char)emptied;
            patch(s, a, s->cell0 + below, card, out + P64 * n++);
        }
    }
    for (k = 0; k < s->ncell; k++) { /* fromCells */
        int a = s->cell0 + k, card = s->rec[a];
        if (can_home(s->home, card)) { uncovered[n] = HOME_CHANGED; bottoms[n] = 0; patch(s, a, -1, card, out + P64 * n++); }
        n += to_cols(s, card, a, -1, 0, 0, out + P64 * n, uncovered + n, bottoms + n);
    }
    if (r->foundation_return) /* a foundation's top card back onto a column */
        for (k = 0; k < 4; k++)
            if (s->home[k] != 0)
                n += to_cols(s, (s->home[k] - 1) * 4 + k + 1, -1, -1, HOME_CHANGED, 0, out + P64 * n, uncovered + n,
                             bottoms + n);
    return n;
}

/* The checkers' column order (certgen/columns.py's canon, CertUpTo.v's): the record of `rec` (a position)
   with its columns sorted by the key of their bottom card (the column's first byte), an empty column's key
   53, after every card; the free cells untouched. Written as CertUpTo.v's sortCols, fold_right insertCol:
   the columns taken from the last to the first, each put before the first column already placed whose key
   is not below its own. `out` may be `rec`. */
static void column_order(const unsigned char *rec, unsigned char *out) {
    int start[8], len[8], key[8], placed[8], n = 0, c, i, at = 0, o = 0, sorted = 1;
    uint64_t zeros = zero_bytes(rec); /* a position: its first eight 0 bytes end the columns */
    for (c = 0; c < 8; c++, zeros &= zeros - 1) {
        start[c] = at;
        at = CTZ(zeros);
        len[c] = at - start[c];
        key[c] = len[c] ? rec[start[c]] : 53;
        sorted &= c == 0 || key[c - 1] <= key[c];
        at++;
    }
    if (sorted) { /* every column already placed after those before it: the record as it is */
        if (out != rec) memcpy(out, rec, P64);
        return;
    }
    if (out == rec) { /* in place: made in a copy */
        unsigned char copy[P64];
        memcpy(copy, rec, P64);
        column_order(copy, out);
        return;
    }
    for (c = 7; c >= 0; c--, n++) { /* insertCol column c into placed[0 .. n) */
        for (i = 0; i < n && key[c] > key[placed[i]]; i++) continue;
        memmove(placed + i + 1, placed + i, (size_t)(n - i) * sizeof *placed);
        placed[i] = c;
    }
    for (i = 0; i < 8; i++) {
        memcpy(out + o, rec + start[placed[i]], (size_t)len[placed[i]]);
        o += len[placed[i]];
        out[o++] = 0;
    }
    memcpy(out + o, rec + at, (size_t)(P64 - at)); /* o == at: the same bytes, moved */
}

/* The safe automatic moves (Autoplay.v's lowSafe, homeBy; CertAuto.v's autoStep and autoplay; certgen/autoplay.py):
   card c may go home when it is the next of its suit and its rank is at most 2, or both foundations of the
   other colour (o1, o2) reach rank - 1, or both reach rank - 2 and the other suit of its colour (3 - suit)
   reaches rank - 3 (a rank below 3 makes these 0, as Coq's subtraction on naturals). */
static int home_safe(const int home[4], int c) {
    int r, s, red, h1, h2, r1, r2, r3;
    if (!can_home(home, c)) return 0;
    r = RANK(c), s = SUIT(c), red = s == 1 || s == 2, h1 = home[red ? 0 : 1], h2 = home[red ? 3 : 2];
    r1 = r - 1, r2 = r > 2 ? r - 2 : 0, r3 = r > 3 ? r - 3 : 0;
    return r <= 2 || (r1 <= h1 && r1 <= h2) || (r2 <= h1 && r2 <= h2 && r3 <= home[3 - s]);
}

/* The index in s->rec of the card one safe automatic move sends home: the top card of the first column
   (0..7) that may go, else the first free cell's card that may; -1 when none may (`settled`). */
static int auto_card(const Pos *s) {
    int i;
    for (i = 0; i < 8; i++)
        if (s->top[i] && home_safe(s->home, s->top[i])) return s->end[i] - 1;
    for (i = 0; i < s->ncell; i++)
        if (home_safe(s->home, s->rec[s->cell0 + i])) return s->cell0 + i;
    return -1;
}

/* The record of `rec` (a position) after its safe automatic moves: one card at a time, at most 52. `out` may
   be `rec`. */
static void autoplay(const unsigned char *rec, unsigned char *out) {
    Pos s;
    int n, a;
    layout(rec, &s);
    for (n = 0; n < 52 && (a = auto_card(&s)) >= 0; n++) {
        patch(&s, a, -1, s.rec[a], out);
        layout(out, &s);
    }
    memcpy(out, s.rec, P64);
}

/* A successor `rec` of the member `s`, by a move that uncovered `up` (moves), taken after its safe automatic
   moves in place. The member is settled (none of its cards may go home by the safe rule: the check refuses
   it before its moves are made). When the move leaves the foundations alone, the cards that may go home in
   the successor (column tops and free cells) are the member's, none of which may go (the foundations being
   the same), and the card the move uncovered: when that one may not go either, the successor is settled,
   itself after its automatic moves. Else it is taken through autoplay. Returns 1 when it was. */
static int autoplay_after(const Pos *s, int up, unsigned char *rec) {
    if (up == HOME_CHANGED || (up && home_safe(s->home, up))) { autoplay(rec, rec); return 1; }
    return 0;
}

/* won: every foundation up to the king. */
static int won(const Pos *s) { return s->home[0] == 13 && s->home[1] == 13 && s->home[2] == 13 && s->home[3] == 13; }

/* msDeal game: MSVC rand() draws from a fresh deck (A♣ A♦ A♥ A♠ 2♣ …), the drawn card's hole is filled
   with the last card; card t of the order goes to column t % 8, later cards on top. Games 2^31 … 2^33 - 1
   are FreeCell Pro's (Spec.lean's dealFromPro): the seed is game mod 2^32 and runs mod 2^32, the draw is
   seed / 2^16 mod 2^15 + 2^15 below 2^32, seed / 2^16 mod 2^16 + 1 above. */
static void ms_deal(uint64_t game, unsigned char *out) {
    unsigned char deck[52], order[52];
    uint64_t seed = game < 2147483648u ? game : game % 4294967296u;
    int n, t, c, i = 0;
    for (n = 0; n < 52; n++) deck[n] = (unsigned char)(n + 1);
    for (n = 52, t = 0; n > 0; n--, t++) {
        int j;
        if (game < 2147483648u) {
            seed = (seed * 214013 + 2531011) % 2147483648u;
            j = (int)((seed / 65536) % (uint64_t)n);
        } else {
            seed = (seed * 214013 + 2531011) % 4294967296u;
            j = (int)((game < 4294967296u ? seed / 65536 % 32768 + 32768 : seed / 65536 % 65536 + 1) % (uint64_t)n);
        }
        order[t] = deck[j];
        deck[j] = deck[n - 1];
    }
    for (c = 0; c < 8; c++) {
        for (t = c; t < 52; t += 8) out[i++] = order[t];
        out[i++] = 0;
    }
    memset(out + i, 0, (size_t)(P64 - i));
}

#ifndef FCCHECK_LIBRARY
/* A position in words, as certgen/checker.py's describe writes it (any 64 bytes: a successor need not
   be a canonical record). */
static void describe(const unsigned char *rec, char *buf) {
    static const char ranks[] = "A23456789TJQK", suits[] = "CDHS";
    int i = 0, c, first, home[4] = {13, 13, 13, 13};
    char *p = buf + sprintf(buf, "[cols: ");
    for (c = 0; c < 8; c++, i++) {
        if (c) p += sprintf(p, " / ");
        for (first = 1; i < P64 && rec[i]; i++, first = 0)
            if (rec[i] <= 52) { p += sprintf(p, "%s%c%c", first ? "" : " ", ranks[RANK(rec[i]) - 1], suits[SUIT(rec[i])]); home[SUIT(rec[i])]--; }
        if (first) *p++ = '-';
    }
    p += sprintf(p, " | cells: ");
    for (first = 1; i < P64; i++)
        if (rec[i] && rec[i] <= 52) { p += sprintf(p, "%s%c%c", first ? "" : " ", ranks[RANK(rec[i]) - 1], suits[SUIT(rec[i])]); home[SUIT(rec[i])]--; first = 0; }
    if (first) *p++ = '-';
    sprintf(p, " | home: %d %d %d %d]", home[0], home[1], home[2], home[3]);
}

/* ---- the records, held compactly: front coding in blocks ----------------------------------------- */
/* The records are sorted, so neighbours share long prefixes. They are held in blocks of BLOCK records:
   a block's first record whole, in `heads` (64 bytes); each other record in a stream of 6-bit units
   (every byte of a position is 0..52) as the length of the prefix it shares with the record before it
   (0..63), the number n of its bytes after that prefix up to its last non-zero byte (0..60), then those
   n bytes; the rest of the record is 0. The coding is exact: a record decoded is the record read, byte
   for byte. A block's units start at a byte, offs[b] bytes into the stream, which is held in chunks of
   CHUNK bytes (no block crosses a chunk). Membership: a binary search among the heads, then a search in
   the one block decoded; the members in order: the blocks decoded one after the other. Blocks of 32: 2.25
   bytes a position for the heads and their places, 9-13 for the stream (measured on #11982 and deal
   1474422072; blocks of 64 save 1.1 bytes a position and decode twice as much for each look-up). */
#define BLOCK 32
#define CHUNK ((size_t)1 << 24)
#define BLOCK_MAX ((size_t)(BLOCK - 1) * (2 + P64) * 6 / 8 + 2) /* bytes of the largest block, at most */
#define PAD 8 /* zero bytes after a chunk's last block: the units are read eight bytes at a time */

typedef struct {
    uint64_t n, blocks;        /* records; blocks: n / BLOCK rounded up */
    unsigned char *heads;      /* blocks x 64 bytes: the first record of each block */
    uint64_t *offs;            /* blocks: where each block's units start (chunk x CHUNK + byte in it) */
    unsigned char **chunks;    /* the stream */
    size_t nchunks, used;      /* chunks allocated; bytes used in the last */
    unsigned char prev[P64];   /* the writer: the record before, the bits not yet written */
    uint64_t acc;
    int bits;
    struct Decoded *cache;     /* blocks decoded (below) */
    uint64_t hint[P64 + 1];    /* for membership by binary searches (below) */
    uint64_t *slots, nslots;   /* the index, or none (below) */
} Store;

#define CACHED 1024
typedef struct Decoded { uint64_t b; unsigned char rec[BLOCK][P64]; } Decoded; /* block b; b = -1: none */

static void put(Store *st, unsigned v) {
    st->acc |= (uint64_t)v << st->bits;
    st->bits += 6;
    if (st->bits >= 8) {
        st->chunks[st->nchunks - 1][st->used++] = (unsigned char)st->acc;
        st->acc >>= 8;
        st->bits -= 8;
    }
}

static void flush(Store *st) {
    if (st->bits > 0) st->chunks[st->nchunks - 1][st->used++] = (unsigned char)st->acc;
    st->acc = 0;
    st->bits = 0;
}

/* Append record i (i = 0, 1, … in order; each greater than the one before and a position). */
static void store_add(Store *st, uint64_t i, const unsigned char *rec) {
    int same = 0, end = P64, k;
    if (i % BLOCK == 0) { /* a block starts: its head whole, its units at a new byte */
        if (st->nchunks) flush(st);
        if (!st->nchunks || CHUNK - st->used < BLOCK_MAX + PAD) {
            unsigned char **more = realloc(st->chunks, (st->nchunks + 1) * sizeof *more);
            if (st->nchunks) memset(st->chunks[st->nchunks - 1] + st->used, 0, CHUNK - st->used);
            if (!more || !(more[st->nchunks] = malloc(CHUNK))) die("out of memory holding %llu states", (unsigned long long)st->n);
            st->chunks = more;
            st->nchunks++;
            st->used = 0;
        }
        st->offs[i / BLOCK] = (uint64_t)(st->nchunks - 1) * CHUNK + st->used;
        memcpy(st->heads + P64 * (i / BLOCK), rec, P64);
    } else {
        while (rec[same] == st->prev[same]) same++; /* < 64: the records are distinct */
        while (end > same && rec[end - 1] == 0) end--;
        put(st, (unsigned)same);
        put(st, (unsigned)(end - same));
        for (k = same; k < end; k++) put(st, rec[k]);
    }
    memcpy(st->prev, rec, P64);
}

/* All records added: the last chunk cut to what it holds. */
static void store_done(Store *st) {
    if (st->nchunks) {
        unsigned char *last;
        flush(st);
        memset(st->chunks[st->nchunks - 1] + st->used, 0, PAD);
        if ((last = realloc(st->chunks[st->nchunks - 1], st->used + PAD)) != NULL)
            st->chunks[st->nchunks - 1] = last;
    }
}

/* Bytes held for the records and their index. */
static uint64_t store_bytes(const Store *st) {
    return st->blocks * (P64 + sizeof *st->offs) + (st->nchunks ? (st->nchunks - 1) * CHUNK + st->used : 0) +
           st->nslots * sizeof *st->slots;
}

static void store_free(Store *st) {
    size_t c;
    for (c = 0; c < st->nchunks; c++) free(st->chunks[c]);
    free(st->chunks);
    free(st->heads);
    free(st->offs);
    free(st->cache);
    free(st->slots);
}

static inline const unsigned char *block_units(const Store *st, uint64_t b) {
    return st->chunks[st->offs[b] / CHUNK] + st->offs[b] % CHUNK;
}

/* The 6-bit units of p from the i-th on, the i-th in the lowest bits (nine of them at least). */
static inline uint64_t units(const unsigned char *p, unsigned i) {
    return le64(p + 6 * i / 8) >> (6 * i % 8);
}

/* n bytes from the units of p from the i-th on. */
static inline void unpack(const unsigned char *p, unsigned i, unsigned n, unsigned char *out) {
    unsigned k, j;
    for (k = 0; k < n; k += 9) {
        uint64_t w = units(p, i + k);
        for (j = k; j < n && j < k + 9; j++, w >>= 6) out[j] = (unsigned char)(w & 63);
    }
}

/* The blocks decoded last, CACHED of them, block b in place b % CACHED: a successor's block is nearly
   always one of the few used just before (96 % among the last 64 on deal 1474422072's 2,951,466
   positions), and a block decoded is searched by halves. */
static const unsigned char (*decoded(const Store *st, uint64_t b))[P64] {
    Decoded *d = &st->cache[b % CACHED];
    if (d->b != b) {
        const unsigned char *p = block_units(st, b);
        unsigned r, u = 0, count = b + 1 == st->blocks ? (unsigned)(st->n - b * BLOCK) : BLOCK;
        memcpy(d->rec[0], st->heads + P64 * b, P64);
        for (r = 1; r < count; r++) {
            uint64_t h = units(p, u);
            unsigned same = h & 63, n = h >> 6 & 63;
            memcpy(d->rec[r], d->rec[r - 1], same);
            unpack(p, u + 2, n, d->rec[r] + same);
            memset(d->rec[r] + same + n, 0, P64 - same - n);
            u += 2 + n;
        }
        d->b = b;
    }
    return (const unsigned char (*)[P64])d->rec;
}

/* Record i (valid until the next block is decoded). */
static const unsigned char *record_at(const Store *st, uint64_t i) { return decoded(st, i / BLOCK)[i % BLOCK]; }

/* ---- membership: binary searches among the heads, side by side --------------------------------------- */

#if defined(__GNUC__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)0)
#endif

static inline uint64_t be64(const unsigned char *p) {
    return (uint64_t)p[0] << 56 | (uint64_t)p[1] << 48 | (uint64_t)p[2] << 40 | (uint64_t)p[3] << 32 |
           (uint64_t)p[4] << 24 | (uint64_t)p[5] << 16 | (uint64_t)p[6] << 8 | (uint64_t)p[7];
}

/* The first byte where records a and b differ (P64 when they are equal). */
static inline int first_difference(const unsigned char *a, const unsigned char *b) {
    int w;
    for (w = 0; w < P64; w += 8) {
        uint64_t x = le64(a + w) ^ le64(b + w);
        if (x) return w + CTZ(x) / 8;
    }
    return P64;
}

/* found[q] = is keys[q] among the records, for q < nk. Each key's block is the last whose head is not
   above it; that block is then searched (in_block). Where to look for the block first: successors that
   differ from their parents first at the same byte tend to land in the same block as the last such one
   (the hint kept per first differing byte: one look at two heads settles 60-70 % of the keys); else near
   the parent near[q] in the sorted order (the moves that leave the first columns alone keep a long common
   prefix): the key is compared with the heads WINDOW blocks either side of the parent's, and most keys
   fall between them; the others are searched among all. first[q]: the first byte where the key and its
   parent differ, found when the key was made. The searches run side by side, one level at
   a time, so that their memory reads overlap (each probe of the next level is prefetched). A search
   keeps the number of leading words the key shares with both ends of its range: every head in between
   shares them too, so they are not compared again. */
#define WINDOW 8
typedef struct { uint64_t lo, len; int lo_words, hi_words, first; } Range; /* the block is in [lo, lo + len);
                                                                               first: the hint's index */

/* The first word (0..7) where record x and the key (as 8 big-endian words) differ, from word w on;
   8 if they are equal. *less: x < key. */
static inline int diff(const unsigned char *x, const uint64_t *key, int w, int *less) {
    for (; w < 8; w++) {
        uint64_t a = be64(x + 8 * w);
        if (a != key[w]) { *less = a < key[w]; return w; }
    }
    *less = 0;
    return 8;
}

/* Is the key (as 8 big-endian words) in block b? */
static int in_block(const Store *st, uint64_t b, const uint64_t *kw) {
    const unsigned char (*rec)[P64] = decoded(st, b);
    unsigned lo = 0, len = b + 1 == st->blocks ? (unsigned)(st->n - b * BLOCK) : BLOCK;
    int less;
    while (len > 1) { /* rec[lo] <= key < rec[lo + len] */
        unsigned half = len / 2;
        if (diff(rec[lo + half], kw, 0, &less) == 8) return 1;
        if (less) { lo += half; len -= half; }
        else len = half;
    }
    return diff(rec[lo], kw, 0, &less) == 8;
}

/* Start the search for a key: 1 and its range, or 0 when it is settled already (found says how): the
   key is a head, or below every record. */
static int start_search(Store *st, uint64_t near, int first, const uint64_t *kw, Range *r, unsigned char *found) {
    const unsigned char *h = st->heads;
    uint64_t m = st->blocks, lo = 0, hi = m;
    int less, w, wl = 0, wh = 0;
    *found = 0;
    r->first = P64;
    if (near < st->n) { /* the hint's block: settled if the key lies between its head and the next */
        uint64_t b = 0;
        r->first = first;
        if (st->hint[r->first]) {
            b = st->hint[r->first] - 1;
            w = diff(h + P64 * b, kw, 0, &less);
            if (w == 8) { *found = 1; return 0; }
            if (less) { /* head b < key: is key < head b + 1? */
                int above = 1;
                if (b + 1 < m && (w = diff(h + P64 * (b + 1), kw, 0, &less)) == 8) { *found = 1; return 0; }
                if (b + 1 < m) above = !less;
                if (above) { r->lo = b; r->len = 1; return 1; }
            }
        }
    }
    if (near < st->n) { /* the heads WINDOW blocks either side of the parent's */
        uint64_t b = near / BLOCK;
        lo = b > WINDOW ? b - WINDOW : 0;
        hi = m - b > WINDOW + 1 ? b + WINDOW + 1 : m;
        w = diff(h + P64 * lo, kw, 0, &less);
        if (w == 8) { *found = 1; return 0; }
        if (!less) { hi = lo; wh = w; lo = 0; } /* before the window */
        else {
            wl = w;
            if (hi < m) {
                w = diff(h + P64 * hi, kw, 0, &less);
                if (w == 8) { *found = 1; return 0; }
                if (less) { lo = hi; wl = w; hi = m; wh = 0; } /* after the window */
                else wh = w;
            }
        }
    }
    if (lo == 0) { /* below every record? */
        if (m == 0) return 0;
        w = diff(h, kw, 0, &less);
        if (w == 8) { *found = 1; return 0; }
        if (!less) return 0;
        wl = w;
    }
    r->lo = lo; r->len = hi - lo; r->lo_words = wl; r->hi_words = wh;
    return 1;
}

static void search_members(Store *st, const unsigned char *keys, const uint64_t *near, const int *first, int nk,
                           Range *rg, uint64_t (*kw)[8], int *act, unsigned char *found) {
    int q, w, k, na = 0, nb = 0;
    for (q = 0; q < nk; q++) {
        for (w = 0; w < 8; w++) kw[q][w] = be64(keys + P64 * q + 8 * w);
        if (start_search(st, near[q], first[q], kw[q], &rg[q], &found[q])) act[na++] = q;
    }
    while (na) { /* one level of each active search; a search done leaves its key for a block scan */
        for (k = 0; k < na; k++) {
            Range *r;
            uint64_t half;
            int less;
            q = act[k];
            r = &rg[q];
            half = r->len / 2;
            if (half == 0) { /* its block: r->lo (act's end holds the keys to scan) */
                st->hint[r->first] = r->lo + 1;
                act[k--] = act[--na];
                act[nk - 1 - nb++] = q;
                continue;
            }
            w = diff(st->heads + P64 * (r->lo + half), kw[q], r->lo_words < r->hi_words ? r->lo_words : r->hi_words, &less);
            if (w == 8) { found[q] = 1; act[k--] = act[--na]; continue; }
            r->lo += less ? half : 0;
            r->len = less ? r->len - half : half;
            r->lo_words = less ? w : r->lo_words;
            r->hi_words = less ? r->hi_words : w;
            PREFETCH(st->heads + P64 * (r->lo + r->len / 2));
        }
    }
    for (k = nk - nb; k < nk; k++) found[act[k]] = (unsigned char)in_block(st, rg[act[k]].lo, kw[act[k]]);
}

/* ---- membership: a hash index of the records' places ------------------------------------------------ */
/* With --index-states N, a certificate of at most N records gets an index (10 bytes a position more):
   each record i has a slot in a table of nslots = n + n / 4 + 1 (open addressing, linear probing, from the
   slot hash % nslots): i + 1 in its low 41 bits (at most 2^40 records), the top 23 bits of its hash above
   them; 0: an empty slot. A key is a member when a record named in its probe sequence (up to the first
   empty slot) is equal to it, byte for byte, once decoded: the index only says where to look, so an answer
   "member" never rests on it (the hash and its bits are compared to skip records, never to accept one), and
   a key that is a record is found (its record was put in its probe sequence, and no slot is emptied). A
   larger certificate is searched by the binary searches above, in the memory of the records alone. */
#define SLOT_PLACE (((uint64_t)1 << 41) - 1)
#define SLOT_TAG(h) ((h) & ~SLOT_PLACE)
#define MAXKEYS 1024 /* keys hashed at once */

static inline uint64_t key_hash(const unsigned char *rec) {
#ifdef WEAK_HASH /* for the tests: every record in one probe sequence, all with the same tag */
    (void)rec;
    return ~(uint64_t)0;
#else
    uint64_t h = 0x243f6a8885a308d3ull;
    int w;
    for (w = 0; w < P64; w += 8) {
        h = (h ^ le64(rec + w)) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 32;
    }
    return h;
#endif
}

static void index_init(Store *st) {
    st->nslots = st->n + st->n / 4 + 1;
    if (st->nslots > SIZE_MAX / sizeof *st->slots || !(st->slots = calloc((size_t)st->nslots, sizeof *st->slots)))
        die("out of memory for the index of %llu states", (unsigned long long)st->n);
}

/* Records first, first + 1, …, first + count - 1 (at recs) into the index, if there is one; their slots
   fetched first. */
static void index_add(Store *st, uint64_t first, const unsigned char *recs, size_t count) {
    static uint64_t hs[MAXKEYS];
    size_t k, done;
    if (!st->slots) return;
    for (done = 0; done < count; done += k) {
        size_t n = count - done < MAXKEYS ? count - done : MAXKEYS;
        for (k = 0; k < n; k++) {
            hs[k] = key_hash(recs + P64 * (done + k));
            PREFETCH(&st->slots[hs[k] % st->nslots]);
        }
        for (k = 0; k < n; k++) {
            uint64_t at = hs[k] % st->nslots;
            while (st->slots[at]) at = at + 1 == st->nslots ? 0 : at + 1;
            st->slots[at] = (first + done + k + 1) | SLOT_TAG(hs[k]);
        }
    }
}

static void index_members(Store *st, const unsigned char *keys, int nk, unsigned char *found) {
    static uint64_t hs[MAXKEYS];
    int q;
    for (q = 0; q < nk; q++) {
        hs[q] = key_hash(keys + P64 * q);
        PREFETCH(&st->slots[hs[q] % st->nslots]);
    }
    for (q = 0; q < nk; q++) {
        uint64_t at = hs[q] % st->nslots, v;
        found[q] = 0;
        for (; (v = st->slots[at]) != 0; at = at + 1 == st->nslots ? 0 : at + 1)
            if (SLOT_TAG(v) == SLOT_TAG(hs[q]) && memcmp(record_at(st, (v & SLOT_PLACE) - 1), keys + P64 * q, P64) == 0) {
                found[q] = 1;
                break;
            }
    }
}

/* found[q] = is keys[q] among the records, for q < nk (at most MAXKEYS): through the index when there is
   one, else by the binary searches (near, first, rg, kw, act: theirs). */
static void members(Store *st, const unsigned char *keys, const uint64_t *near, const int *first, int nk, Range *rg,
                    uint64_t (*kw)[8], int *act, unsigned char *found) {
    if (st->slots) index_members(st, keys, nk, found);
    else search_members(st, keys, near, first, nk, rg, kw, act, found);
}

/* ---- the certificate file ------------------------------------------------------------------------ */

static int records_digest; /* --records-sha256: the check's --json says the records' SHA-256 */
static uint64_t index_states; /* --index-states N: the index for a certificate of at most N records */

typedef struct {
    Rules rules;
    unsigned char start[P64];
    int kind;                 /* the source: 0 "ms" (a Microsoft deal number), 1 "code", 2 "board" */
    long long deal;           /* the deal number (kind 0) */
    char code[1300], name[1300]; /* the source's deal code and board name, "" when absent */
    uint64_t states;
    Store recs;               /* the records: sorted, distinct, each a position */
    uint64_t digest;          /* of the records as read (the check compares that of the records decoded) */
    Sha records_sha;          /* SHA-256 of the records as read, one after the other (certgen/certificate.py's
                                 records_sha256), with --records-sha256 only (it costs about a tenth of a check) */
    int max_home;             /* the most cards home in any record */
} Cert;

/* A digest of records in order, one record at a time: it finds a fault in the front coding (the records
   decoded for the check against the records read), so it needs to mix, not to resist a forger: both
   sides are this program's own. */
static uint64_t digest(uint64_t h, const unsigned char *rec) {
    int w;
    for (w = 0; w < P64; w += 8) {
        h = (h ^ le64(rec + w)) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    return h;
}

/* The file's bytes. A regular file is mapped into memory, not read into it; anything else (a FIFO, a
   device) is read only up to the end of its one msgpack value, as certgen/certificate.py reads it, so
   that /dev/zero is refused at once. */
typedef struct { unsigned char *data; size_t size; int mapped; } File;

static File read_file(const char *path) {
    static unsigned char none[1];
    FILE *f = fopen(path, "rb");
    struct stat st;
    unsigned char *data = NULL;
    size_t cap = 0, n = 0, got;
    File out = {none, 0, 0};
    if (!f) { fflush(stdout); fprintf(stderr, "error: cannot read certificate %s: ", path); perror(NULL); exit(2); }
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
        if ((uint64_t)st.st_size > (uint64_t)SIZE_MAX) die("the file is too large for this machine");
        if (st.st_size > 0) {
            void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fileno(f), 0);
            if (m == MAP_FAILED) die("cannot map the file into memory");
            out.data = m;
            out.size = (size_t)st.st_size;
            out.mapped = 1;
        }
        fclose(f);
        return out;
    }
    for (;;) {
        if (n == cap) {
            unsigned char *d;
            if (cap >= ((size_t)1 << 32)) die("not a readable certificate (corrupt or truncated msgpack)");
            cap = cap ? cap * 2 : 1 << 20;
            if (!(d = realloc(data, cap))) die("out of memory reading the file");
            data = d;
        }
        got = fread(data + n, 1, 1, f); /* a byte at a time: never past the value */
        n += got;
        if (!got || n < 64 || (n & (n - 1)) == 0) { /* a whole value yet? */
            Rd r = {data, data + n};
            Val v;
            const unsigned char *at;
            if (mp_value(&r, &v, &at, 0)) { /* a map with bytes after it: refused (not a map: refused later) */
                if (v.type == M_MAP && (r.p < data + n || fread(&v, 1, 1, f) == 1))
                    die("bytes after the end of the certificate");
                n = (size_t)(r.p - data);
                break;
            }
        }
        if (!got) break;
    }
    if (ferror(f)) die("read error");
    fclose(f);
    out.data = data;
    out.size = n;
    return out;
}

static void close_file(File *f) {
    if (f->mapped) munmap(f->data, f->size);
    else if (f->size) free(f->data);
}

/* The pages of a mapped file's bytes [from, to) are not needed again: they leave this process (they stay
   in the page cache), so that a file of many GB is never all in memory. */
static void release(const File *f, const unsigned char *from, const unsigned char *to) {
#if defined(MADV_DONTNEED)
    size_t page = (size_t)sysconf(_SC_PAGESIZE), a = (size_t)(from - f->data), b = (size_t)(to - f->data);
    a = (a + page - 1) / page * page;
    b = b / page * page;
    if (f->mapped && b > a) madvise(f->data + a, b - a, MADV_DONTNEED);
#else
    (void)f; (void)from; (void)to;
#endif
}

#define WINDOW_BYTES ((size_t)1 << 24) /* a mapped body is read 16 MiB at a time */

/* A string of 1..300 characters (UTF-8), none of them a control character: a code or a board name. */
static int printable(const Val *v) {
    uint64_t i, chars = 0;
    if (v->type != M_STR) return 0;
    for (i = 0; i < v->len; i++) {
        if (v->ptr[i] < 0x20 || v->ptr[i] == 0x7f) return 0;
        chars += (v->ptr[i] & 0xc0) != 0x80;
    }
    return chars >= 1 && chars <= 300;
}

static const char *const HEADER_KEYS[] = {"source", "rules", "start", "states", "encoding", "info"};
enum { H_SOURCE, H_RULES, H_START, H_STATES, H_ENCODING, H_INFO };

/* The header map: exactly its six keys; the rules, the source, the start position. */
static void read_header(const unsigned char *p, size_t size, Cert *ct) {
    static const char *const rule_keys[] = {"cells", "foundation_return", "column_order", "autoplay"};
    static const char *const src_keys[] = {"kind", "deal", "code", "name"}, *const kinds[] = {"ms", "code", "board"};
    Rd r = {p, p + size};
    Val m;
    const unsigned char *at;
    Field h[6], rule[4], src[4];
    Pos s;
    const char *why;
    char buf[80];
    int i;
    if (!mp_value(&r, &m, &at, 0) || r.p != r.end) die("the header is not readable msgpack");
    if (m.type != M_MAP || fields(at, r.end, m.len, HEADER_KEYS, 6, h) != 0 || !(h[0].found & h[1].found &
        h[2].found & h[3].found & h[4].found & h[5].found))
        die("the header must have exactly the keys source, rules, start, states, encoding, info");
    if (!is_str(&h[H_ENCODING].v, "p64-sorted-zlib")) die("unknown body encoding %s", repr(&h[H_ENCODING].v, buf, sizeof buf));
    /* at most 2^40 records: certgen/certificate.py's MAX_STATES (a disk search's certificate may pass 2^31) */
    if (h[H_STATES].v.type != M_INT || h[H_STATES].v.big || h[H_STATES].v.i < 0 || h[H_STATES].v.i > 1099511627776LL)
        die("bad state count in header: %s", repr(&h[H_STATES].v, buf, sizeof buf));
    ct->states = (uint64_t)h[H_STATES].v.i;
    if (h[H_SOURCE].v.type != M_MAP || h[H_RULES].v.type != M_MAP || h[H_START].v.type != M_BIN)
        die("header lacks source, rules or start");
    if (fields(h[H_RULES].in.p, r.end, h[H_RULES].v.len, rule_keys, 4, rule) != 0 || !rule[0].found ||
        !rule[1].found || rule[0].v.type != M_INT || rule[0].v.big || rule[0].v.i < 0 || rule[0].v.i > 8 ||
        rule[1].v.type != M_BOOL || (rule[2].found && !(rule[2].v.type == M_BOOL && rule[2].v.i == 1)) ||
        (rule[3].found && !(is_str(&rule[3].v, "safe") && rule[2].found && rule[1].v.i == 0)))
        die("bad rules in header: cells (0..8), foundation_return (true or false), column_order (true, or "
            "absent) and autoplay (\"safe\" beside column_order without foundation returns, or absent), nothing else");
    ct->rules.cells = (int)rule[0].v.i;
    ct->rules.foundation_return = (int)rule[1].v.i;
    ct->rules.column_order = rule[2].found;
    ct->rules.autoplay = rule[3].found;
    fields(h[H_SOURCE].in.p, r.end, h[H_SOURCE].v.len, src_keys, 4, src); /* other keys: informative */
    if (key_twice(h[H_SOURCE].in.p, r.end, h[H_SOURCE].v.len)) die("bad source in header: a key twice (or over 1,024 keys)");
    for (i = 0; i < 3 && !(src[0].found && is_str(&src[0].v, kinds[i])); i++) continue;
    if (i == 3) die("bad source in header: kind %s", src[0].found ? repr(&src[0].v, buf, sizeof buf) : "None");
    if (i == 0) {
        if (!src[1].found || src[1].v.type != M_INT || src[1].v.big || src[1].v.i < 1 || src[1].v.i > 8589934591LL)
            die("bad source in header: deal %s (a deal number is 1..8589934591)", src[1].found ? repr(&src[1].v, buf, sizeof buf) : "None");
        ct->deal = src[1].v.i;
    }
    ct->kind = i;
    if ((i == 1 || src[2].found) && !(src[2].found && printable(&src[2].v)))
        die("bad source in header: code %s", src[2].found ? repr(&src[2].v, buf, sizeof buf) : "None");
    if (i == 2 && src[3].found && !printable(&src[3].v))
        die("bad source in header: board name %s (one printable line)", repr(&src[3].v, buf, sizeof buf));
    if (src[2].found) memcpy(ct->code, src[2].v.ptr, (size_t)src[2].v.len); /* printable: at most 1200 bytes */
    if (i == 2 && src[3].found) memcpy(ct->name, src[3].v.ptr, (size_t)src[3].v.len);
    if (h[H_INFO].v.type != M_MAP) die("bad info in header (not a map)");
    if (h[H_START].v.len != P64) die("bad start position in header: %llu bytes, expected 64", (unsigned long long)h[H_START].v.len);
    if ((why = parse(h[H_START].v.ptr, &s)) != NULL) die("bad start position in header: packed position: %s", why);
    memcpy(ct->start, h[H_START].v.ptr, P64);
}


/* The body: its pieces in the mapped file (version 2: one; version 3: 1 or more, each 1..2^30 bytes),
   whose concatenation is the zlib stream. */
typedef struct { const unsigned char *ptr; size_t len; } Piece;
typedef struct { Piece *p; size_t n; uint64_t len; } Body;
#define PIECE_MAX ((uint64_t)1 << 30) /* the longest piece of a version 3 body (certgen/certificate.py) */

/* Inflate the body, streaming across its pieces, never past states x 64 bytes, into the compact store;
   each record checked as it arrives, in the order and the words of certgen/certificate.py's reader:
   greater than the one before, then a position. */
static void inflate_body(const File *f, const Body *b, Cert *ct) {
    static unsigned char out[1 << 16]; /* a multiple of 64 */
    uint64_t states = ct->states, want, done = 0, i = 0, first, used = 0; /* used: body bytes given to zlib */
    int home;                          /* a record's cards home */
    Store *st = &ct->recs;
    size_t have = 0, k, piece = 0, at = 0; /* the next input: piece `piece`, from byte `at` */
    z_stream z;
    int rc;
    /* deflate expands at most 1032:1: a count that the body cannot hold is refused before any work */
    if (states > (b->len * 1032 + 1024) / P64 || states > (uint64_t)SIZE_MAX / P64)
        die("a body of %llu bytes cannot hold %llu states", (unsigned long long)b->len, (unsigned long long)states);
    want = states * P64;
    memset(st, 0, sizeof *st);
    st->n = states;
    st->blocks = (states + BLOCK - 1) / BLOCK;
    st->heads = malloc(st->blocks ? st->blocks * P64 : 1);
    st->offs = malloc(st->blocks ? st->blocks * sizeof *st->offs : 1);
    st->cache = malloc(CACHED * sizeof *st->cache);
    if (!st->heads || !st->offs || !st->cache) die("out of memory for %llu states", (unsigned long long)states);
    for (k = 0; k < CACHED; k++) st->cache[k].b = (uint64_t)-1;
    if (states <= index_states) index_init(st);
    sha_init(&ct->records_sha);
    memset(&z, 0, sizeof z);
    if (inflateInit(&z) != Z_OK) die("zlib cannot start");
    for (;;) {
        if (z.avail_in == 0 && piece < b->n) { /* the next window of the body; the ones before are let go */
            const Piece *p = &b->p[piece];
            size_t n = p->len - at < WINDOW_BYTES ? p->len - at : WINDOW_BYTES;
            if (at == 0 && piece) release(f, p[-1].ptr, p[-1].ptr + p[-1].len); /* the piece before, all used */
            release(f, p->ptr, p->ptr + at);
            z.next_in = (unsigned char *)p->ptr + at;
            z.avail_in = (uInt)n;
            used += n;
            at += n;
            if (at == p->len) { /* this piece is all given: the next window comes from the next piece */
                piece++;
                at = 0;
            }
        }
        z.next_out = out + have;
        z.avail_out = (uInt)(sizeof out - have);
        rc = inflate(&z, Z_NO_FLUSH);
        done += sizeof out - have - z.avail_out;
        if (done > want)
            die("body holds more than %llu bytes, expected %llu states of 64 bytes", (unsigned long long)want,
                (unsigned long long)states);
        have = sizeof out - z.avail_out;
        first = i;
        for (k = 0; k + P64 <= have; k += P64, i++) {
            Pos s;
            const char *why;
            if (i && memcmp(st->prev, out + k, P64) >= 0)
                die("records are not sorted and distinct (record %llu)", (unsigned long long)i + 1);
            if ((why = parse(out + k, &s)) != NULL) die("record %llu is not a position (%s)", (unsigned long long)i + 1, why);
            store_add(st, i, out + k);
            ct->digest = digest(ct->digest, out + k);
            home = s.home[0] + s.home[1] + s.home[2] + s.home[3];
            if (home > ct->max_home) ct->max_home = home;
        }
        index_add(st, first, out, k / P64);
        if (records_digest) sha_update(&ct->records_sha, out, k);
        memmove(out, out + k, have - k);
        have -= k;
        if (rc != Z_OK) break; /* Z_STREAM_END, or the stream is damaged or ended early (Z_BUF_ERROR) */
    }
    used -= z.avail_in;
    inflateEnd(&z);
    for (k = 0; k < b->n; k++) release(f, b->p[k].ptr, b->p[k].ptr + b->p[k].len);
    store_done(st);
    if (rc == Z_BUF_ERROR) die("body is truncated (the file is damaged)");
    if (rc != Z_STREAM_END) die("body does not decompress (the file is damaged)");
    if (used != b->len) die("bytes after the end of the compressed body");
    if (done != want)
        die("body holds %llu bytes, expected %llu states of 64 bytes", (unsigned long long)done, (unsigned long long)states);
}

static const char *commas(uint64_t n, char *buf);

/* The body's pieces, from its value in the top map (version 2: a bin; version 3: a list of bins, each
   1..PIECE_MAX bytes), in the words of certgen/certificate.py's reader. */
static Body body_pieces(int version, const Field *fd, const unsigned char *end) {
    Body b = {NULL, 0, 0};
    Rd r = fd->in;
    size_t k;
    char buf[32];
    if (version == 2) {
        if (fd->v.type != M_BIN) die("the body of a version 2 certificate must be bytes (one bin)");
        b.n = 1;
    } else {
        if (fd->v.type != M_ARR) die("the body of a version 3 certificate must be a list of pieces (bins)");
        if (fd->v.len == 0) die("the body of a version 3 certificate has no pieces");
        /* each piece takes at least two bytes of the file: a count past that is not there */
        if (fd->v.len > (uint64_t)(end - r.p) / 2) die("not a readable certificate (corrupt or truncated msgpack)");
        b.n = (size_t)fd->v.len;
    }
    if (!(b.p = malloc(b.n * sizeof *b.p))) die("out of memory for %llu body pieces", (unsigned long long)b.n);
    r.end = end;
    for (k = 0; k < b.n; k++) {
        Val v;
        if (version == 2) v = fd->v;
        else if (!mp_read(&r, &v)) die("not a readable certificate (corrupt or truncated msgpack)");
        else if (v.type != M_BIN) die("body piece %llu is not bytes", (unsigned long long)k + 1);
        else if (v.len == 0) die("body piece %llu is empty", (unsigned long long)k + 1);
        else if (v.len > PIECE_MAX)
            die("body piece %llu holds %s bytes, more than the 1,073,741,824 a piece holds", (unsigned long long)k + 1,
                commas(v.len, buf));
        b.p[k].ptr = v.ptr;
        b.p[k].len = (size_t)v.len;
        b.len += v.len;
    }
    return b;
}

static const char *const TOP_KEYS[] = {"format", "version", "header", "body", "sha256"};
enum { T_FORMAT, T_VERSION, T_HEADER, T_BODY, T_SHA256 };
#define REBUILD "rebuild it with this version (`python -m certgen build`)"
#define READS "this tool reads versions 2 and 3"

/* The file: one map of exactly five keys; format, version and checksum first, then the header, then the
   body, inflated into the compact store. */
static void read_cert(const char *path, Cert *ct) {
    File f = read_file(path);
    Rd r = {f.data, f.data + f.size};
    Val m;
    const unsigned char *at;
    Field t[5], *hdr = &t[T_HEADER], *sha = &t[T_SHA256];
    Body body;
    int other, k, version;
    size_t i, w;
    char hex[65], buf[80];
    Sha s;
    memset(ct, 0, sizeof *ct);
    if (!mp_value(&r, &m, &at, 0)) die("not a readable certificate (corrupt or truncated msgpack)");
    if (r.p != r.end) die("not a readable certificate (corrupt or truncated msgpack: extra data)");
    if (m.type != M_MAP) die("not a freecell-proof certificate (not a map)");
    other = fields(at, r.end, m.len, TOP_KEYS, 5, t);
    if (!t[T_FORMAT].found && hdr->found && hdr->v.type == M_MAP) { /* version 1: a header map with format */
        Field old[2];
        fields(hdr->in.p, r.end, hdr->v.len, TOP_KEYS, 2, old);
        if (old[0].found && is_str(&old[0].v, "freecell-proof-certificate"))
            die("certificate format version %s, which has no checksum over its header; " READS ": " REBUILD,
                old[1].found ? repr(&old[1].v, buf, sizeof buf) : "None");
    }
    if (!t[T_FORMAT].found || !is_str(&t[T_FORMAT].v, "freecell-proof-certificate"))
        die("not a freecell-proof certificate (format %s)", t[T_FORMAT].found ? repr(&t[T_FORMAT].v, buf, sizeof buf) : "None");
    if (!t[T_VERSION].found || t[T_VERSION].v.type != M_INT || t[T_VERSION].v.big || t[T_VERSION].v.i < 2 ||
        t[T_VERSION].v.i > 3)
        die("certificate format version %s; " READS "%s", t[T_VERSION].found ? repr(&t[T_VERSION].v, buf, sizeof buf) : "None",
            t[T_VERSION].found && t[T_VERSION].v.type == M_INT && t[T_VERSION].v.i < 2 ? ": " REBUILD : "");
    version = (int)t[T_VERSION].v.i;
    for (k = 0; k < 5; k++) other += !t[k].found;
    if (other) die("the file's map must have exactly the keys format, version, header, body, sha256");
    if (hdr->v.type != M_BIN || sha->v.type != M_STR) die("header and body must be bytes and sha256 text");
    body = body_pieces(version, &t[T_BODY], r.end);
    sha_init(&s);
    sha_update(&s, hdr->v.ptr, (size_t)hdr->v.len);
    for (i = 0; i < body.n; i++) { /* each piece a window at a time, let go */
        const Piece *p = &body.p[i];
        for (w = 0; w < p->len; w += WINDOW_BYTES) {
            size_t n = p->len - w < WINDOW_BYTES ? p->len - w : WINDOW_BYTES;
            sha_update(&s, p->ptr + w, n);
            release(&f, p->ptr, p->ptr + w + n);
        }
    }
    sha_hex(&s, hex);
    if (sha->v.len != 64 || memcmp(hex, sha->v.ptr, 64) != 0) die("checksum mismatch (the file is damaged)");
    read_header(hdr->v.ptr, (size_t)hdr->v.len, ct);
    inflate_body(&f, &body, ct);
    free(body.p);
    close_file(&f);
}

/* ---- the check ----------------------------------------------------------------------------------- */

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void progress(uint64_t done, uint64_t total, double t0, int last) {
    double t = now() - t0;
    fprintf(stderr, "\rcheck: %llu/%llu states (%.0f%%), %.2f M states/s   ", (unsigned long long)done,
            (unsigned long long)total, total ? 100.0 * done / total : 100.0, t > 0 ? done / t / 1e6 : 0.0);
    if (last) fprintf(stderr, "\r%79s\r", "");
}

/* n with thousands separators, as Python's f"{n:,}". */
static const char *commas(uint64_t n, char *buf) {
    char digits[24];
    int len = sprintf(digits, "%llu", (unsigned long long)n), i, o = 0;
    for (i = 0; i < len; i++) {
        if (i && (len - i) % 3 == 0) buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = 0;
    return buf;
}

/* What the check is about, in the words of certgen/certificate.py's subject(): the start (the deal, the
   deal code, or the board's name and the first 12 hex digits of the SHA-256 of its start record) and
   the rules. */
static void subject(const Cert *ct, char *out) {
    int cells = ct->rules.cells;
    char *p = out;
    if (ct->kind == 0) p += sprintf(p, "deal %lld", ct->deal);
    else if (ct->kind == 1) p += sprintf(p, "the deal code %s", ct->code);
    else {
        Sha s;
        char hex[65];
        sha_init(&s);
        sha_update(&s, ct->start, P64);
        sha_hex(&s, hex);
        p += sprintf(p, "the board %s (start position %.12s)", !ct->name[0] ? "position" :
                     strcmp(ct->name, "-") ? ct->name : "from standard input", hex);
    }
    if (cells == 4 && !ct->rules.foundation_return)
        p += sprintf(p, " under the standard rules (4 free cells, nothing back from the foundations)");
    else
        p += sprintf(p, " under the rules with %d free cell%s and %s", cells, cells == 1 ? "" : "s",
                     ct->rules.foundation_return ? "foundation returns allowed" : "nothing back from the foundations");
    if (ct->rules.column_order) p += sprintf(p, " up to column order");
    if (ct->rules.autoplay) sprintf(p, " with safe automatic moves");
}

/* A JSON string: quotes, backslashes and control characters escaped (the text is UTF-8 already). */
static void json_str(const char *text) {
    putchar('"');
    for (; *text; text++) {
        unsigned char c = (unsigned char)*text;
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c < 0x20) printf("\\u%04x", c);
        else putchar(c);
    }
    putchar('"');
}

#define BATCH 64 /* successors searched side by side (at least; a member's successors stay together) */
#if BATCH + MAXMOVES > MAXKEYS
#error BATCH + MAXMOVES keys are looked up at once
#endif

static int check(const char *path, int json, int show_progress) {
    Cert ct;
    static unsigned char keys[(BATCH + MAXMOVES) * P64], found[BATCH + MAXMOVES];
    static Range rg[BATCH + MAXMOVES];
    static uint64_t kw[BATCH + MAXMOVES][8];
    static int act[BATCH + MAXMOVES];
    static uint64_t parent[BATCH + MAXMOVES];
    static int first_diff[BATCH + MAXMOVES];
    static unsigned char uncovered[MAXMOVES], bottoms[MAXMOVES];
    static char msg[4096], d1[1024], d2[1024], about[1500], n1[32], n2[32], records_hex[65];
    unsigned char dealrec[P64], start[P64], ordered[P64];
    const char *in_order = "", *put_in_order = "", *nor_safe = "";
    uint64_t i = 0, looked = 0, checked = 0, held;
    uint64_t sum = 0;
    const char *failure = NULL;
    double t0 = now(), t1;
    clock_t c1;
    g_name = path;
    read_cert(path, &ct);
    held = store_bytes(&ct.recs);
    t1 = now();
    c1 = clock();
    subject(&ct, about);
    memcpy(start, ct.start, P64);
    if (ct.rules.column_order) { /* the start and every successor looked up in the checkers' column order */
        column_order(ct.start, start);
        in_order = " (its columns in the checkers' order)";
        put_in_order = " (put in the checkers' column order)";
    }
    if (ct.rules.autoplay) { /* after the safe automatic moves first */
        autoplay(ct.start, ordered);
        column_order(ordered, start);
        in_order = " (after the safe automatic moves, its columns in the checkers' order)";
        put_in_order = " (taken after the safe automatic moves and put in the checkers' column order)";
        nor_safe = " or holds a card that goes home by the safe rule";
    }
    if (ct.deal) { /* the start position is regenerated from the deal number, not taken on trust */
        ms_deal((uint64_t)ct.deal, dealrec);
        if (memcmp(dealrec, ct.start, P64) != 0) {
            failure = "start-mismatch";
            snprintf(msg, sizeof msg, "invalid for %s: the header's start position is not msDeal %lld", about, ct.deal);
        }
    }
    if (!failure) { /* 1. the start position is in the set */
        uint64_t among_all = ct.states;
        int none = P64;
        members(&ct.recs, start, &among_all, &none, 1, rg, kw, act, found);
        if (!found[0]) {
            failure = "start";
            describe(start, d1);
            snprintf(msg, sizeof msg, "invalid for %s: the start position%s is not in the certificate: %s", about,
                     in_order, d1);
        }
    }
    while (!failure && i < ct.states) {
        /* the members i, i+1, … in order until BATCH successors are gathered or a member is won */
        int nk = 0, q, won_here = 0, misplaced_here = 0, unsettled_here = 0;
        uint64_t first = i;
        while (i < ct.states && nk < BATCH) {
            Pos s;
            int n, k;
            layout(record_at(&ct.recs, i), &s); /* a position: each record was parsed as it was read */
            sum = digest(sum, s.rec);
            if (ct.rules.column_order) { /* stored in the checkers' column order */
                column_order(s.rec, ordered);
                if (memcmp(ordered, s.rec, P64) != 0) { misplaced_here = 1; break; }
            }
            if (ct.rules.autoplay && auto_card(&s) >= 0) { unsettled_here = 1; break; } /* after its automatic moves */
            if (won(&s)) { won_here = 1; break; } /* 3. no member is won */
            n = moves(&ct.rules, &s, keys + P64 * nk, uncovered, bottoms);
            for (k = 0; k < n; k++) {
                int moved = 0;
                parent[nk + k] = i;
                if (ct.rules.autoplay) /* each successor after its safe automatic moves (s is settled) */
                    moved = autoplay_after(&s, uncovered[k], keys + P64 * (nk + k));
                /* each successor in the checkers' column order. The member is in that order (checked above):
                   its columns' keys (bottom cards, 53 for an empty column) ascend. A move that neither empties
                   a column nor fills an empty one (bottoms[k] == 0), with no automatic move after it, leaves
                   every key as it is, so the successor is in that order too and column_order would return it
                   unchanged: it is not called (ORDER_EVERY_SUCCESSOR calls it anyway, for the tests). */
#ifndef ORDER_EVERY_SUCCESSOR
                if (ct.rules.column_order && (moved || bottoms[k]))
#else
                (void)moved;
                if (ct.rules.column_order)
#endif
                    column_order(keys + P64 * (nk + k), keys + P64 * (nk + k));
                first_diff[nk + k] = first_difference(s.rec, keys + P64 * (nk + k));
            }
            nk += n;
            i++;
        }
        /* 2. every successor of every member is in the set */
        members(&ct.recs, keys, parent, first_diff, nk, rg, kw, act, found);
        for (q = 0; q < nk && found[q]; q++) continue;
        if (q < nk) {
            failure = "successor";
            looked += (uint64_t)q + 1;
            checked = parent[q];
            describe(keys + P64 * q, d1);
            describe(record_at(&ct.recs, parent[q]), d2);
            snprintf(msg, sizeof msg, "invalid for %s: a successor of a member%s is not in the certificate: missing "
                     "%s reached in one move from the member %s", about, put_in_order, d1, d2);
            break;
        }
        looked += (uint64_t)nk;
        checked = i;
        if (won_here) {
            failure = "won";
            describe(record_at(&ct.recs, i), d1);
            snprintf(msg, sizeof msg, "invalid for %s: the certificate contains a won position: %s", about, d1);
        }
        if (misplaced_here) {
            failure = "column-order";
            describe(record_at(&ct.recs, i), d1);
            snprintf(msg, sizeof msg, "invalid for %s: a member is not stored in the checkers' column order (columns "
                     "sorted by their bottom card, empty columns last): %s", about, d1);
        }
        if (unsettled_here) {
            failure = "autoplay";
            describe(record_at(&ct.recs, i), d1);
            snprintf(msg, sizeof msg, "invalid for %s: a member is not after its safe automatic moves (a card on top "
                     "of one of its columns or in a free cell goes home by the safe rule): %s", about, d1);
        }
        if (show_progress && (i >> 20) != (first >> 20)) progress(checked, ct.states, t1, 0);
    }
    if (show_progress) progress(checked, ct.states, t1, 1);
    if (!failure && sum != ct.digest) /* every member was decoded: the members checked are the records read */
        die("the records held do not decode to the records read (a fault in fccheck)");
    if (!failure)
        snprintf(msg, sizeof msg, "valid for %s: %s state%s; the start position%s is in the set, every one of the "
                 "%s successors of its members%s is in it, and none of them is won%s", about, commas(ct.states, n1),
                 ct.states == 1 ? "" : "s", in_order, commas(looked, n2), put_in_order, nor_safe);
    if (json) { /* and the source and start, for what certgen/fastcheck.py checks itself (deal codes) */
        int k;
        printf("{\"valid\": %s, \"states\": %llu, \"checked\": %llu, \"successors\": %llu, \"failure\": ",
               failure ? "false" : "true", (unsigned long long)ct.states, (unsigned long long)checked,
               (unsigned long long)looked);
        json_str(failure ? failure : "");
        printf(", \"message\": ");
        json_str(msg);
        printf(", \"subject\": ");
        json_str(about);
        printf(", \"source\": {\"kind\": \"%s\"", ct.kind == 0 ? "ms" : ct.kind == 1 ? "code" : "board");
        if (ct.kind == 0) printf(", \"deal\": %lld", ct.deal);
        if (ct.code[0]) { printf(", \"code\": "); json_str(ct.code); }
        if (ct.name[0]) { printf(", \"name\": "); json_str(ct.name); }
        printf("}, \"rules\": {\"cells\": %d, \"foundation_return\": %s%s%s}, \"start\": \"", ct.rules.cells,
               ct.rules.foundation_return ? "true" : "false", ct.rules.column_order ? ", \"column_order\": true" : "",
               ct.rules.autoplay ? ", \"autoplay\": \"safe\"" : "");
        for (k = 0; k < P64; k++) printf("%02x", ct.start[k]);
        if (records_digest) {
            sha_hex(&ct.records_sha, records_hex);
            printf("\", \"records_sha256\": \"%s\"", records_hex);
        } else
            printf("\", \"records_sha256\": null");
        printf(", \"max_home\": %d", ct.max_home);
        printf(", \"read_seconds\": %.4f, \"check_seconds\": %.4f, \"check_cpu_seconds\": %.4f, "
               "\"held_bytes\": %llu}\n", t1 - t0, now() - t1, (double)(clock() - c1) / CLOCKS_PER_SEC,
               (unsigned long long)held);
    } else
        printf("%s\n", msg);
    store_free(&ct.recs);
    return failure ? 1 : 0;
}

/* ---- debug modes: successors of records on stdin; a deal's record ------------------------------------ */

static int successors(const Rules *r) {
    static unsigned char succ[MAXMOVES * P64], uncovered[MAXMOVES], bottoms[MAXMOVES];
    unsigned char rec[P64];
    size_t got;
    g_name = "stdin";
    while ((got = fread(rec, 1, P64, stdin)) == P64) {
        Pos s;
        int n;
        unsigned char cnt[2];
        const char *why = parse(rec, &s);
        if (why) die("not a position (%s)", why);
        n = moves(r, &s, succ, uncovered, bottoms);
        cnt[0] = (unsigned char)(n & 0xff);
        cnt[1] = (unsigned char)(n >> 8);
        fwrite(cnt, 1, 2, stdout);
        fwrite(succ, P64, (size_t)n, stdout);
    }
    if (got) die("%llu bytes at the end: not a whole record", (unsigned long long)got);
    return 0;
}

/* Records on stdin (each a position), each in the checkers' column order (or, `safe`, after its safe automatic
   moves) on stdout. */
static int column_orders(int safe) {
    unsigned char rec[P64], out[P64];
    size_t got;
    g_name = "stdin";
    while ((got = fread(rec, 1, P64, stdin)) == P64) {
        Pos s;
        const char *why = parse(rec, &s);
        if (why) die("not a position (%s)", why);
        if (safe) autoplay(rec, out);
        else column_order(rec, out);
        fwrite(out, 1, P64, stdout);
    }
    if (got) die("%llu bytes at the end: not a whole record", (unsigned long long)got);
    return 0;
}

static void usage(void) {
    fprintf(stderr, "error: usage: fccheck [--json [--records-sha256]] [--progress] [--index-states N] CERT | fccheck --successors [--cells K] "
            "[--foundation-return] | fccheck --deal N | fccheck --column-order | fccheck --autoplay\n");
    exit(2);
}

int main(int argc, char **argv) {
    int i, json = 0, prog = 0, succ = 0, order = 0, safe = 0;
    Rules r = {4, 0, 0, 0};
    const char *path = NULL, *deal = NULL;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) json = 1;
        else if (!strcmp(argv[i], "--progress")) prog = 1;
        else if (!strcmp(argv[i], "--records-sha256")) records_digest = 1;
        else if (!strcmp(argv[i], "--successors")) succ = 1;
        else if (!strcmp(argv[i], "--column-order")) order = 1;
        else if (!strcmp(argv[i], "--autoplay")) safe = 1;
        else if (!strcmp(argv[i], "--foundation-return")) r.foundation_return = 1;
        else if (!strcmp(argv[i], "--cells") && i + 1 < argc) {
            char *end;
            long k = strtol(argv[++i], &end, 10);
            if (*end || k < 0 || k > 8) usage();
            r.cells = (int)k;
        } else if (!strcmp(argv[i], "--index-states") && i + 1 < argc) {
            char *end;
            unsigned long long k;
            if (argv[++i][0] < '0' || argv[i][0] > '9') usage();
            errno = 0;
            k = strtoull(argv[i], &end, 10);
            if (*end || errno) usage();
            index_states = k;
        } else if (!strcmp(argv[i], "--deal") && i + 1 < argc) deal = argv[++i];
        else if (argv[i][0] == '-' || path) usage();
        else path = argv[i];
    }
    if (records_digest && (!json || !path)) usage();
    if (succ) return path || deal || order || safe ? (usage(), 2) : successors(&r);
    if (order || safe) return path || deal || (order && safe) ? (usage(), 2) : column_orders(safe);
    if (deal) {
        char *end;
        long long n = strtoll(deal, &end, 10);
        unsigned char rec[P64];
        if (*end || n < 1 || n > 8589934591LL || path) usage();
        ms_deal((uint64_t)n, rec);
        fwrite(rec, 1, P64, stdout);
        return 0;
    }
    if (!path) usage();
    return check(path, json, prog);
}
#else /* FCCHECK_LIBRARY */

/* ---- the library: replaying the survey's winning lines -----------------------------------------------
   Built as the Python module certgen._fcreplay (certgen/_build_replay.py) with -DFCCHECK_LIBRARY: the
   rules, the deals and the records above, none of the certificate reader. A move code is the search
   core's (docs: solver/fc.h): card key | destination << 8, destination 0..7 a column, 8 the free cells,
   9 the card's foundation; the source is wherever the card is. Each move is checked the way `moves`
   above makes it (the top card of a column, a free cell's card, or -- with foundation returns -- the top
   of its foundation; onto its foundation when it is the next card there (`can_home`) and not from it;
   onto another column that is empty or whose top card it stacks on (`stacks_on`); into the free cells
   from a column while one is free). The deal is msDeal's record, read by `parse`; the line is played on
   a table of the columns' cards, where a move is one card taken off and put on. */

/* A position as the replay plays it: each column's cards, bottom to top (at most 19: a start column's 7
   and 12 stacked on a king; a move that would make 21 is refused, never made), how many cards the free
   cells hold, the foundation heights, and where each card b is: at[b] its column 0..7, IN_CELL or
   IN_HOME (the destinations of a move code: a card goes where its move says). */
#define IN_CELL 8
#define IN_HOME 9
#define TABLE_COL 20
typedef struct {
    unsigned char col[8][TABLE_COL];
    int len[8];
    unsigned char at[53];
    int ncell;
    int home[4];
} Table;

/* The table of a parsed record. */
static void table_of(const Pos *s, Table *t) {
    int c, i;
    memset(t->at, IN_HOME, sizeof t->at);
    for (c = 0; c < 8; c++) {
        int from = c ? s->end[c - 1] + 1 : 0;
        t->len[c] = s->end[c] - from;
        for (i = 0; i < t->len[c]; i++) {
            t->col[c][i] = s->rec[from + i];
            t->at[s->rec[from + i]] = (unsigned char)c;
        }
    }
    for (i = 0; i < s->ncell; i++) t->at[s->rec[s->cell0 + i]] = IN_CELL;
    t->ncell = s->ncell;
    for (i = 0; i < 4; i++) t->home[i] = s->home[i];
}

/* Replay `n` codes from msDeal `deal`: 0 when every move is legal and the last position is won; k (1..n)
   when move k is not a legal move; n + 1 when the line ends in a position that is not won; -1 for a
   deal or rules out of range. */
int fcc_replay(uint64_t deal, int cells, int foundation_return, const uint16_t *codes, int n);

int fcc_replay(uint64_t deal, int cells, int foundation_return, const uint16_t *codes, int n) {
    unsigned char rec[P64];
    Pos s;
    Table t;
    int k;
    if (deal < 1 || deal > 8589934591ull || cells < 0 || cells > 8 || n < 0) return -1;
    ms_deal(deal, rec);
    if (parse(rec, &s)) return -1;
    table_of(&s, &t);
    for (k = 0; k < n; k++) {
        int key = codes[k] & 0xff, dst = codes[k] >> 8, card = key + 1, from;
        if (key >= 52 || dst > 9) return k + 1;
        from = t.at[card];
        if (from < 8 ? t.col[from][t.len[from] - 1] != card          /* a column's top card */
                     : from == IN_HOME && !(foundation_return && t.home[SUIT(card)] == RANK(card)))
            return k + 1;                                          /* or a cell's, or its foundation's top */
        if (dst == 9) { /* home: not from the foundation itself */
            if (from == IN_HOME || !can_home(t.home, card)) return k + 1;
        } else if (dst == 8) { /* into the free cells, from a column */
            if (from >= 8 || t.ncell >= cells) return k + 1;
        } else { /* onto column dst: empty, or its top card one rank higher and of the other colour */
            int top = t.len[dst] ? t.col[dst][t.len[dst] - 1] : 0;
            if (dst == from || (top && top != stacks_on(card, 0) && top != stacks_on(card, 1))
                || t.len[dst] == TABLE_COL)
                return k + 1;
        }
        if (from < 8) t.len[from]--;
        else if (from == IN_CELL) t.ncell--;
        else t.home[SUIT(card)]--;
        if (dst == 9) t.home[SUIT(card)]++;
        else if (dst == 8) t.ncell++;
        else t.col[dst][t.len[dst]++] = (unsigned char)card;
        t.at[card] = (unsigned char)dst;
    }
    return t.home[0] == 13 && t.home[1] == 13 && t.home[2] == 13 && t.home[3] == 13 ? 0 : n + 1;
}

/* fcc_replay on the lines of deals first .. first+count-1: line i is codes[offset[i] .. offset[i] + len[i])
   (len[i] < 0: deal i has no line, result[i] = -1), result[i] fcc_replay's answer. Returns the number of
   lines that replay to a won position. */
int fcc_replay_deals(uint64_t first, int count, int cells, int foundation_return, const int32_t *len,
                     const uint64_t *offset, const uint16_t *codes, int32_t *result);

int fcc_replay_deals(uint64_t first, int count, int cells, int foundation_return, const int32_t *len,
                     const uint64_t *offset, const uint16_t *codes, int32_t *result) {
    int i, won_lines = 0;
    for (i = 0; i < count; i++) {
        result[i] = len[i] < 0 ? -1 : fcc_replay(first + (uint64_t)i, cells, foundation_return,
                                                  codes + offset[i], len[i]);
        won_lines += result[i] == 0;
    }
    return won_lines;
}
#endif /* FCCHECK_LIBRARY */
