/* ddd_search.c -- the disk search (docs/ARCHITECTURE.md, "The enumeration on disk"): the overflow set,
   layers expanded and merged, the line to a won position, the P64 order at the end. */
#include "fc_internal.h"
#include "ddd_internal.h"

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
FC_HIDDEN int ddd_ovf_add(fc_ddd *d, const fkey_t *k) {
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

FC_HIDDEN int ddd_open_front(fc_ddd *d) {
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
FC_HIDDEN fc_ddd *ddd_make(const fc_pos *start, const fc_rules *r, const char *dir, uint64_t mem, uint64_t max_states,
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
        if (!ddd_state_path(d, DDD_SORT_TMP, path)) remove(path);
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
    d->run_t0 = ddd_cpu_now();
    d->in_run = 1;
    int e = ddd_run(d, max_expand);
    d->in_run = 0;
    d->seconds += ddd_cpu_now() - d->run_t0;
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
    out->sort_runs = d->sort_runs;
    out->sorted = d->sorted_keys;
    out->sort_resumed = d->sort_resumed;
    out->sort_resumed_runs = d->sort_resumed_runs;
    out->sort_resumed_positions = d->sort_resumed_keys;
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

#define DDD_PIECE (1u << 18) /* keys sorted at once (sort_level cannot be stopped: 1 to 2 s a piece, at 4 to 7 us a key) */

typedef struct { skey_t *v; uint64_t at, n; uint8_t rec[FC_P64_SIZE]; } ddd_piece;   /* a sorted piece merged */

static int piece_less(const ddd_piece *p, int a, int b) { return memcmp(p[a].rec, p[b].rec, FC_P64_SIZE) < 0; }

static void piece_down(ddd_piece *p, int *heap, int n, int i) {
    for (;;) {
        int l = 2 * i + 1, m = i;
        if (l < n && piece_less(p, heap[l], heap[m])) m = l;
        if (l + 1 < n && piece_less(p, heap[l + 1], heap[m])) m = l + 1;
        if (m == i) return;
        int t = heap[i]; heap[i] = heap[m]; heap[m] = t;
        i = m;
    }
}

/* Sort the first n keys of the buffer by their P64 records and write them to w: pieces of DDD_PIECE keys
   sorted one by one (v: the sort's index, in the buffer past the chunk's keys), then merged (a heap of their
   first records). The run is the one a single sort of the n keys gives (the records are distinct). 0, or
   FC_ESTOPPED (fc_ddd_cancel), FC_ENOMEM, FC_EIO (w->err). */
static int ddd_sort_chunk(fc_ddd *d, uint64_t n, skey_t *v, kwriter *w) {
    uint64_t np = (n + DDD_PIECE - 1) / DDD_PIECE;
    ddd_piece *p = (ddd_piece *)malloc((np ? np : 1) * sizeof *p);
    int *heap = (int *)malloc((np ? np : 1) * sizeof *heap), hn = 0, e = 0;
    if (!p || !heap) { free(p); free(heap); return FC_ENOMEM; }
    for (uint64_t i = 0; i < n; i++) v[i].idx = (uint32_t)i;
    for (uint64_t j = 0; j < np && !e; j++) {
        if (ddd_cancelled(d)) { e = FC_ESTOPPED; break; }
        p[j].v = v + j * DDD_PIECE;
        p[j].n = j + 1 < np ? DDD_PIECE : n - j * DDD_PIECE;
        p[j].at = 0;
        sort_level(ddd_rec, d, p[j].v, p[j].n, 0);
        ddd_rec(d, p[j].v[0].idx, p[j].rec);
        heap[hn++] = (int)j;
    }
    for (int i = hn / 2; i-- > 0 && !e;) piece_down(p, heap, hn, i);
    for (uint64_t put = 0; hn && !e; put++) {
        ddd_piece *q = &p[heap[0]];
        if (kw_put_rec(w, q->rec)) { e = FC_EIO; break; }
        if (++q->at < q->n) ddd_rec(d, q->v[q->at].idx, q->rec);
        else heap[0] = heap[--hn];
        piece_down(p, heap, hn, 0);
        if (put % DDD_POLL == 0 && ddd_cancelled(d)) e = FC_ESTOPPED;
    }
    free(p);
    free(heap);
    return e;
}

/* Sort the first n keys of the buffer into run S<nsorted>. 0 or a negative error. */
static int ddd_flush_p64(fc_ddd *d, uint64_t n, skey_t *v) {
    char path[4200];
    int e = 0;
    fref f = FR(FK_SORTED, d->nsorted);
    uint8_t h[DDD_FHEAD];
    if (ddd_path(d, f, path)) return ddd_fail(d, ENAMETOOLONG);
    kwriter *w = kw_open(path, 1, ddd_head(d, f, h), &e);
    if (!w) return ddd_fail(d, e);
    int s = ddd_sort_chunk(d, n, v, w);
    d->nsorted++;
    uint64_t bytes = 0;
    e = kw_close(w, &bytes);
    if (s == FC_ESTOPPED || s == FC_ENOMEM) { ddd_remove(d, f); return d->status = s; }
    if (ddd_grew(d, f, n, bytes)) return d->status = FC_ENOMEM;
    if (e || s) return ddd_fail(d, e);
    d->sort_runs++;
    return 0;
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

/* Read the next chunk (up to `half` keys) of the visited files f[0 .. nf-1] into the buffer from key st_at
   of file st_file (d->front: open there after the step before; else opened, and the keys before st_at
   skipped); *file, *at: where the chunk ends. The number of keys, or a negative error. */
static int64_t ddd_read_chunk(fc_ddd *d, const fref *f, uint64_t nf, uint64_t half, uint64_t *file, uint64_t *at) {
    uint64_t n = 0, t = d->st_file, skip = d->front.f ? 0 : d->st_at, k0 = d->st_at, seen = 0;
    while (t < nf && n < half) {
        if (!d->front.f) {
            char path[4200];
            uint8_t h[DDD_FHEAD];
            if (ddd_path(d, f[t], path)) return ddd_fail(d, ENAMETOOLONG);
            if (kr_open(&d->front, path, 0, ddd_head(d, f[t], h))) {
                int no = d->front.err; kr_close(&d->front); return ddd_fail(d, no);
            }
        }
        const dkey_t *k;
        uint64_t got = 0;
        while (n < half && (k = kr_peek(&d->front))) {
            if (skip) skip--;
            else { d->buf[n++] = *k; got++; }
            d->front.at++;
            if (++seen % DDD_POLL == 0 && ddd_cancelled(d)) return d->status = FC_ESTOPPED;
        }
        if (n == half) { k0 += got; break; }   /* the file may go on: the reader stays open there */
        int no = d->front.err;
        kr_close(&d->front);
        if (no) return ddd_fail(d, no);
        if (skip) return ddd_fail(d, EIO);    /* fewer keys than the sort state says were read */
        t++;
        k0 = 0;
    }
    *file = t;
    *at = t < nf ? k0 : 0;
    return (int64_t)n;
}

int fc_ddd_sort_step(fc_ddd *d) {
    /* the buffer in two: a chunk of `half` keys, then their sort index (half skey_t's after them: half keys of
       24 bytes and half entries of 16 take at most the buffer's cap * 24 bytes; 24 * half is a multiple of 8,
       skey_t's alignment) */
    uint64_t half = d->cap * sizeof(dkey_t) / (sizeof(dkey_t) + sizeof(skey_t)), file = 0, at = 0;
    skey_t *v = (skey_t *)(void *)((uint8_t *)d->buf + half * sizeof(dkey_t));
    fref f[DDD_MAXF + 2];
    int e = 0;
    if (d->phase == PH_P64) return 0;
    if (d->status != FC_DONE || !half || half > 0xFFFFFFFFull || !d->buf) return FC_ERANGE;
    uint64_t nf = ddd_visited(d, d->nlayers, f);
    if (d->phase != PH_SORT) {     /* the first step: the search's end goes in the sort state */
        d->phase = PH_SORT;
        d->st_file = d->st_at = d->sorted_keys = 0;
        if (d->keep && (e = ddd_sort_checkpoint(d))) return e;
    }
    if (d->st_file < nf) {
        uint64_t from = d->st_file;
        int64_t n = ddd_read_chunk(d, f, nf, half, &file, &at);
        if (n < 0) return (int)n;
        if (n && (e = ddd_flush_p64(d, (uint64_t)n, v))) return e;
        d->st_file = file;
        d->st_at = at;
        d->sorted_keys += (uint64_t)n;
        while (d->nsorted - d->sfirst > DDD_MAXF) {    /* a merge never holds more runs open */
            fref in[DDD_MAXF];
            for (int i = 0; i < DDD_MAXF; i++) in[i] = FR(FK_SORTED, d->sfirst + (uint64_t)i);
            if ((e = ddd_combine(d, in, DDD_MAXF, FR(FK_SORTED, d->nsorted), &d->c, 1))) return e;
            d->sfirst += DDD_MAXF;
            d->nsorted++;
            if (d->keep && (e = ddd_sort_checkpoint(d))) return e;   /* the inputs go once it lists the merge */
            for (int i = 0; i < DDD_MAXF; i++) ddd_remove(d, in[i]);
        }
        if (d->keep && (e = ddd_sort_checkpoint(d))) return e;
        for (uint64_t t = from; t < file && !d->keep; t++) ddd_remove(d, f[t]);   /* read whole, in runs now */
        if (d->st_file < nf) return 1;
    }
    kr_close(&d->front);
    if ((e = ddd_ovf_sort(d))) return d->status = e;
    uint64_t ns = d->nsorted - d->sfirst;
    for (uint64_t i = 0; i < ns; i++) f[i] = FR(FK_SORTED, d->sfirst + i);
    if ((e = km_open(d, &d->sorted, f, ns, &d->c, NULL, 0))) return e;
    d->phase = PH_P64;
    return 0;
}

void fc_ddd_cancel(fc_ddd *d) { __atomic_store_n(&d->cancel, 1, __ATOMIC_RELAXED); }

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

