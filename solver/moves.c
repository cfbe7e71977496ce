/* moves.c -- the move generator (gen_moves: explore's moves, the solver's, the favor), legal moves on
   keys (key_apply), and the public successors and autoplay on plain positions. */
#include "fc_internal.h"

/* ---- moves: the raw successors of k (no autoplay), in the order of fc.h ---- */
/* The columns of k: pw[i] its word, top[i] its top card (-1 when empty), dst[x] the columns whose top
   card x may go on (dst holds 56 bytes), h[s] the foundation heights, *movable the cards that may go onto a
   column's top or home (a bit each; bits 52..63 are no card's). Returns the set of empty columns. */
static inline unsigned col_targets(const ctx_t *c, const fkey_t *k, uint32_t *pw, int *top, uint8_t *dst,
                                   int *h, uint64_t *movable) {
    unsigned empty = 0;
    uint64_t mv = 0;
    memset(dst, 0, 56);
    for (int i = 0; i < 8; i++) {
        pw[i] = k->w[i] & WMASK;
        if (!pw[i]) { top[i] = -1; empty |= 1u << i; continue; }
        int p = w_top(c, pw[i]);
        top[i] = p;
        /* the two cards that go onto p (none on an ace: dst[52..55], which no card reads) */
        dst[c->under[p][0]] |= (uint8_t)(1u << i);
        dst[c->under[p][1]] |= (uint8_t)(1u << i);
        mv |= c->underm[p];
    }
    for (int s = 0; s < 4; s++) {
        h[s] = (int)(k->w[s] >> 28);
        mv |= 1ull << (h[s] * 4 + s);   /* the next card of suit s (none past the king: bits 52..55) */
    }
    *movable = mv;
    return empty;
}

/* Sequence moves from column i (its top chain of >= 2 cards): the top k >= 2 cards onto a column whose
   top card the k-th card stacks on, or onto an empty column, when k <= (free cells + 1) * 2^(empty
   columns other than the destination); cand holds at least every column of the first kind. Appended to
   out/mv from n; returns the new count. all = 0: to the
   first empty column of `empty` only (the solver); all = 1: to every empty column (explore's supermoves).
   pflags: the solver's FC_PRUNE_LONGEST (a sequence goes to an empty column whole). */
static int gen_super(const ctx_t *c, const fkey_t *k, int i, const int *top, unsigned empty,
                     unsigned allempty, unsigned cand, fkey_t *out, uint16_t *mv, int n, int prune, int all,
                     int pflags) {
    uint32_t w = k->w[i] & WMASK;
    int ch = w_chain(w), L = (int)((w >> 6) & 63), x = top[i];
    int f = c->cells - popc64(k->cells);
    if (f < 0) f = 0;
    int ne = popc64(allempty);
    int cards[14], have = 0, xr = isred(x);
    if (!all) empty &= -empty;   /* one empty destination only (SOLVE_MAX_SUCC relies on it) */
    /* the columns in order: those whose top a card of the chain may go on (cand, from the caller's masks),
       and the empty ones; each still checked below */
    for (unsigned jm = (cand | empty) & ~(1u << i); jm; jm &= jm - 1) {
        int j = ctz64(jm);
        int kmin, kmax;
        if (top[j] >= 0) {
            /* the card t below the top is of rank(x) + t and, the chain alternating, of x's colour
               exactly when t is even */
            int t = rank0(top[j]) - 1 - rank0(x);
            if (t < 1 || t > ch || (xr ^ (t & 1)) == isred(top[j])) continue;
            if (t + 1 > ((f + 1) << ne)) continue;
            kmin = kmax = t + 1;
        } else {
            if (!((empty >> j) & 1)) continue;
            kmin = 2;
            kmax = ch + 1;
            int cap = (f + 1) << (ne - 1);
            if (kmax > cap) kmax = cap;
            if (prune && L == 1 && kmax == ch + 1) kmax--;   /* not the whole column */
            if (pflags & FC_PRUNE_LONGEST) kmin = kmax;
            if (kmax < 2) continue;
        }
        if (!have) {   /* the chain's cards, read once the first move is found */
            for (int t = 0; t <= ch; t++) cards[t] = w_chain_card(c, w, t);
            have = 1;
        }
        for (int kk = kmin; kk <= kmax; kk++) {
            fkey_t b = *k;
            uint32_t ws = w;
            for (int t = 0; t < kk; t++) ws = w_pop(c, ws);
            b.w[i] = (k->w[i] & HMASK) | ws;
            uint32_t wd = b.w[j];
            for (int t = kk - 1; t >= 0; t--) wd = w_push(wd, cards[t]);
            b.w[j] = wd;
            out[n] = b;
            mv[n++] = (uint16_t)(mvcode(cards[kk - 1], j) | MV_SUPER);
        }
    }
    return n;
}

static int gen_favor(const ctx_t *c, const fkey_t *k, fkey_t *out, int n);

/* The move generator: the successors of k (no autoplay) in the order of fc.h -- per column source: to its
   foundation, onto columns 0..7, into a cell, then its sequence moves; then the cell cards; then the
   foundation returns; then the favor's moves. Two kinds of calls, each compiled apart (the function is
   always inlined into gen and gen_mv, its flags constants there, so explore's copy has no move codes, no
   pruning and no sources to write):
     solver = 0 (gen: explore, the disk search, the public successors): every move of the rules; with
       rules.supermoves every sequence move to every empty column; the favor's moves when `favor`.
     solver = 1 (gen_mv: the solver, lines, shortening): also each move's code into mv and its source into
       from (a column, FC_TO_CELL or FC_TO_HOME); prune: the canonical mode's reductions (a card goes to the
       first empty column only, and a column's only card never goes to an empty column); c->pflags: the
       FC_PRUNE_* of the solver's pruned stages; c->super: the solver's sequence moves (to the first empty
       column of those allowed).
   With rules.supermoves, each column's supermoves follow its single moves (a bound: 9 single moves a
   column, 9 a cell card, 8 a foundation return, and m(m-1+12(8-m)) <= 204 supermoves for m non-empty
   columns: fewer than SOLVE_MAX_SUCC). Every single move is made whether or not supermoves are on: they only
   add successors, so the set that explore enumerates with --supermoves contains the one without and is
   closed under the single moves, and a complete enumeration with no won position proves as much as one
   without supermoves (solver.rules.Rules.unproved). (Each supermove is also a composition of single moves
   through the free cells and empty columns, within (f+1)*2^e, but no verdict relies on it: a win in a
   counting mode counts only once the solver finds a line of single moves under the plain rules,
   solver.solve.judge.) */
static ALWAYS_INLINE int gen_moves(const ctx_t *c, const fkey_t *k, fkey_t *out, uint16_t *mv, uint8_t *from,
                                   const int solver, int prune, const int favor) {
    uint16_t smv[SOLVE_MAX_SUCC];   /* explore's supermoves: gen_super's codes, not kept */
    uint32_t pw[8];
    uint8_t dst[56];                /* dst[x]: the columns whose top card x may go on (col_targets) */
    int top[8], h[4], n = 0;
    uint64_t movable;
    const int pflags = solver ? c->pflags : 0, super = solver ? c->super : c->supermoves;
    unsigned empty = col_targets(c, k, pw, top, dst, h, &movable);   /* the empty columns */
    unsigned allempty = empty;
    if (!solver) prune = 0;
    if (prune) empty &= -empty;     /* the first empty column only */
    int room = popc64(k->cells) < c->cells;
#define MOVE(code) do { if (solver) mv[n] = (code); n++; } while (0)
    /* for gen_super: bit r of rtop[q] when a column's top card has rank0 r and isred ^ (r & 1) == q. The card
       t below the top of a chain headed by x (rank0 rx) goes onto a top of rank0 rx + 1 + t and of the other
       colour than its own, x's colour when t is even: that top's q is isred(x) ^ 1 ^ ((rx + 1) & 1) for
       every t, so the chain's possible destinations are one run of bits of one mask */
    uint32_t rtop[2] = {0, 0};
    uint8_t rcol[2][13];            /* rcol[q][r]: the columns whose top card has rank0 r and that q */
    if (super) {
        memset(rcol, 0, sizeof rcol);
        for (int j = 0; j < 8; j++)
            if (top[j] >= 0) {
                int q = isred(top[j]) ^ (rank0(top[j]) & 1);
                rtop[q] |= 1u << rank0(top[j]);
                rcol[q][rank0(top[j])] |= (uint8_t)(1u << j);
            }
    }

    /* the sources that have no move are passed over at once (the common case: the cells are full, no column
       is empty, and the top card goes neither home nor onto another column) */
    int any = room || empty || super;
    for (int i = 0; i < 8; i++) {
        int x = top[i];
        if (x < 0 || !(any || ((movable >> x) & 1))) continue;
        uint32_t rest = w_pop(c, pw[i]), wi = (k->w[i] & HMASK) | rest;
        int n0 = n;
        /* each successor is k copied, then its changes written: not a copy of a changed key, whose read would
           wait for the store that changed it (a load spanning a smaller store is not forwarded) */
        if (h[suit(x)] == rank0(x)) {
            out[n] = *k; out[n].w[i] = wi; out[n].w[suit(x)] += HOME1; MOVE(mvcode(x, FC_TO_HOME));
        }
        int onp = w_chain(pw[i]) > 0;   /* x lies on its stacking parent */
        unsigned to = (onp && (pflags & FC_PRUNE_SWAP)) ? 0u : dst[x];
        if (!((prune && !rest) || (onp && (pflags & FC_PRUNE_BREAK)))) to |= empty;
        to &= ~(1u << i);
        for (unsigned m = to; m; m &= m - 1) {
            int j = ctz64(m);
            out[n] = *k; out[n].w[i] = wi; out[n].w[j] = w_push(k->w[j], x); MOVE(mvcode(x, j));
        }
        if (room && !(onp && (pflags & FC_PRUNE_CELL))) {
            out[n] = *k; out[n].w[i] = wi; out[n].cells |= 1ull << x; MOVE(mvcode(x, FC_TO_CELL));
        }
        if (super && w_chain(pw[i])) {
            int ch = w_chain(pw[i]), rx = rank0(x), q = isred(x) ^ 1 ^ ((rx + 1) & 1);
            uint32_t want = (((1u << ch) - 1) << (rx + 2)) & rtop[q];
            unsigned cand = 0;
            for (uint32_t r = want; r; r &= r - 1) cand |= rcol[q][ctz64(r)];
            if (want || empty)
                n = gen_super(c, k, i, top, empty, allempty, cand, out, solver ? mv : smv, n, prune, !solver,
                              pflags);
        }
        if (solver) for (int q = n0; q < n; q++) from[q] = (uint8_t)i;
    }
    int n1 = n;
    for (uint64_t cm = empty ? k->cells : k->cells & movable; cm; cm &= cm - 1) {
        int x = ctz64(cm);
        uint64_t cells = k->cells & ~(1ull << x);
        if (h[suit(x)] == rank0(x)) {
            out[n] = *k; out[n].cells = cells; out[n].w[suit(x)] += HOME1; MOVE(mvcode(x, FC_TO_HOME));
        }
        for (unsigned m = dst[x] | empty; m; m &= m - 1) {
            int j = ctz64(m);
            out[n] = *k; out[n].cells = cells; out[n].w[j] = w_push(k->w[j], x); MOVE(mvcode(x, j));
        }
    }
    if (solver) for (int q = n1; q < n; q++) from[q] = FC_TO_CELL;
    if (c->fret) {
        int n2 = n;
        for (int s = 0; s < 4; s++) {
            if (!h[s]) continue;
            int x = (h[s] - 1) * 4 + s;
            uint32_t ws = k->w[s] - HOME1;
            for (unsigned m = dst[x] | empty; m; m &= m - 1) {
                int j = ctz64(m);
                out[n] = *k; out[n].w[s] = ws; out[n].w[j] = w_push(j == s ? ws : k->w[j], x); MOVE(mvcode(x, j));
            }
        }
        if (solver) for (int q = n2; q < n; q++) from[q] = FC_TO_HOME;
    }
#undef MOVE
    if (favor && c->hand && !(k->w[4] & HANDUSED) && popc64(k->cells) >= c->cells) n = gen_favor(c, k, out, n);
    return n;
}

/* explore's successors: every move of the rules (supermoves and the favor included) */
FC_HIDDEN int gen(const ctx_t *c, const fkey_t *k, fkey_t *out) { return gen_moves(c, k, out, NULL, NULL, 0, 0, 1); }

/* the solver's successors, with their move codes and sources; prune: the canonical mode's reductions */
FC_HIDDEN int gen_mv(const ctx_t *c, const fkey_t *k, fkey_t *out, uint16_t *mv, uint8_t *from, int prune) {
    return gen_moves(c, k, out, mv, from, 1, prune, 0);
}

/* The favor (rules.hand, once per game, only while every free cell is full): a column's top card x is
   held in the hand, one ordinary move is made without it (any element of moves() of the position
   without x), then x is put down where a card may go in the new position: onto its foundation, onto any
   column (empty, or by the stacking rule -- its own column too), or into a free cell if one is empty.
   The results carry HANDUSED. Appended to out from n; returns the new count. */
static int gen_favor(const ctx_t *c, const fkey_t *k, fkey_t *out, int n) {
    fkey_t inner[SOLVE_MAX_SUCC];
    for (int i = 0; i < 8; i++) {
        uint32_t pw = k->w[i] & WMASK;
        if (!pw) continue;
        int x = w_top(c, pw);
        fkey_t b = *k;
        b.w[i] = (k->w[i] & HMASK) | w_pop(c, pw);
        int m = gen_moves(c, &b, inner, NULL, NULL, 0, 0, 0);
        for (int q = 0; q < m; q++) {
            const fkey_t *t = &inner[q];
            if ((int)(t->w[suit(x)] >> 28) == rank0(x)) {
                out[n] = *t; out[n].w[suit(x)] += HOME1; out[n++].w[4] |= HANDUSED;
            }
            for (int j = 0; j < 8; j++) {
                uint32_t tw = t->w[j] & WMASK;
                if (tw && !stacks(x, w_top(c, tw))) continue;
                out[n] = *t; out[n].w[j] = w_push(t->w[j], x); out[n++].w[4] |= HANDUSED;
            }
            if (popc64(t->cells) < c->cells) { out[n] = *t; out[n].cells |= 1ull << x; out[n++].w[4] |= HANDUSED; }
        }
    }
    return n;
}

/* Apply move (x, dest) to k if legal under the plain rules of c (cells, fret). 0 or FC_EILLEGAL. */
FC_HIDDEN int key_apply(const ctx_t *c, fkey_t *k, int x, int dest) {
    int src = -1, incell = 0, fromhome = 0;
    if (x < 0 || x >= 52 || dest < 0 || dest > FC_TO_HOME) return FC_EILLEGAL;
    for (int i = 0; i < 8; i++) {
        uint32_t w = k->w[i] & WMASK;
        if (w && w_top(c, w) == x) { src = i; break; }
    }
    int hs = (int)(k->w[suit(x)] >> 28);
    if (src < 0) {
        if ((k->cells >> x) & 1) incell = 1;
        else if (c->fret && hs == rank0(x) + 1) fromhome = 1;
        else return FC_EILLEGAL;
    }
    if (dest == FC_TO_HOME) {
        if (fromhome || hs != rank0(x)) return FC_EILLEGAL;
    } else if (dest == FC_TO_CELL) {
        if (src < 0 || popc64(k->cells) >= c->cells) return FC_EILLEGAL;
    } else {
        if (dest == src) return FC_EILLEGAL;
        uint32_t wd = k->w[dest] & WMASK;
        if (wd && !stacks(x, w_top(c, wd))) return FC_EILLEGAL;
    }
    if (src >= 0) k->w[src] = (k->w[src] & HMASK) | w_pop(c, k->w[src] & WMASK);
    else if (incell) k->cells &= ~(1ull << x);
    else k->w[suit(x)] -= HOME1;
    if (dest == FC_TO_HOME) k->w[suit(x)] += HOME1;
    else if (dest == FC_TO_CELL) k->cells |= 1ull << x;
    else k->w[dest] = w_push(k->w[dest], x);
    return 0;
}

/* ---- public: successors on plain positions ---- */
static int succ_keys(const fc_pos *p, const fc_rules *r, ctx_t *c, fkey_t *out) {
    int e = check_rules(r);
    if (e) return e;
    if (r->hand) return FC_EBADRULES;     /* a plain position does not say whether the favor is used */
    if (fc_pos_check(p, FC_MAX_CELLS)) return FC_EBADPOS;
    if (ctx_init(c, p, r)) return FC_EBADPOS;
    fkey_t k;
    if (pos_to_key(c, p, &k)) return FC_EENCODE;
    int n = gen(c, &k, out);
    if (c->autoplay) for (int i = 0; i < n; i++) autoplay_key(c, &out[i]);
    return n;
}

int fc_successors(const fc_pos *p, const fc_rules *r, fc_pos *out, int cap) {
    ctx_t c;
    fkey_t buf[SOLVE_MAX_SUCC];
    int n = succ_keys(p, r, &c, buf);
    if (n < 0) return n;
    if (n > cap) return FC_ERANGE;
    for (int i = 0; i < n; i++) key_to_pos(&c, &buf[i], &out[i]);
    return n;
}

int fc_successors_p64(const uint8_t *in64, const fc_rules *r, uint8_t *out, int cap) {
    fc_pos p;
    ctx_t c;
    fkey_t buf[SOLVE_MAX_SUCC];
    if (fc_p64_to_pos(in64, &p)) return FC_EBADPOS;
    int n = succ_keys(&p, r, &c, buf);
    if (n < 0) return n;
    if (n > cap) return FC_ERANGE;
    for (int i = 0; i < n; i++) key_to_p64(&c, &buf[i], out + (size_t)i * FC_P64_SIZE);
    return n;
}

int fc_autoplay(fc_pos *p, const fc_rules *r) {
    ctx_t c;
    fkey_t k;
    int e = check_rules(r);
    if (e) return e;
    if (fc_pos_check(p, FC_MAX_CELLS)) return FC_EBADPOS;
    if (!r->autoplay) return 0;
    if (ctx_init(&c, p, r) || pos_to_key(&c, p, &k)) return FC_EBADPOS;
    int moved = autoplay_key(&c, &k);
    key_to_pos(&c, &k, p);
    return moved;
}

