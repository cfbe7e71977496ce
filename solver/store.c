/* store.c -- the enumeration's store: the arena of keys, the hash table, the parent bitmap, insert. */
#define _DEFAULT_SOURCE           /* madvise's MADV_HUGEPAGE (Linux), besides fc_internal.h's POSIX */
#include "fc_internal.h"
#include <sys/mman.h>

/* A table of `size` slots (at most 2^32), rebuilt from the arena. The old table is freed first (no
   second table in memory); when the new one cannot be had, one of the old size is made again. */
FC_HIDDEN int build_table(fc_search *s, uint64_t size) {
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
FC_HIDDEN void *room_for(void *arr, uint64_t n, uint64_t *cap, size_t elem, uint64_t first, int *err) {
    if (n < *cap) return arr;
    uint64_t ncap = *cap ? *cap * 2 : first;
    char *a = (char *)realloc(arr, ncap * elem);
    if (!a) { *err = FC_ENOMEM; return arr; }
    memset(a + *cap * elem, 0, (ncap - *cap) * elem);
    *cap = ncap;
    return a;
}

/* A block of the arena. An enumeration's blocks of 40-byte keys (2.5 MiB) start on a huge page boundary, and
   their first huge page is asked for where the system has them (Linux's transparent huge pages, MADV_HUGEPAGE):
   one page fault instead of 512 (with 4 KiB pages the faults were about a tenth of deal 11982's search). Not the
   solver's (FC_ORDER_BEST: many small searches) nor the compact blocks (1 MiB). */
#define HUGE_PAGE ((size_t)1 << 21)
static uint8_t *new_block(const fc_search *s) {
    size_t size = ((size_t)1 << BLKBITS) * s->ks;
#if defined(MADV_HUGEPAGE)
    void *p = NULL;
    if (s->order != FC_ORDER_BEST && size >= HUGE_PAGE) {
        if (posix_memalign(&p, HUGE_PAGE, size)) return NULL;
        madvise(p, HUGE_PAGE, MADV_HUGEPAGE);   /* a hint: the block is used the same without it */
        return (uint8_t *)p;
    }
#endif
    return (uint8_t *)malloc(size);
}

FC_HIDDEN int grow_arena(fc_search *s) {
    int e = 0;
    s->blk = (uint8_t **)room_for(s->blk, s->nblk, &s->blkcap, sizeof *s->blk, 16, &e);
    if (e) return e;
    uint8_t *blk = new_block(s);
    if (!blk) return FC_ENOMEM;
    s->blk[s->nblk++] = blk;
    return 0;
}

/* FC_ORDER_BEST: the per-state arrays, grown by doubling */
FC_HIDDEN int grow_best(fc_search *s) {
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
FC_HIDDEN int pbit_push(fc_search *s, int bit) {
    int e = 0;
    if ((s->nbits >> 6) >= s->pbcap) {
        s->pbit = (uint64_t *)room_for(s->pbit, s->nbits >> 6, &s->pbcap, sizeof *s->pbit, 1024, &e);
        if (e) return e;
    }
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

FC_HIDDEN int64_t lookup(const fc_search *s, const fkey_t *k, const ckey_t *ck, uint64_t h) {
    uint64_t p;
    return s->tsize ? probe(s, k, ck, h, &p) : -1;
}

/* The store moves to 16-byte compact keys (docs/ARCHITECTURE.md, "The compact store"): each block of 40-byte
   keys packed in place (key i's 16 bytes go where key i's 40 began, or lower: no key is overwritten before it
   is read) and shrunk, the keys that do not pack to the overflow keys (counted first: their array is had
   before anything changes), then the table rebuilt with the compact keys' hashes. The same states in the
   same order: only their form changes. 0 or FC_ENOMEM. */
FC_HIDDEN int store_compact(fc_search *s) {
    uint64_t over = 0;
    ckey_t ck;
    for (uint64_t i = 0; i < s->count; i++) over += pack_key(&s->c, (const fkey_t *)kptr(s, i), &ck) != 0;
    if (s->novf + over > s->ovfcap) {
        fkey_t *a = (fkey_t *)realloc(s->ovf, (s->novf + over) * sizeof *a);
        if (!a) return FC_ENOMEM;
        s->ovf = a;
        s->ovfcap = s->novf + over;
    }
    for (uint64_t b = 0; b < s->nblk; b++) {
        uint8_t *blk = s->blk[b];
        uint64_t first = b << BLKBITS, n = s->count > first ? s->count - first : 0;
        if (n > (1u << BLKBITS)) n = 1u << BLKBITS;
        for (uint64_t i = 0; i < n; i++) {
            fkey_t k;
            memcpy(&k, blk + i * sizeof(fkey_t), sizeof k);
            if (pack_key(&s->c, &k, &ck)) {
                ck.lo = s->novf;
                ck.hi = OVF;
                s->ovf[s->novf++] = k;
            }
            memcpy(blk + i * sizeof(ckey_t), &ck, sizeof ck);
        }
        uint8_t *small = (uint8_t *)realloc(blk, ((size_t)1 << BLKBITS) * sizeof(ckey_t));
        if (small) s->blk[b] = small;
    }
    s->compact = 1;
    s->ks = sizeof(ckey_t);
    return build_table(s, s->tsize);
}

/* 0: already there; 1: inserted; or FC_LIMIT / FC_ENOMEM */
FC_HIDDEN int insert(fc_search *s, const fkey_t *k, const ckey_t *ck, uint64_t h, uint32_t parent) {
    uint64_t p;
    if (probe(s, k, ck, h, &p) >= 0) return 0;
    return insert_at(s, k, ck, h, parent, p);
}

/* insert of a k that probe did not find, p the free slot it gave: 1 or FC_LIMIT / FC_ENOMEM */
FC_HIDDEN int insert_at(fc_search *s, const fkey_t *k, const ckey_t *ck, uint64_t h, uint32_t parent, uint64_t p) {
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

