/* ddd_state.c -- the disk search's checkpoints (docs/ARCHITECTURE.md, "Checkpoints"): the state file written
   and read back (fc_ddd_keep, fc_ddd_resume). */
#include "fc_internal.h"
#include "ddd_internal.h"

static const char DDD_MAGIC[8] = {'F', 'C', 'D', 'D', 'D', 'S', 'T', '1'};
#define DDD_MAX_USEC (1ull << 53)   /* a search's time so far in a state file at most (285 years of microseconds):
                                       the total written back stays exact and far below 2^64 */
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

FC_HIDDEN double ddd_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The processor time of the process so far, every thread's (the search's seconds: a ledger row's seconds are
   processor time, which a busy machine does not stretch). */
FC_HIDDEN double ddd_cpu_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The search's processor time over its runs: the earlier runs' (to the checkpoint this run went on from) and this
   one's in fc_ddd_run so far. */
static double ddd_total_seconds(const fc_ddd *d) {
    return d->prior_seconds + d->seconds + (d->in_run ? ddd_cpu_now() - d->run_t0 : 0.0);
}

FC_HIDDEN int ddd_state_path(const fc_ddd *d, const char *name, char *path) {
    int n = snprintf(path, 4200, "%s/%s", d->dir, name);
    return n > 0 && n < 4200 ? 0 : FC_EIO;
}

/* The live files between layers: V<nseen-1> and L<lfirst> .. L<cur> (ddd_visited). */
static uint64_t ddd_live(const fc_ddd *d, fref *f) { return ddd_visited(d, d->cur, f); }

/* File f's bytes on the disk (fsync'd before a state lists it) and its size into *size: 0 or an errno. */
static int ddd_sync(const fc_ddd *d, fref f, uint64_t *size) {
    char path[4200];
    struct stat st;
    if (ddd_path(d, f, path)) return ENAMETOOLONG;
    int fd = open(path, O_RDONLY), no = 0;
    if (fd < 0 || fsync(fd) || fstat(fd, &st)) no = errno ? errno : EIO;
    if (fd >= 0) close(fd);
    *size = no ? 0 : (uint64_t)st.st_size;
    return no;
}

/* Write b (its checksum appended: then *fnv) as the state file `name` of the folder, atomically: into `tmp`,
   fsync'd, renamed, the folder fsync'd. 0 or an errno (after the rename: the new state is in place). */
static int ddd_put_state(const fc_ddd *d, sbuf *b, const char *name, const char *tmpname, uint64_t *fnv, int *renamed) {
    char path[4200], tmp[4200];
    *fnv = fnv64(b->p, b->n);
    sb_u64(b, *fnv);
    *renamed = 0;
    if (b->err) return ENOMEM;
    if (ddd_state_path(d, tmpname, tmp) || ddd_state_path(d, name, path)) return ENAMETOOLONG;
    FILE *o = fopen(tmp, "wb");
    int e = o ? 0 : (errno ? errno : EIO);
    if (o && fwrite(b->p, 1, b->n, o) != b->n) e = errno ? errno : EIO;
    if (o && fflush(o) && !e) e = errno ? errno : EIO;
    if (o && fsync(fileno(o)) && !e) e = errno ? errno : EIO;
    if (o && fclose(o) && !e) e = errno ? errno : EIO;
    if (!e && rename(tmp, path)) e = errno ? errno : EIO;
    if (e) { remove(tmp); return e; }
    *renamed = 1;
    int fd = open(d->dir, O_RDONLY);   /* the rename itself reaches the disk */
    if (fd < 0 || fsync(fd)) e = errno ? errno : EIO;
    if (fd >= 0) close(fd);
    return e;
}

/* Write the state file (between layers only). 0 or a negative error (FC_EIO: errno in sys_errno). */
static int ddd_checkpoint(fc_ddd *d) {
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
        uint64_t size;
        int no = ddd_sync(d, f[i], &size);
        if (no) { free(b.p); return ddd_fail(d, no); }
        sb_u64(&b, (uint64_t)f[i].kind);
        sb_u64(&b, f[i].idx);
        sb_u64(&b, ddd_size(d, f[i]));
        sb_u64(&b, size);
    }
    sb_u64(&b, d->novf);
    for (uint64_t i = 0; i < d->novf; i++) sb_key(&b, &d->ovf[i]);
    for (uint64_t l = 0; l <= d->cur + 1; l++) sb_u64(&b, d->ovl[l]);
    int renamed, e = ddd_put_state(d, &b, DDD_STATE, DDD_STATE_TMP, &d->ck_fnv, &renamed);
    size_t bytes = b.n;
    free(b.p);
    if (e == ENOMEM && !renamed) return d->status = FC_ENOMEM;
    if (renamed) {                 /* the new state is in place: its files are the ones to keep */
        d->ck_lfirst = d->lfirst;
        d->ck_nlayers = d->cur + 1;
        d->ck_nseen = d->nseen;
        d->checkpoints++;
        d->ck_bytes = bytes;
    }
    d->ck_seconds += ddd_now() - t0;
    return e ? ddd_fail(d, e) : 0;
}

static const char DDD_SORT_MAGIC[8] = {'F', 'C', 'D', 'D', 'S', 'O', 'R', 'T'};
#define DDD_SORT_VERSION 1u
#define DDD_SORT_MAX (1u << 16)    /* a sort state's bytes at most (it lists DDD_MAXF runs at most) */

/* Write the sort state (fc_ddd_sort_step, keep mode): the search state it follows (its checksum), the ended
   search's counters, where the next chunk begins, the live S runs with their records and bytes (fsync'd).
   0 or a negative error. */
FC_HIDDEN int ddd_sort_checkpoint(fc_ddd *d) {
    sbuf b;
    memset(&b, 0, sizeof b);
    sb_put(&b, DDD_SORT_MAGIC, 8);
    uint64_t head[] = {DDD_SORT_VERSION, d->id, d->ck_fnv, d->expanded, d->generated, d->runs_total, d->disk_peak,
                       (uint64_t)(ddd_total_seconds(d) * 1e6), d->cur, d->nlayers, d->st_file, d->st_at,
                       d->sorted_keys, d->sort_runs, d->sfirst, d->nsorted};
    for (size_t i = 0; i < sizeof head / sizeof head[0]; i++) sb_u64(&b, head[i]);
    for (uint64_t i = d->sfirst; i < d->nsorted; i++) {
        uint64_t size;
        int no = ddd_sync(d, FR(FK_SORTED, i), &size);
        if (no) { free(b.p); return ddd_fail(d, no); }
        sb_u64(&b, ddd_size(d, FR(FK_SORTED, i)));
        sb_u64(&b, size);
    }
    uint64_t fnv;
    int renamed, e = ddd_put_state(d, &b, DDD_SORT_STATE, DDD_SORT_TMP, &fnv, &renamed);
    free(b.p);
    if (e == ENOMEM && !renamed) return d->status = FC_ENOMEM;
    if (renamed) {
        d->ck_sfirst = d->sfirst;
        d->ck_nsorted = d->nsorted;
    }
    return e ? ddd_fail(d, e) : 0;
}

/* Whether f is one of the last checkpoint's files (kept by fc_ddd_free in keep mode). */
FC_HIDDEN int ddd_listed(const fc_ddd *d, fref f) {
    if (d->keep != 1) return 0;
    if (f.kind == FK_SEEN) return d->ck_nseen && f.idx == d->ck_nseen - 1;
    if (f.kind == FK_SORTED) return f.idx >= d->ck_sfirst && f.idx < d->ck_nsorted;
    return f.kind == FK_LAYER && f.idx >= d->ck_lfirst && f.idx < d->ck_nlayers;
}

/* Layer cur's merge is done and its expansion about to begin: when more than DDD_MAXF layer files would be
   visited by its merge, the older ones are merged into one file V; in keep mode a checkpoint is written, and
   only then are the merged inputs removed (the previous state file lists them). */
FC_HIDDEN int ddd_layer_done(fc_ddd *d) {
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
        if (!ddd_state_path(d, DDD_SORT_STATE, path)) remove(path);
        if (!ddd_state_path(d, DDD_STATE, path)) remove(path);
        return 0;
    }
    if (!d->between || d->phase != PH_EXPAND || d->status != FC_RUNNING || d->has_target) return FC_ERANGE;
    d->keep = 1;
    int e = ddd_checkpoint(d);
    if (e) d->keep = 0;
    return e;
}

/* The rules in words, for a message (into buf, which it returns): solver.rules.Rules.words joined with ", ",
   word for word ("1 free cell, nothing back from the foundations, up to column order"; tests/solver/test_ddd_state.py
   compares them for every mode the disk search takes). */
static const char *rules_words(const fc_rules *r, char *buf, size_t n) {
    static const char *const autoplay[] = {NULL, "safe automatic moves", "horne automatic moves",
                                           "twos automatic moves", "all automatic moves"};
    int k = snprintf(buf, n, "%d free cell%s, %s", r->cells, r->cells == 1 ? "" : "s",
                     r->foundation_return ? "foundation returns allowed" : "nothing back from the foundations");
    const char *more[] = {r->canonical ? "up to column order" : NULL,
                          r->autoplay > 0 && r->autoplay <= FC_AUTOPLAY_ALL ? autoplay[r->autoplay] : NULL,
                          r->supermoves ? "supermoves" : NULL};
    for (size_t i = 0; i < sizeof more / sizeof *more; i++)
        if (more[i] && k >= 0 && (size_t)k < n) k += snprintf(buf + k, n - (size_t)k, ", %s", more[i]);
    return buf;                 /* no favor of the hand: the disk search refuses it (FC_EBADRULES) */
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
    d->ck_fnv = fnv64(p, n - 8);
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
    uint64_t usec = sr_u64(&r);
    d->prior_seconds = (double)usec / 1e6;
    if (r.bad) return ddd_why(why, whylen, FC_ESTATE, "%s: cut short", DDD_STATE);
    if (memcmp(&start, &d->start, sizeof start))
        return ddd_why(why, whylen, FC_EOTHER, "it holds the search of another start position");
    if (memcmp(&rules, &d->rules, sizeof rules)) {
        char there[200], asked[200];
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
    if (r.bad || usec > DDD_MAX_USEC || head[9] > 52 || head[10] > 1 || head[11] > 1 || d->nlayers != d->cur + 1
        || d->lfirst > d->cur
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

/* The file `name` of the folder read whole into *p (a regular file of at most `most` bytes): its size, or -1
   with a reason in why (code FC_ESTATE, or FC_EOVERFLOW when it is bigger), -2 when it is missing. */
static long ddd_read_state(const fc_ddd *d, const char *name, uint64_t most, uint8_t **p, int *code, char *why,
                           uint64_t whylen) {
    char path[4200];
    struct stat st;
    long size = -1;
    FILE *f = NULL;
    *p = NULL;
    *code = FC_ESTATE;
    if (ddd_state_path(d, name, path) || stat(path, &st))
        return ddd_why(why, whylen, -2, "%s: cannot be read (missing?)", name);
    if (!S_ISREG(st.st_mode)) return ddd_why(why, whylen, -1, "%s: not a regular file", name);
    if ((uint64_t)st.st_size > most) {
        *code = FC_EOVERFLOW;
        return ddd_why(why, whylen, -1, "%s: %llu bytes, more than the overflow set of this --memory holds", name,
                       (unsigned long long)st.st_size);
    }
    if ((f = fopen(path, "rb")) && (*p = (uint8_t *)malloc(st.st_size ? (size_t)st.st_size : 1))
        && fread(*p, 1, (size_t)st.st_size, f) == (size_t)st.st_size) size = (long)st.st_size;   /* stat's size */
    if (f) fclose(f);
    return size < 0 ? ddd_why(why, whylen, -1, "%s: cannot be read", name) : size;
}

/* Whether S run i of the sort state is in the folder with `bytes` bytes and this search's head; else a reason
   in why. */
static int ddd_run_there(const fc_ddd *d, uint64_t i, uint64_t bytes, char *why, uint64_t whylen) {
    char path[4200];
    struct stat st;
    uint8_t h[DDD_FHEAD], want[DDD_FHEAD];
    if (ddd_path(d, FR(FK_SORTED, i), path)) return 0;
    const char *name = strrchr(path, '/') + 1;
    if (stat(path, &st)) return ddd_why(why, whylen, 0, "%s is missing (%s lists it)", name, DDD_SORT_STATE);
    if ((uint64_t)st.st_size != bytes)
        return ddd_why(why, whylen, 0, "%s has %llu bytes, %s says %llu", name, (unsigned long long)st.st_size,
                       DDD_SORT_STATE, (unsigned long long)bytes);
    FILE *fh = fopen(path, "rb");
    size_t got = fh ? fread(h, 1, DDD_FHEAD, fh) : 0;
    if (fh) fclose(fh);
    if (got != DDD_FHEAD || memcmp(h, ddd_head(d, FR(FK_SORTED, i), want), DDD_FHEAD))
        return ddd_why(why, whylen, 0, "%s is not this search's run of that name", name);
    return 1;
}

/* Whether the folder holds a sorted run of this search (its head names it): a sort begun without a sort
   state (by a version of this program that wrote none), so after the search's end. */
static int ddd_sort_begun(const fc_ddd *d) {
    char path[4200];
    fref f;
    int found = 0;
    DIR *dh = opendir(d->dir);
    struct dirent *ent;
    while (dh && !found && (ent = readdir(dh))) {
        uint8_t h[DDD_FHEAD], want[DDD_FHEAD];
        if (!ddd_own_name(ent->d_name, &f) || f.kind != FK_SORTED || ddd_path(d, f, path)) continue;
        FILE *fh = fopen(path, "rb");
        found = fh && fread(h, 1, DDD_FHEAD, fh) == DDD_FHEAD && !memcmp(h, ddd_head(d, f, want), DDD_FHEAD);
        if (fh) fclose(fh);
    }
    if (dh) closedir(dh);
    return found;
}

/* The search ended (its state's next layer added nothing); its sort starts from its first run: 1. */
static int ddd_sort_afresh(fc_ddd *d) {
    d->cur++;
    d->status = FC_DONE;
    d->phase = PH_END;             /* the first step writes the sort state anew */
    d->sort_resumed = 1;
    return 1;
}

/* After the search state: the sort state, when the folder has one. 1: the search had ended; the sort goes on
   from its last finished run (or from its first when a run it lists is not there as listed: why says so).
   0: no sort state, or one that does not hold together with the search state (why says so; the search goes
   on from its state). With no sort state, or one that does not hold together, but a run of this search's sort
   in the folder (the search had ended): 1, the sort from its first run. Or FC_ENOMEM. */
static int ddd_sort_restore(fc_ddd *d, char *why, uint64_t whylen) {
    uint8_t *p = NULL;
    int code;
    char note[300];
    long n = ddd_read_state(d, DDD_SORT_STATE, DDD_SORT_MAX, &p, &code, note, sizeof note);
    if (n == -2 && !ddd_sort_begun(d)) return 0;
    if (n == -2) {
        ddd_why(why, whylen, 0, "its sort had begun with no %s: the search had ended; the sort starts again",
                DDD_SORT_STATE);
        return ddd_sort_afresh(d);
    }
    sread r = {p, n < 0 ? 0 : (size_t)n, 0, 0};
    uint64_t h[16], want = 0;
    fref f[DDD_MAXF + 2];
    const char *bad = n < 0 ? note : NULL;
    if (!bad && (n < 16 || memcmp(p, DDD_SORT_MAGIC, 8))) bad = "not a sort state";
    if (!bad && fnv64(p, (size_t)n - 8) != (r.at = (size_t)n - 8, sr_u64(&r))) bad = "damaged (its checksum does not match)";
    r.at = 8;
    r.n = n < 8 ? 0 : (size_t)n - 8;
    for (int i = 0; i < 16 && !bad; i++) h[i] = sr_u64(&r);
    if (!bad && (r.bad || h[0] != DDD_SORT_VERSION)) bad = "written by another version of this program";
    if (!bad && (h[1] != d->id || h[2] != d->ck_fnv)) bad = "it follows another state of the search";
    uint64_t nf = bad ? 0 : ddd_visited(d, d->nlayers, f);
    for (uint64_t t = 0; t < nf && t < h[10]; t++) want += ddd_size(d, f[t]);
    if (!bad && (h[7] > DDD_MAX_USEC || h[8] != d->cur + 1 || h[9] != d->nlayers || h[10] > nf || (h[10] < nf && h[11] > ddd_size(d, f[h[10]]))
                 || (h[10] == nf && h[11]) || h[12] != want + h[11] || h[14] > h[15] || h[15] - h[14] > DDD_MAXF
                 || h[15] >= 1000000 || r.n - r.at != 16 * (h[15] - h[14])))
        bad = "its counters do not hold together";
    if (bad) {                     /* a run of this search's sort still says the search had ended */
        int begun = ddd_sort_begun(d);
        ddd_why(why, whylen, 0, begun ? "%s: %s: the sort starts again" : "%s: %s: the search goes on from its "
                "state (its last layer again) and sorts again", DDD_SORT_STATE, bad);
        free(p);
        return begun ? ddd_sort_afresh(d) : 0;
    }
    d->expanded = h[3]; d->generated = h[4]; d->runs_total = h[5]; d->disk_peak = h[6];
    d->prior_seconds = (double)h[7] / 1e6;
    ddd_sort_afresh(d);            /* cur is h[8] */
    uint64_t keys = 0;
    int there = 1, e = 0;
    for (uint64_t i = h[14]; i < h[15] && there; i++) {
        uint64_t recs = sr_u64(&r), bytes = sr_u64(&r);
        there = ddd_run_there(d, i, bytes, note, sizeof note);
        keys += recs;
        if (there && (e = ddd_grew(d, FR(FK_SORTED, i), recs, bytes))) break;
    }
    free(p);
    if (e) return FC_ENOMEM;
    if (there && keys != h[12]) there = ddd_why(note, sizeof note, 0, "its runs do not hold its positions");
    if (!there) {                  /* from its first run */
        for (uint64_t i = h[14]; i < h[15]; i++) ddd_remove(d, FR(FK_SORTED, i));
        ddd_why(why, whylen, 0, "%s: %s: the sort starts again", DDD_SORT_STATE, note);
        return 1;
    }
    d->phase = PH_SORT;            /* or from where it was */
    d->st_file = h[10]; d->st_at = h[11]; d->sorted_keys = h[12]; d->sort_runs = h[13];
    d->sfirst = d->ck_sfirst = h[14];
    d->nsorted = d->ck_nsorted = h[15];
    d->sort_resumed = 1;
    d->sort_resumed_runs = d->sort_runs;
    d->sort_resumed_keys = d->sorted_keys;
    return 1;
}

/* Remove the folder's files of the search that the state does not list (runs, a half-written layer, P64
   runs, a merge into V not finished, the states' temporary files). */
static int ddd_sweep(fc_ddd *d) {
    char path[4200];
    fref live[DDD_MAXF + 2], f;
    uint64_t n = ddd_live(d, live);
    DIR *dh = opendir(d->dir);
    if (!dh) return ddd_fail(d, errno);
    struct dirent *ent;
    while ((ent = readdir(dh))) {
        int listed = 0, own = ddd_own_name(ent->d_name, &f);
        if (!own && strcmp(ent->d_name, DDD_STATE_TMP) && strcmp(ent->d_name, DDD_SORT_TMP)) continue;   /* not the
                                                                                              search's: left alone */
        for (uint64_t i = 0; own && i < n; i++) listed |= live[i].kind == f.kind && live[i].idx == f.idx;
        listed |= own && f.kind == FK_SORTED && f.idx >= d->ck_sfirst && f.idx < d->ck_nsorted;
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
    int e = 0, code, sorting = 0;  /* a regular file (not a folder, not a pipe), no bigger than the overflow set
                                      this --memory allows needs (72 bytes a position written), read whole */
    long size = ddd_read_state(d, DDD_STATE, (1u << 20) + 2 * d->ovf_limit, &p, &code, why, whylen);
    e = size < 0 ? code : ddd_restore(d, p, (size_t)size, key_bits, why, whylen);
    free(p);
    if (!e && (sorting = ddd_sort_restore(d, why, whylen)) < 0) e = sorting;
    if (!e) e = ddd_sweep(d);
    if (!e && !sorting) {          /* a sort state that is not gone on with goes */
        if (!ddd_state_path(d, DDD_SORT_STATE, path)) remove(path);
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
    d->ck_nlayers = d->nlayers;
    d->ck_nseen = d->nseen;
    *err = 0;
    return d;
}

