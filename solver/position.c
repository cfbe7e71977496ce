/* position.c -- positions: the checks, P64 in and out, the checkers' column order, the deals. */
#include "fc_internal.h"

/* ---- positions ---- */
int fc_pos_check(const fc_pos *p, int max_cells) {
    int seen[52] = {0};
    if (max_cells < 0 || max_cells > FC_MAX_CELLS) max_cells = FC_MAX_CELLS;
    for (int s = 0; s < 4; s++) if (p->home[s] > 13) return FC_EBADPOS;
    for (int i = 0; i < 8; i++) {
        if (p->len[i] > FC_MAX_COL) return FC_EBADPOS;
        for (int k = 0; k < p->len[i]; k++) {
            int x = p->col[i][k];
            if (x >= 52 || seen[x]) return FC_EBADPOS;
            seen[x] = 1;
        }
    }
    if (p->ncells > max_cells) return FC_EBADPOS;
    for (int k = 0; k < p->ncells; k++) {
        int x = p->cells[k];
        if (x >= 52 || seen[x]) return FC_EBADPOS;
        if (k > 0 && p->cells[k - 1] >= x) return FC_EBADPOS;
        seen[x] = 1;
    }
    for (int x = 0; x < 52; x++) {
        int athome = rank0(x) + 1 <= p->home[suit(x)];
        if (athome == seen[x]) return FC_EBADPOS;   /* exactly one of: on the board, at home */
    }
    return 0;
}

int fc_pos_to_p64(const fc_pos *p, uint8_t *out) {
    if (fc_pos_check(p, FC_MAX_CELLS)) return FC_EBADPOS;
    int o = 0;
    memset(out, 0, FC_P64_SIZE);
    for (int i = 0; i < 8; i++) {
        for (int k = 0; k < p->len[i]; k++) out[o++] = (uint8_t)(p->col[i][k] + 1);
        out[o++] = 0;
    }
    for (int k = 0; k < p->ncells; k++) out[o++] = (uint8_t)(p->cells[k] + 1);
    return 0;
}

int fc_p64_to_pos(const uint8_t *in, fc_pos *p) {
    int o = 0, cnt[4] = {0, 0, 0, 0};
    memset(p, 0, sizeof *p);
    for (int i = 0; i < 8; i++) {
        while (o < FC_P64_SIZE && in[o]) {
            if (p->len[i] >= FC_MAX_COL || in[o] > 52) return FC_EBADPOS;
            p->col[i][p->len[i]++] = (uint8_t)(in[o] - 1);
            cnt[(in[o] - 1) & 3]++;
            o++;
        }
        if (o >= FC_P64_SIZE) return FC_EBADPOS;
        o++;   /* terminator */
    }
    while (o < FC_P64_SIZE && in[o]) {
        if (p->ncells >= FC_MAX_CELLS || in[o] > 52) return FC_EBADPOS;
        p->cells[p->ncells++] = (uint8_t)(in[o] - 1);
        cnt[(in[o] - 1) & 3]++;
        o++;
    }
    for (; o < FC_P64_SIZE; o++) if (in[o]) return FC_EBADPOS;
    for (int s = 0; s < 4; s++) {
        if (cnt[s] > 13) return FC_EBADPOS;
        p->home[s] = (uint8_t)(13 - cnt[s]);
    }
    return fc_pos_check(p, FC_MAX_CELLS);
}

/* Bit i set when byte i of the record is 0, eight bytes at a time: 0x80 marks each 0 byte of a word x in
   ~(((x & LOW7) + LOW7) | x | LOW7), and a multiplication gathers the eight marks into one byte. */
static inline uint64_t zero_bytes(const uint8_t *p) {
    const uint64_t low7 = 0x7f7f7f7f7f7f7f7full;
    uint64_t zeros = 0;
    for (int w = 0; w < 8; w++) {
        uint64_t x = le8(p + 8 * w), z = ~(((x & low7) + low7) | x | low7) >> 7;
        zeros |= (z * 0x0102040810204080ull >> 56) << (8 * w);
    }
    return zeros;
}

void fc_p64_column_order(uint8_t *recs, uint64_t n) {
    for (uint64_t r = 0; r < n; r++) {
        uint8_t *p = recs + r * FC_P64_SIZE, out[FC_P64_SIZE];
        int start[8], end[8], key[8], order[8], o = 0, in_order = 1;
        uint64_t zeros = zero_bytes(p);
        if (popc64(zeros) < 8) continue;                     /* fewer than eight column ends */
        for (int c = 0; c < 8; c++, zeros &= zeros - 1) {
            start[c] = c ? end[c - 1] + 1 : 0;
            end[c] = ctz64(zeros);
            key[c] = end[c] > start[c] ? p[start[c]] : 53;    /* empty: after every card (1..52) */
            in_order &= !c || key[c - 1] <= key[c];
        }
        if (in_order) continue;
        for (int c = 0; c < 8; c++) {                        /* insertion sort, stable */
            int i = c;
            for (; i > 0 && key[order[i - 1]] > key[c]; i--) order[i] = order[i - 1];
            order[i] = c;
        }
        for (int i = 0; i < 8; i++) {
            int c = order[i], len = end[c] - start[c];
            memcpy(out + o, p + start[c], (size_t)len);
            o += len;
            out[o++] = 0;
        }
        memcpy(p, out, (size_t)o);          /* the free cells and the zeros after them stay where they are */
    }
}

/* ---- the survey's batch -------------------------------------------------------------------------------- */

int fc_deal(uint64_t n, fc_pos *out) {
    if (n < 1 || n > 8589934591ull) return FC_ERANGE;
    uint8_t deck[52], order[52];
    uint64_t x = n < 4294967296ull ? n : n - 4294967296ull;
    for (int c = 0; c < 52; c++) deck[c] = (uint8_t)c;
    for (int k = 0; k < 52; k++) {
        x = (214013 * x + 2531011) & 0xFFFFFFFFull;
        uint32_t r = n < 2147483648ull ? (uint32_t)((x >> 16) & 0x7FFF)
                   : n < 4294967296ull ? (uint32_t)(((x >> 16) & 0x7FFF) | 0x8000)
                   : (uint32_t)(((x >> 16) & 0xFFFF) + 1);
        uint32_t j = r % (uint32_t)(52 - k);
        order[k] = deck[j];
        deck[j] = deck[51 - k];
    }
    memset(out, 0, sizeof *out);
    for (int k = 0; k < 52; k++) out->col[k % 8][out->len[k % 8]++] = order[k];
    return 0;
}

