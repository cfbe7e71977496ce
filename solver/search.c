/* search.c -- the public search: fc_search_new / run (BFS, DFS), its states, P64 order, parents. */
#include "fc_internal.h"

/* ---- public: the search ---- */
static int push_stack(fc_search *s, uint32_t idx);

/* (Re)start search s from `start`: its context, its counters, the start state stored. A search used
   before keeps its memory (the arena's first block, the table when it has its first size, the per-state
   arrays up to TABLE_KEEP states, the heap): the survey's batch (fc_solve_deals) runs thousands of
   searches in one. The solver's table starts small (most of its searches store a few hundred positions:
   a table cleared for each is cheap) and grows by half when 80% full, as every table does. An enumeration's
   first table (9 x 2^14 slots, 576 KiB, its pages touched only where used) takes 117,964 positions before it
   grows (deal 11982's 84,767 in one table: rebuilding it four times from 16,384 slots was 11% of that
   search), and its sizes are then 147,456 x 1.5^k: at 3,000,000 positions (the figure of issue 35's store) the
   table has 3,779,136 slots (a load of 0.79, about to grow; from 16,384 slots it was 4,782,969, 0.63). */
#define TABLE_FIRST 147456
#define TABLE_FIRST_BEST 2048
#define TABLE_KEEP 65536
FC_HIDDEN int search_start(fc_search *s, const fc_pos *start, const fc_rules *r, uint64_t max_states,
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
    s->novf = s->sp = s->hn = s->bqn = 0;
    s->nbits = s->nzero = s->nzdir = 0;
    if (s->pbit) memset(s->pbit, 0, s->pbcap * sizeof *s->pbit);
    /* 40-byte keys first; compact keys for the enumerations once they hold FC_COMPACT_AT positions
       (store_compact), unless the fixed fields alone leave too little room (then nearly every position would
       go to the overflow keys); compile with -DFC_WIDE_KEYS for 40 bytes throughout */
    s->compact = 0;
    s->packs = s->order != FC_ORDER_BEST && 8 * s->c.hb + s->c.cb + s->c.hand <= 100;
#ifdef FC_WIDE_KEYS
    s->packs = 0;
#endif
    s->compact_at = FC_COMPACT_AT;
    size_t ks = sizeof(fkey_t);
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
    free(s->bq);
    free(s->bigbuf);
    free(s->bigck);
    free(s->bighash);
    free(s->bigfresh);
    free(s);
}

static int push_stack(fc_search *s, uint32_t idx) {
    int e = 0;
    if (s->sp >= s->scap) {
        s->stack = (uint32_t *)room_for(s->stack, s->sp, &s->scap, sizeof *s->stack, 4096, &e);
        if (e) return e;
    }
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
        if (UNLIKELY(s->packs && !s->compact && s->count >= s->compact_at) && store_compact(s))
            return s->status = FC_ENOMEM;
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
            uint64_t slot = 0;  /* the duplicates (most successors) found here, without a call */
            if (probe(s, &buf[i], &cbuf[i], hbuf[i], &slot) >= 0) continue;
            int e = insert_at(s, &buf[i], &cbuf[i], hbuf[i], (uint32_t)cur, slot);
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

static int cmp_skey(const void *a, const void *b) {
    const skey_t *x = (const skey_t *)a, *y = (const skey_t *)b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}


static void search_rec(const void *src, uint64_t i, uint8_t *rec) {
    const fc_search *s = (const fc_search *)src;
    fkey_t k;
    load_key(s, i, &k);
    key_to_p64(&s->c, &k, rec);
}

/* Sort v by the P64 bytes off..off+7 (big-endian), then each run of equal bytes by the next eight. */
FC_HIDDEN void sort_level(rec_fn f, const void *src, skey_t *v, uint64_t n, int off) {
    uint8_t rec[FC_P64_SIZE];
    for (uint64_t i = 0; i < n; i++) {
        f(src, v[i].idx, rec);
        v[i].key = be8(rec + off);
    }
    qsort(v, (size_t)n, sizeof *v, cmp_skey);
    if (off + 8 >= FC_P64_SIZE) return;
    for (uint64_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && v[j].key == v[i].key; j++) {}
        if (j - i > 1) sort_level(f, src, v + i, j - i, off + 8);
    }
}

int fc_search_sort_p64(const fc_search *s, uint32_t *order) {
    skey_t *v = (skey_t *)malloc((size_t)(s->count ? s->count : 1) * sizeof *v);
    if (!v) return FC_ENOMEM;
    for (uint64_t i = 0; i < s->count; i++) v[i].idx = (uint32_t)i;
    sort_level(search_rec, s, v, s->count, 0);
    for (uint64_t i = 0; i < s->count; i++) order[i] = v[i].idx;
    free(v);
    return 0;
}

/* ---- the records themselves, sorted in a buffer (records.c) ---- */

int fc_search_sort_records(const fc_search *s, uint8_t *recs, uint32_t *order) {
    return fc_p64_order(recs, fc_search_export_p64(s, 0, s->count, recs), order);
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
FC_HIDDEN uint64_t *path_to(const fc_search *s, uint64_t idx, uint64_t *len) {
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
           + s->pcap * (sizeof(uint32_t) + 2 * sizeof(uint16_t)) + s->hcap * sizeof(uint64_t)
           + s->bqcap * sizeof(uint32_t);
}

void fc_search_compact_at(fc_search *s, uint64_t states) { s->compact_at = states; }

uint64_t fc_search_overflow(const fc_search *s) {
    if (s->compact || !s->packs) return s->compact ? s->novf : s->count;
    uint64_t n = 0;                /* not compact yet: the keys that will not pack */
    for (uint64_t i = 0; i < s->count; i++) {
        ckey_t ck;
        n += pack_key(&s->c, (const fkey_t *)kptr(s, i), &ck) != 0;
    }
    return n;
}
