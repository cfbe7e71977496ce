/* records.c -- P64 records in a buffer: sorted (a radix sort on their bytes), gathered in an order, and sorted
   runs of them merged into one ascending stream without repeats. The certificates' order is the records'
   bytewise order; the in-memory search's records (fc_search_sort_records) and a certificate up to column order
   (certgen/upto.py: runs put into the checkers' column order, sorted, merged) are put in it here. */
#include "fc_internal.h"

/* v[0..n) (keys: bytes off..off+7 of their records in buf) by their records from byte off on. */
static void insertion_p64(const uint8_t *buf, skey_t *v, uint64_t n, int off) {
    for (uint64_t i = 1; i < n; i++) {
        skey_t x = v[i];
        uint64_t j = i;
        for (; j > 0; j--) {
            const skey_t *y = &v[j - 1];
            if (y->key < x.key) break;
            if (y->key == x.key && (off + 8 >= FC_P64_SIZE ||
                memcmp(buf + (size_t)y->idx * FC_P64_SIZE + off + 8, buf + (size_t)x.idx * FC_P64_SIZE + off + 8,
                       (size_t)(FC_P64_SIZE - off - 8)) <= 0)) break;
            v[j] = *y;
        }
        v[j] = x;
    }
}

#define RADIX_SMALL 48

/* v[0..n) by their records in buf, from byte off + byte on (the bytes before it are equal in all): a most
   significant digit first radix sort in place, one byte a pass (the bytes the same in all skipped after one
   look at the keys), keys reloaded eight bytes further on where the eight agree, the small groups by
   insertion. */
static void radix_p64(const uint8_t *buf, skey_t *v, uint64_t n, int off, int byte) {
    for (;;) {
        if (n <= RADIX_SMALL) { insertion_p64(buf, v, n, off); return; }
        if (byte == 8) {
            off += 8;
            if (off >= FC_P64_SIZE) return;        /* equal records: none in a search */
            for (uint64_t i = 0; i < n; i++) {
                if (i + 8 < n) PREFETCH(buf + (size_t)v[i + 8].idx * FC_P64_SIZE + off);
                v[i].key = be8(buf + (size_t)v[i].idx * FC_P64_SIZE + off);
            }
            byte = 0;
        }
        uint64_t differ = 0;                       /* the bytes where some key differs from the first */
        for (uint64_t i = 1; i < n; i++) differ |= v[i].key ^ v[0].key;
        if (differ << 8 * byte == 0) { byte = 8; continue; }
        while (!(differ >> (56 - 8 * byte) & 255)) byte++;     /* the bytes the same in all: no pass */
        int shift = 56 - 8 * byte;
        uint64_t first[256] = {0}, next[256];
        for (uint64_t i = 0; i < n; i++) first[v[i].key >> shift & 255]++;
        uint64_t at = 0;
        for (int d = 0; d < 256; d++) {
            uint64_t k = first[d];
            first[d] = next[d] = at;
            at += k;
        }
        for (int d = 0; d < 256; d++) {   /* each element to its digit's bucket, in cycles */
            uint64_t end = d == 255 ? n : first[d + 1];
            while (next[d] < end) {
                skey_t x = v[next[d]];
                int e = (int)(x.key >> shift & 255);
                while (e != d) {
                    skey_t y = v[next[e]];
                    v[next[e]++] = x;
                    x = y;
                    e = (int)(x.key >> shift & 255);
                }
                v[next[d]++] = x;
            }
        }
        for (int d = 0; d < 256; d++) {
            uint64_t end = d == 255 ? n : first[d + 1];
            if (end - first[d] > 1) radix_p64(buf, v + first[d], end - first[d], off, byte + 1);
        }
        return;
    }
}

int fc_p64_order(const uint8_t *recs, uint64_t n, uint32_t *order) {
    if (n > UINT32_MAX) return FC_ERANGE;
    skey_t *v = (skey_t *)malloc((size_t)(n ? n : 1) * sizeof *v);
    if (!v) return FC_ENOMEM;
    for (uint64_t i = 0; i < n; i++) {
        v[i].idx = (uint32_t)i;
        v[i].key = be8(recs + i * FC_P64_SIZE);
    }
    radix_p64(recs, v, n, 0, 0);
    for (uint64_t i = 0; i < n; i++) order[i] = v[i].idx;
    free(v);
    return 0;
}

void fc_p64_gather(const uint8_t *recs, const uint32_t *idx, uint64_t count, uint8_t *out) {
    for (uint64_t i = 0; i < count; i++) {
        if (i + 8 < count) PREFETCH(recs + (size_t)idx[i + 8] * FC_P64_SIZE);
        memcpy(out + i * FC_P64_SIZE, recs + (size_t)idx[i] * FC_P64_SIZE, FC_P64_SIZE);
    }
}

/* Run r's next record. */
static inline const uint8_t *run_next(const fc_run *r) {
    return r->rec + (size_t)(r->idx ? r->idx[r->at] : r->at) * FC_P64_SIZE;
}

/* Is run a's next record below run b's (ties: the lower run first)? */
static inline int run_below(const fc_run *r, int a, int b) {
    int c = memcmp(run_next(&r[a]), run_next(&r[b]), FC_P64_SIZE);
    return c < 0 || (c == 0 && a < b);
}

static void sift_down(const fc_run *r, int *heap, int n, int i) {
    for (;;) {
        int l = 2 * i + 1, m = i;
        if (l < n && run_below(r, heap[l], heap[m])) m = l;
        if (l + 1 < n && run_below(r, heap[l + 1], heap[m])) m = l + 1;
        if (m == i) return;
        int t = heap[i]; heap[i] = heap[m]; heap[m] = t;
        i = m;
    }
}

int64_t fc_p64_merge(fc_run *runs, int k, uint8_t *last, int *has_last, uint8_t *out, uint64_t cap) {
    if (k <= 0) return 0;
    for (int i = 0; i < k; i++) if (runs[i].at >= runs[i].len) return 0;
    int *heap = (int *)malloc((size_t)k * sizeof *heap);
    if (!heap) return FC_ENOMEM;
    for (int i = 0; i < k; i++) heap[i] = i;
    for (int i = k / 2 - 1; i >= 0; i--) sift_down(runs, heap, k, i);
    uint64_t n = 0;
    while (n < cap) {
        fc_run *r = &runs[heap[0]];
        const uint8_t *rec = run_next(r);
        if (r->idx && r->at + 8 < r->len) PREFETCH(r->rec + (size_t)r->idx[r->at + 8] * FC_P64_SIZE);
        if (!*has_last || memcmp(rec, last, FC_P64_SIZE) != 0) {
            memcpy(out + n * FC_P64_SIZE, rec, FC_P64_SIZE);
            memcpy(last, rec, FC_P64_SIZE);
            *has_last = 1;
            n++;
        }
        if (++r->at == r->len) break;          /* its buffer used up: the caller refills it or drops the run */
        sift_down(runs, heap, k, 0);
    }
    free(heap);
    return (int64_t)n;
}
