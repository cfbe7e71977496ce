/* line.c -- lines of play: rebuilding a line to a stored state, shortening it, fc_apply_move. */
#include "fc_internal.h"

/* perm[p]: the real column that is at place p in the canonical order of k */
static void canon_perm(const fkey_t *k, int *perm) {
    uint32_t v[8];
    for (int i = 0; i < 8; i++) { v[i] = k->w[i] & WMASK; perm[i] = i; }
    for (int i = 1; i < 8; i++) {      /* canon_key's order (descending), equal words kept in their order */
        uint32_t x = v[i];
        int xi = perm[i], j = i - 1;
        while (j >= 0 && v[j] < x) { v[j + 1] = v[j]; perm[j + 1] = perm[j]; j--; }
        v[j + 1] = x;
        perm[j + 1] = xi;
    }
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

