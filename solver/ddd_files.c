/* ddd_files.c -- the disk search's files (docs/ARCHITECTURE.md, "The files"): key sorting, readers,
   writers, merges, the layers' bookkeeping. */
#include "fc_internal.h"
#include "ddd_internal.h"

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
FC_HIDDEN uint64_t dk_sort_unique(dkey_t *v, uint64_t n) {
    uint64_t m = 0;
    dk_sort(v, n);
    for (uint64_t i = 0; i < n; i++) if (!m || !dk_same(&v[i], &v[m - 1])) v[m++] = v[i];
    return m;
}

FC_HIDDEN int ddd_path(const fc_ddd *d, fref f, char *path) {
    int n = snprintf(path, 4200, "%s/%c%06llu.keys", d->dir, FK_NAME[f.kind], (unsigned long long)f.idx);
    return n > 0 && n < 4200 ? 0 : FC_EIO;
}



/* The head of file f of the search `id` into h (DDD_FHEAD bytes; see "The files"), and h. */
FC_HIDDEN const uint8_t *ddd_fhead(uint64_t id, fref f, uint8_t *h) {
    memcpy(h, DDD_FMAGIC, 4);
    put_le(h + 4, DDD_FVERSION, 4);
    put_le(h + 8, id, 8);
    put_le(h + 16, (uint64_t)(uint8_t)FK_NAME[f.kind], 8);
    put_le(h + 24, f.idx, 8);
    return h;
}

/* The head of one of the search's files. */
FC_HIDDEN const uint8_t *ddd_head(const fc_ddd *d, fref f, uint8_t *h) { return ddd_fhead(d->id, f, h); }

FC_HIDDEN int ddd_fail(fc_ddd *d, int e) {
    if (!d->sys_errno) d->sys_errno = e ? e : EIO;
    return d->status = FC_EIO;
}

FC_HIDDEN void kr_close(kreader *r) {
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
FC_HIDDEN int kr_open(kreader *r, const char *path, int recs, const uint8_t *head) {
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
FC_HIDDEN int kr_more(kreader *r) {
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


/* A new file of keys (recs 0) or records (recs 1), beginning with `head` (DDD_FHEAD bytes); NULL with *err an
   errno on failure. */
FC_HIDDEN kwriter *kw_open(const char *path, int recs, const uint8_t *head, int *err) {
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
FC_HIDDEN int kw_put(kwriter *w, const dkey_t *k) {
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
FC_HIDDEN int kw_put_rec(kwriter *w, const uint8_t *rec) {
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
FC_HIDDEN int kw_close(kwriter *w, uint64_t *bytes) {
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

FC_HIDDEN void km_close(kmerge *m) {
    for (int i = 0; i < m->n; i++) kr_close(&m->r[i]);
    free(m->r);
    free(m->heap);
    memset(m, 0, sizeof *m);
}

/* Open the files f[0 .. count-1] for a merge (c: in P64 order), and with them the sorted keys mem[0 .. nmem-1]
   when mem is not NULL (a run kept in memory: a source like the files); 0 or a negative error. */
FC_HIDDEN int km_open(fc_ddd *d, kmerge *m, const fref *f, uint64_t count, const ctx_t *c, dkey_t *mem, uint64_t nmem) {
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


/* Advance past the smallest key; 0 or the errno of a failed read. */
FC_HIDDEN int km_pop(kmerge *m) {
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
FC_HIDDEN int ks_has(kmerge *m, const dkey_t *k, int *err) {
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
FC_HIDDEN int ddd_grew(fc_ddd *d, fref f, uint64_t n, uint64_t bytes) {
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

FC_HIDDEN uint64_t ddd_size(const fc_ddd *d, fref f) {
    return f.idx < d->fcap[f.kind] ? d->fsz[f.kind][f.idx] : 0;
}

FC_HIDDEN void ddd_remove(fc_ddd *d, fref f) {
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
FC_HIDDEN int ddd_combine(fc_ddd *d, const fref *in, uint64_t count, fref out, const ctx_t *c, int keep_inputs) {
    char path[4200];
    kmerge m;
    int e = 0;
    if (ddd_path(d, out, path)) return ddd_fail(d, ENAMETOOLONG);
    if ((e = km_open(d, &m, in, count, c, NULL, 0))) return e;
    uint8_t h[DDD_FHEAD];
    kwriter *w = kw_open(path, c != NULL, ddd_head(d, out, h), &e);
    if (!w) { km_close(&m); return ddd_fail(d, e); }
    dkey_t last = {0, 0, 0};
    uint64_t n = 0, bytes = 0, pops = 0;
    while (m.hn) {
        const kreader *r = &m.r[m.heap[0]];
        if (++pops % DDD_POLL == 0 && ddd_cancelled(d)) {      /* the sort stopped (fc_ddd_cancel) */
            km_close(&m);
            kw_close(w, NULL);
            ddd_remove(d, out);
            return d->status = FC_ESTOPPED;
        }
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
FC_HIDDEN int ddd_passes(fc_ddd *d, int kind, uint64_t *first, uint64_t *next, const ctx_t *c) {
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
FC_HIDDEN uint64_t ddd_visited(const fc_ddd *d, uint64_t upto, fref *f) {
    uint64_t n = 0;
    if (d->nseen) f[n++] = FR(FK_SEEN, d->nseen - 1);
    for (uint64_t l = d->lfirst; l <= upto && l < d->nlayers; l++) f[n++] = FR(FK_LAYER, l);
    return n;
}

/* Sort the buffer, drop its duplicates, write it as run R<nruns>. */
FC_HIDDEN int ddd_flush_run(fc_ddd *d) {
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
