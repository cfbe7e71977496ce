/* best.c -- best first (FC_ORDER_BEST): the heuristic score, the queue (buckets and a heap), run_best. */
#include "fc_internal.h"

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
        int c0 = (int)(wi & 63), l = (int)((wi >> 6) & 63), chn = w_chain(wi);
        int bi = c->binfo[wi & 0xFFF], b = bi >> 10, mn = (bi >> 6) & 15;   /* the base's top and lowest rank */
        blocked += bi & 63;                  /* its cards above a lower one (a table: no branch on its length) */
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
           column's; a base of one card there is x itself), else at the bottom of a column (a base of one
           card: a base of more is a start column's prefix, found above), or a chain card */
        if (c->ocol[x] != 0xFF) {
            int i = at[c->orig[c->ocol[x]][0]];
            if (i >= 0 && c->opos[x] < L[i]) { buried += n[i] - 1 - c->opos[x]; continue; }
        }
        if (at[x] >= 0) { buried += n[at[x]] - 1; continue; }
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
        /* the smaller child, without a branch (h[n], the old last, is still in the array) */
        uint64_t m = l + ((l + 1 < n) & (h[l + 1] < h[l]));
        if (h[m] >= last) break;
        h[i] = h[m];
        i = m;
    }
    if (n) h[i] = last;
    return 0xFFFFFFFFu - (uint32_t)top;
}

/* The queue of best first: its keys (score << 32 | ~index, smallest first) below BQ_N << 32 in buckets, one
   a score, the rest (larger scores, depth first's keys) in the heap. A bucket is a stack of its states
   linked from the largest index down (the states are pushed as they are stored, in the order of their
   indices, so its top is its smallest key; a push out of that order goes to the heap); a bitmap of the
   buckets that are not empty finds the lowest, at or above bqmin. The smaller of that bucket's top and
   the heap's is popped: the same order as one heap of every key, with no sifting for most of them.
   s->bq holds the bitmap (BQ_N / 32 words), the buckets' tops (BQ_N), then the link of each state. */
#define BQ_N 8192u
#define BQ_HEAD (BQ_N / 32 + BQ_N)
#define BQ_NONE 0xFFFFFFFFu

static int queue_push(fc_search *s, uint64_t key) {
    uint32_t f = (uint32_t)(key >> 32), idx = 0xFFFFFFFFu - (uint32_t)key;
    if (key >> 32 >= BQ_N) return heap_push_key(s, key);
    if (BQ_HEAD + (uint64_t)idx >= s->bqcap) {
        uint64_t ncap = s->bqcap ? s->bqcap * 2 : BQ_HEAD + 4096;
        while (BQ_HEAD + (uint64_t)idx >= ncap) ncap *= 2;
        uint32_t *q = (uint32_t *)realloc(s->bq, ncap * sizeof *q);
        if (!q) return FC_ENOMEM;
        s->bq = q;
        s->bqcap = ncap;
    }
    uint32_t *bits = s->bq, *top = bits + BQ_N / 32, *link = bits + BQ_HEAD;
    if (!s->bqn) { memset(bits, 0, BQ_N / 8); s->bqmin = BQ_N; }   /* a new queue: every bucket empty */
    uint32_t full = bits[f >> 5] >> (f & 31) & 1;
    if (full && idx < top[f]) return heap_push_key(s, key);
    link[idx] = full ? top[f] : BQ_NONE;
    top[f] = idx;
    bits[f >> 5] |= 1u << (f & 31);
    if (f < s->bqmin) s->bqmin = f;
    s->bqn++;
    return 0;
}

static uint32_t queue_pop(fc_search *s) {
    if (s->bqn) {
        uint32_t *bits = s->bq, *top = bits + BQ_N / 32, *link = bits + BQ_HEAD;
        uint32_t wi = s->bqmin >> 5, m = bits[wi] & (0xFFFFFFFFu << (s->bqmin & 31));
        while (!m) m = bits[++wi];
        uint32_t f = wi * 32 + (uint32_t)ctz64(m), idx = top[f];
        s->bqmin = f;
        if (!s->hn || (((uint64_t)f << 32) | (0xFFFFFFFFu - idx)) < s->heap[0]) {
            top[f] = link[idx];
            if (top[f] == BQ_NONE) bits[wi] &= ~(1u << (f & 31));
            s->bqn--;
            return idx;
        }
    }
    return heap_pop(s);
}

/* Push state idx, whose key is k (h64: hash64_key(k)), on the heap by its score. */
static int push_scored(fc_search *s, uint32_t idx, const fkey_t *k, uint64_t h64) {
    const int *w = s->w;
    int64_t f = (int64_t)score(&s->c, k, w);
    if (w[9] > 0) f += (int64_t)(((uint32_t)(h64 >> 32) ^ (uint32_t)w[10]) % (uint32_t)w[9]);
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
    return queue_push(s, ((uint64_t)f << 32) | (0xFFFFFFFFu - idx));
}

FC_HIDDEN int heap_push(fc_search *s, uint32_t idx) {
    fkey_t k;
    load_key(s, idx, &k);
    return push_scored(s, idx, &k, hash64_key(&k));
}

/* After state idx, whose key is k, was stored: when its columns are sorted, store the won position as its
   child. Returns 1 when the won position was stored, 0 if not, or FC_LIMIT / FC_ENOMEM. */
static int goal_of(fc_search *s, uint32_t idx, const fkey_t *k) {
    if (!key_sorted(&s->c, k)) return 0;
    fkey_t won;
    ckey_t ck;
    won_key(&won);
    int e = insert(s, &won, &ck, prep_key(s, &won, &ck), idx);
    if (e == 1) {
        s->mv[s->count - 1] = MV_HOMEALL;
        s->dep[s->count - 1] = s->dep[idx] == 0xFFFF ? 0xFFFF : (uint16_t)(s->dep[idx] + 1);
    }
    return e;
}

FC_HIDDEN int best_goal(fc_search *s, uint32_t idx) {
    fkey_t k;
    load_key(s, idx, &k);
    return goal_of(s, idx, &k);
}

FC_HIDDEN int run_best(fc_search *s, uint64_t max_expand) {
    const ctx_t *c = &s->c;
    uint64_t budget = max_expand;
    while (s->hn || s->bqn) {
        if (max_expand && budget-- == 0) return FC_RUNNING;
        uint32_t cur = queue_pop(s);
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
            uint64_t slot = 0;
            if (probe(s, &s->buf[i], &s->cbuf[i], s->hbuf[i], &slot) >= 0) continue;
            int e = insert_at(s, &s->buf[i], &s->cbuf[i], s->hbuf[i], cur, slot);
            if (UNLIKELY(e > 1 || e < 0)) return e;
            if (e == 1) {
                uint32_t idx = (uint32_t)(s->count - 1);
                s->mv[idx] = s->mvbuf[i];
                s->dep[idx] = d;
                if (UNLIKELY(s->won && s->stop_on_win)) return FC_WON;
                e = goal_of(s, idx, &s->buf[i]);
                if (UNLIKELY(e > 1 || e < 0)) return e;
                if (UNLIKELY(s->won && s->stop_on_win)) return FC_WON;
                /* prep_key's hash is hash64_key's while the keys are not compact (always, best first) */
                if (push_scored(s, idx, &s->buf[i], s->compact ? hash64_key(&s->buf[i]) : s->hbuf[i]))
                    return FC_ENOMEM;
            }
        }
        s->expanded++;
    }
    return FC_DONE;
}

