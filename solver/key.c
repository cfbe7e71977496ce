/* key.c -- column words, the search's context (ctx_t) and the 40-byte key fkey_t. */
#include "fc_internal.h"

static int encode_col(const ctx_t *c, const uint8_t *cards, int n, uint32_t *out) {
    if (n == 0) { *out = 0; return 0; }
    int b = n - 1;
    while (b > 0 && stacks(cards[b], cards[b - 1])) b--;
    int ch = n - 1 - b, L = b + 1;
    if (ch > 12) return FC_EENCODE;
    if (L >= 2) {
        int col = c->colof[cards[0]];
        if (col == 0xFF || c->olen[col] < L || memcmp(c->orig[col], cards, (size_t)L) != 0)
            return FC_EENCODE;
    }
    uint32_t bits = 0;
    for (int t = 0; t < ch; t++) bits |= (uint32_t)(suit(cards[b + 1 + t]) >> 1) << t;
    *out = (uint32_t)cards[0] | ((uint32_t)L << 6) | ((uint32_t)ch << 12) | (bits << 16);
    return 0;
}

FC_HIDDEN int decode_col(const ctx_t *c, uint32_t w, uint8_t *cards) {
    w &= WMASK;
    if (!w) return 0;
    int c0 = (int)(w & 63), L = (int)((w >> 6) & 63), ch = w_chain(w);
    if (L >= 2) memcpy(cards, c->orig[c->colof[c0]], (size_t)L);
    else cards[0] = (uint8_t)c0;
    int prev = cards[L - 1];
    for (int t = 0; t < ch; t++) {
        int red = !isred(prev);
        int b = (int)((w >> (16 + t)) & 1);
        int s = red ? (b ? 2 : 1) : (b ? 3 : 0);
        prev = (rank0(prev) - 1) * 4 + s;
        cards[L + t] = (uint8_t)prev;
    }
    return L + ch;
}

/* ---- context, keys ---- */
FC_HIDDEN int check_rules(const fc_rules *r) {
    if (r->cells < 0 || r->cells > FC_MAX_CELLS) return FC_EBADRULES;
    if (r->autoplay < FC_AUTOPLAY_NONE || r->autoplay > FC_AUTOPLAY_ALL) return FC_EBADRULES;
    if (r->hand < 0 || r->hand > 1 || (r->hand && (r->canonical || r->autoplay))) return FC_EBADRULES;
    return 0;
}

/* The context of a start position. tables_ready: c already holds the tables that depend on nothing
   (binom, coff, cinv, csh, tops: the last fields of ctx_t but popw), from an earlier ctx_setup of the same c. */
FC_HIDDEN int ctx_setup(ctx_t *c, const fc_pos *p, const fc_rules *r, int tables_ready) {
    memset(c, 0, tables_ready ? offsetof(ctx_t, binom) : sizeof *c);
    memset(c->colof, 0xFF, sizeof c->colof);
    c->cells = r->cells;
    c->fret = r->foundation_return != 0;
    c->autoplay = r->autoplay;
    c->canonical = r->canonical != 0;
    c->supermoves = r->supermoves != 0;
    c->hand = r->hand != 0;
    for (int i = 0; i < 8; i++) {
        c->olen[i] = p->len[i];
        memcpy(c->orig[i], p->col[i], p->len[i]);
        if (p->len[i]) c->colof[p->col[i][0]] = (uint8_t)i;
    }
    for (int x = 0; x < 52; x++) c->head[x | (1 << 6)] = (uint8_t)x;
    for (int i = 0; i < 8; i++)
        for (int L = 2; L <= c->olen[i]; L++) c->head[c->orig[i][0] | (L << 6)] = c->orig[i][L - 1];
    for (int i = 0; i < 8; i++)
        for (int L = 0; L <= c->olen[i]; L++)
            if (encode_col(c, c->orig[i], L, &c->oword[i][L])) return FC_EENCODE;
    for (int x = 0; x < 52; x++) c->popw[x | (1 << 6)] = 0;
    for (int i = 0; i < 8; i++)
        for (int L = 2; L <= c->olen[i]; L++) c->popw[c->orig[i][0] | (L << 6)] = c->oword[i][L - 1];
    memset(c->opos, 0xFF, sizeof c->opos);
    memset(c->ocol, 0xFF, sizeof c->ocol);
    for (int x = 0; x < 52; x++) c->binfo[x | (1 << 6)] = (uint16_t)(rank0(x) << 6 | rank0(x) << 10);
    for (int i = 0; i < 8; i++) {
        int ok = 1, blk = 0, mn = 99;
        for (int L = 0; L <= c->olen[i]; L++) {
            if (L >= 1) {
                int x = c->orig[i][L - 1], r = rank0(x);
                c->opos[x] = (uint8_t)(L - 1);
                c->ocol[x] = (uint8_t)i;
                if (r > mn) blk++;
                else mn = r;
            }
            if (L >= 2 && rank0(c->orig[i][L - 1]) > rank0(c->orig[i][L - 2])) ok = 0;
            c->osorted[i][L] = (uint8_t)ok;
            if (L >= 2)   /* the cards of the prefix above a lower one of it, its lowest rank, its top's rank */
                c->binfo[c->orig[i][0] | (L << 6)] = (uint16_t)(blk | mn << 6 | rank0(c->orig[i][L - 1]) << 10);
        }
    }
    /* the compact key's tables */
    int ncodes = 53;
    memset(c->hcode, 0xFF, sizeof c->hcode);
    c->hcode[0] = 0;
    c->hword[0] = 0;
    for (int x = 0; x < 52; x++) {
        c->hcode[x | (1 << 6)] = (uint8_t)(1 + x);
        c->hword[1 + x] = (uint16_t)(x | (1 << 6));
    }
    for (int i = 0; i < 8; i++) {
        uint32_t cnt = 0;
        c->pcnt[i][0] = 0;
        for (int L = 1; L <= c->olen[i]; L++) {
            cnt += 1u << (8 * suit(c->orig[i][L - 1]));
            c->pcnt[i][L] = cnt;
            if (L >= 2 && ncodes < 255) {   /* canonical codes; the plain mode's (51 + L) below */
                c->hcode[c->orig[i][0] | (L << 6)] = (uint8_t)ncodes;
                c->hword[ncodes++] = (uint16_t)(c->orig[i][0] | (L << 6));
            }
        }
        if (c->olen[i] > c->maxolen) c->maxolen = c->olen[i];
    }
    if (!c->canonical) {   /* codes 51 + L, L = 2..maxolen, the column being the one of c0 */
        ncodes = 52 + (c->maxolen > 1 ? c->maxolen : 1);
        for (int i = 0; i < 8; i++)
            for (int L = 2; L <= c->olen[i]; L++) c->hcode[c->orig[i][0] | (L << 6)] = (uint8_t)(51 + L);
    }
    for (c->hb = 0; (1 << c->hb) < ncodes; c->hb++) {}
    c->kbits = 127;
    if (!tables_ready) {
        for (int n = 0; n <= 52; n++)
            for (int k = 0; k <= 8; k++)
                c->binom[n][k] = k == 0 ? 1 : n == 0 ? 0 : c->binom[n - 1][k - 1] + c->binom[n - 1][k];
        c->coff[0] = 0;
        for (int k = 0; k <= 8; k++) c->coff[k + 1] = c->coff[k] + c->binom[52][k];
        for (int j = 1; j <= 8; j++) {
            int sh = 0, x = j - 1;
            while ((c->binom[52][j] >> sh) >= 1024) sh++;
            c->csh[j] = (uint8_t)sh;
            for (uint32_t b = 0; b < 1024; b++) {
                while (x < 52 && c->binom[x + 1][j] <= (b << sh)) x++;
                c->cinv[j][b] = (uint8_t)x;
            }
        }
        for (int h = 0; h < 52; h++)
            for (int ch = 0; ch < 16; ch++)
                for (int lb = 0; lb < 2; lb++) c->tops[h][ch][lb] = (uint8_t)(ch > rank0(h) ? 0 : top_of(h, ch, lb));
        for (int p = 0; p < 52; p++) {   /* clubs and spades on a red card, diamonds and hearts on a black one */
            int b = rank0(p) > 0 ? (rank0(p) - 1) * 4 : 52, r = isred(p);
            c->under[p][0] = (uint8_t)(b + (r ^ 1));
            c->under[p][1] = (uint8_t)(b + 2 + r);
            c->underm[p] = 1ull << c->under[p][0] | 1ull << c->under[p][1];
        }
    }
    for (c->cb = 0; (1ull << c->cb) < (uint64_t)c->coff[c->cells + 1]; c->cb++) {}
    return 0;
}

FC_HIDDEN int ctx_init(ctx_t *c, const fc_pos *p, const fc_rules *r) { return ctx_setup(c, p, r, 0); }

FC_HIDDEN int pos_to_key(const ctx_t *c, const fc_pos *p, fkey_t *k) {
    for (int i = 0; i < 8; i++) {
        if (encode_col(c, p->col[i], p->len[i], &k->w[i])) return FC_EENCODE;
    }
    for (int s = 0; s < 4; s++) k->w[s] |= (uint32_t)p->home[s] << 28;
    k->cells = 0;
    for (int j = 0; j < p->ncells; j++) k->cells |= 1ull << p->cells[j];
    return 0;
}

FC_HIDDEN void key_to_pos(const ctx_t *c, const fkey_t *k, fc_pos *p) {
    for (int i = 0; i < 8; i++) p->len[i] = (uint8_t)decode_col(c, k->w[i], p->col[i]);
    int n = 0;
    for (uint64_t m = k->cells; m; m &= m - 1) p->cells[n++] = (uint8_t)ctz64(m);
    p->ncells = (uint8_t)n;
    for (int j = n; j < FC_MAX_CELLS; j++) p->cells[j] = 0;
    for (int s = 0; s < 4; s++) p->home[s] = (uint8_t)(k->w[s] >> 28);
}

FC_HIDDEN void key_to_p64(const ctx_t *c, const fkey_t *k, uint8_t *out) {
    uint8_t tmp[64];
    int o = 0;
    memset(out, 0, FC_P64_SIZE);
    for (int i = 0; i < 8; i++) {
        int n = decode_col(c, k->w[i], tmp);
        for (int t = 0; t < n; t++) out[o++] = (uint8_t)(tmp[t] + 1);
        out[o++] = 0;
    }
    for (uint64_t m = k->cells; m; m &= m - 1) out[o++] = (uint8_t)(ctz64(m) + 1);
}

