/* ddd_internal.h -- what the disk search's files share (docs/ARCHITECTURE.md, "The enumeration on disk",
 * "The files", "Checkpoints"): its limits, its file readers and writers, struct fc_ddd. */
#ifndef DDD_INTERNAL_H
#define DDD_INTERNAL_H
#include "fc_internal.h"
#include <errno.h>
#include <time.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>
#include <dirent.h>
#include <zlib.h>

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
#define DDD_SORT_STATE "sort.state"        /* the sort's state (see "Checkpoints") */
#define DDD_SORT_TMP "sort.state.tmp"
#define DDD_MAXF 32          /* files merged at once (a merge of more is done in passes) */
#define DDD_POLL 65536       /* the sort: keys read, merged or written between two looks at the cancel flag */

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
    /* the overflow set: positions that do not pack into the key, kept whole in memory ("The enumeration on disk") */
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
    uint64_t ck_lfirst, ck_nlayers, ck_nseen;   /* the last checkpoint's files: V<ck_nseen-1>,
                                                   L<ck_lfirst..ck_nlayers-1> */
    uint64_t checkpoints, ck_bytes;             /* checkpoints written, the last one's bytes */
    double ck_seconds;                          /* wall time spent writing them */
    int resumed;             /* 1: made by fc_ddd_resume, from layer resumed_layer */
    uint64_t resumed_layer, resumed_states;
    double prior_seconds;    /* the earlier runs' processor time, up to the checkpoint this one went on from */
    double seconds;          /* processor time in fc_ddd_run this run, up to its last return */
    double run_t0;           /* the process's processor time when the fc_ddd_run call under way began (in_run 1) */
    int in_run;
    uint64_t ck_fnv;         /* the checksum of the last state file written or read (a sort state names it) */
    /* PH_SORT: the sort into P64 order in steps (fc_ddd_sort_step), one S run a step */
    uint64_t st_file, st_at; /* the next chunk begins at key st_at of visited file st_file (ddd_visited's order) */
    uint64_t sorted_keys;    /* keys in the finished S runs */
    uint64_t sort_runs;      /* S runs written from chunks (their merges not counted) */
    uint64_t ck_sfirst, ck_nsorted;  /* the S runs the last sort state lists: S<ck_sfirst> .. S<ck_nsorted-1> */
    int sort_resumed;        /* 1: fc_ddd_resume went on from a sort state, with ... */
    uint64_t sort_resumed_runs, sort_resumed_keys;   /* ... these runs and keys sorted */
    int cancel;              /* set by fc_ddd_cancel (any thread): the sort's step under way stops (FC_ESTOPPED) */
};

enum { PH_EXPAND, PH_MERGE, PH_END, PH_SORT, PH_P64 };


static inline fref FR(int kind, uint64_t idx) { fref f; f.kind = kind; f.idx = idx; return f; }

/* v as `bytes` little-endian bytes at p (the files' heads and block heads, the state file's numbers). */
static inline void put_le(uint8_t *p, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* The 4 bytes at p as a little-endian number. */
static inline uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The 8 bytes at p as a little-endian number. */
static inline uint64_t le64(const uint8_t *p) {
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24
         | (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}

/* ddd_files.c: the files, their readers, writers and merges */
FC_HIDDEN int ddd_path(const fc_ddd *d, fref f, char *path);
FC_HIDDEN const uint8_t *ddd_fhead(uint64_t id, fref f, uint8_t *h);
FC_HIDDEN const uint8_t *ddd_head(const fc_ddd *d, fref f, uint8_t *h);
FC_HIDDEN int ddd_fail(fc_ddd *d, int e);
FC_HIDDEN int kr_open(kreader *r, const char *path, int recs, const uint8_t *head);
FC_HIDDEN void kr_close(kreader *r);
FC_HIDDEN int kr_more(kreader *r);
FC_HIDDEN kwriter *kw_open(const char *path, int recs, const uint8_t *head, int *err);
FC_HIDDEN int kw_put(kwriter *w, const dkey_t *k);
FC_HIDDEN int kw_put_rec(kwriter *w, const uint8_t *rec);
FC_HIDDEN int kw_close(kwriter *w, uint64_t *bytes);
FC_HIDDEN int km_open(fc_ddd *d, kmerge *m, const fref *f, uint64_t count, const ctx_t *c, dkey_t *mem, uint64_t nmem);
FC_HIDDEN void km_close(kmerge *m);
FC_HIDDEN int km_pop(kmerge *m);
FC_HIDDEN int ks_has(kmerge *m, const dkey_t *k, int *err);
FC_HIDDEN int ddd_grew(fc_ddd *d, fref f, uint64_t n, uint64_t bytes);
FC_HIDDEN uint64_t ddd_size(const fc_ddd *d, fref f);
FC_HIDDEN void ddd_remove(fc_ddd *d, fref f);
FC_HIDDEN int ddd_combine(fc_ddd *d, const fref *in, uint64_t count, fref out, const ctx_t *c, int keep_inputs);
FC_HIDDEN int ddd_passes(fc_ddd *d, int kind, uint64_t *first, uint64_t *next, const ctx_t *c);
FC_HIDDEN uint64_t ddd_visited(const fc_ddd *d, uint64_t upto, fref *f);
FC_HIDDEN int ddd_flush_run(fc_ddd *d);
FC_HIDDEN uint64_t dk_sort_unique(dkey_t *v, uint64_t n);
/* ddd_search.c */
FC_HIDDEN fc_ddd *ddd_make(const fc_pos *start, const fc_rules *r, const char *dir, uint64_t mem, uint64_t max_states,
                           int stop_on_win, int key_bits, int keep, int *err);
FC_HIDDEN int ddd_open_front(fc_ddd *d);
FC_HIDDEN int ddd_ovf_add(fc_ddd *d, const fkey_t *k);
/* ddd_state.c: checkpoints */
FC_HIDDEN double ddd_now(void);
FC_HIDDEN double ddd_cpu_now(void);
FC_HIDDEN int ddd_layer_done(fc_ddd *d);
FC_HIDDEN int ddd_listed(const fc_ddd *d, fref f);
FC_HIDDEN int ddd_state_path(const fc_ddd *d, const char *name, char *path);
FC_HIDDEN int ddd_sort_checkpoint(fc_ddd *d);

/* Whether fc_ddd_cancel was called (from another thread: read atomically). */
static inline int ddd_cancelled(const fc_ddd *d) { return __atomic_load_n(&d->cancel, __ATOMIC_RELAXED); }

/* The reader's current key, or NULL at the end (r->err set when a read failed). */
static inline const dkey_t *kr_peek(kreader *r) {
    if (r->at < r->n) return &r->buf[r->at];
    return kr_more(r) ? &r->buf[0] : NULL;
}

static inline const dkey_t *km_peek(const kmerge *m) {
    return m->hn ? &m->r[m->heap[0]].buf[m->r[m->heap[0]].at] : NULL;
}

#endif
