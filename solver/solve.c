/* solve.c -- the solver: its portfolio of stages, fc_solve and the survey's batch fc_solve_deals. */
#include "fc_internal.h"
#include <time.h>

/* heuristic weights (see score, heap_push): w[0] per card not home, w[1] per card above a lower card of its
   column, w[2] per card above the next card of its suit, w[3] per occupied cell, w[4] per non-empty column,
   w[5] per move made (the search step: a sequence move counts one), w[6] per card below the top sequence
   of its column, w[7] per rank of spread between the highest and the lowest foundation; w[8] != 0: depth
   first (the deepest state first, siblings by score); w[9] > 0: a pseudo-random 0..w[9]-1 added to the
   score, a function of the position and the seed w[10] (randomised restarts: each seed orders ties and
   near-ties differently). DEFAULT_WEIGHTS were tuned on deals 1..1500 (fewest positions). */
FC_HIDDEN const int DEFAULT_WEIGHTS[FC_NWEIGHTS] = {6, 4, 2, 9, 4, 4, 5, 3, 0, 0, 0, 0};

/* The stages of fc_solve, run one after the other until one wins; `states` is the stage's budget (0: the
   caller's max_states), every budget is capped by max_states. The first stage (pruned, plain weights)
   solves nearly every deal with 4 cells in a few hundred positions; the next ones are restarts with the
   pruning and randomised weights -- four bases: the plain weights, with the depth counting less (W_D2),
   stressing the free cells and columns (W_CELLS) or ignoring the depth (W_GREEDY) -- each with its own
   seed: a deal the heuristic leads astray under one ordering is rarely led astray under all of them
   (deals 114255, 305642, 429182 and 496564 were not solved within 3,000,000 positions by one ordering;
   a hard deal is typically won by about half of the short restarts, in a few thousand positions, so
   many short restarts beat a few long ones). Two stages have no pruning (some deals need a move the
   pruning leaves out); the last of them, up to max_states: when it runs out of positions (FC_DONE) the
   solver's whole space was seen. Chosen on the deals of 1..400,000 the first stage does not solve,
   those four, 971761 (not solved within 3,000,000 by an earlier portfolio of nine stages), and deals
   1..200 with 2 and 3 free cells (fewest positions in all). */
typedef struct {
    int prune;
    uint32_t states;
    int w[FC_NWEIGHTS];
} stage_t;

#define W_D(seed) {6, 4, 2, 9, 4, 4, 5, 3, 0, 20, seed, 0}
#define W_D2(seed) {6, 4, 2, 9, 4, 2, 5, 3, 0, 20, seed, 0}
#define W_CELLS(seed) {6, 4, 2, 16, 8, 1, 5, 3, 0, 20, seed, 0}
#define W_GREEDY(seed) {6, 4, 2, 9, 4, 0, 5, 3, 0, 20, seed, 0}
static const stage_t PORTFOLIO[] = {
    {FC_PRUNE_ALL, 15000, {6, 4, 2, 9, 4, 2, 5, 3, 0, 0, 0, 0}},
    {FC_PRUNE_ALL, 8000, W_CELLS(1)},
    {FC_PRUNE_ALL, 8000, W_GREEDY(2)},
    {FC_PRUNE_ALL, 8000, W_D(3)},
    {FC_PRUNE_ALL, 8000, W_D2(4)},
    {FC_PRUNE_ALL, 8000, W_CELLS(5)},
    {FC_PRUNE_ALL, 8000, W_GREEDY(6)},
    {FC_PRUNE_ALL, 8000, W_D(7)},
    {FC_PRUNE_ALL, 8000, W_D2(8)},
    {0, 20000, W_D(9)},
    {FC_PRUNE_ALL, 30000, W_GREEDY(10)},
    {FC_PRUNE_ALL, 30000, W_CELLS(11)},
    {FC_PRUNE_ALL, 30000, W_D(12)},
    {FC_PRUNE_ALL, 30000, W_D2(13)},
    {FC_PRUNE_ALL, 60000, W_GREEDY(14)},
    {0, 0, W_D(15)},
};
#define NPORTFOLIO ((int)(sizeof PORTFOLIO / sizeof PORTFOLIO[0]))

int fc_weights(int base, int seed, int *w) {
    const int d[FC_NWEIGHTS] = W_D(seed), d2[FC_NWEIGHTS] = W_D2(seed), cells[FC_NWEIGHTS] = W_CELLS(seed),
              greedy[FC_NWEIGHTS] = W_GREEDY(seed);
    const int *src = base == FC_WEIGHTS_D ? d : base == FC_WEIGHTS_D2 ? d2 : base == FC_WEIGHTS_CELLS ? cells
                     : base == FC_WEIGHTS_GREEDY ? greedy : NULL;
    if (!src) return FC_ERANGE;
    memcpy(w, src, sizeof d);
    return 0;
}

/* The solver's working memory: one search, reused by every stage (and by every deal of fc_solve_deals),
   and the line buffers. */
typedef struct {
    fc_search *s;
    uint16_t *a;             /* 2 * FC_MAX_LINE codes: the line as found, and the shortened one */
} solver_mem;

static void solver_mem_free(solver_mem *m) {
    fc_search_free(m->s);
    free(m->a);
    m->s = NULL;
    m->a = NULL;
}

/* one stage of fc_solve: a best-first search in m->s; on FC_WON the line is read from m->s */
static int solve_stage(solver_mem *m, const fc_pos *start, const fc_rules *rules, const fc_solve_opts *opts,
                       uint64_t max_states, int pflags, const int *weights, fc_solve_result *out) {
    int err = 0;
    if (opts->max_states && (max_states == 0 || max_states > opts->max_states)) max_states = opts->max_states;
    if (!m->s) {
        m->s = fc_search_new(start, rules, max_states, 1, FC_ORDER_BEST, &err);
        if (!m->s) return err;
    } else if ((err = search_start(m->s, start, rules, max_states, 1, FC_ORDER_BEST)) != 0) {
        return err;
    }
    fc_search *s = m->s;
    memcpy(s->w, weights, sizeof s->w);
    s->c.super = opts->supermoves != 0;
    s->c.pflags = pflags;
    int st = fc_search_run(s, 0);
    out->states += s->count;
    out->expanded += s->expanded;
    out->stages++;
    /* a pruned stage that runs out of positions has not seen the solver's whole space */
    return st == FC_DONE && pflags ? FC_LIMIT : st;
}

static int solve_with(solver_mem *m, const fc_pos *start, const fc_rules *rules, const fc_solve_opts *opts,
                      uint16_t *moves, int cap, fc_solve_result *out) {
    memset(out, 0, sizeof *out);
    int st = FC_DONE;
    if (opts->nstages < 0 || opts->nstages > FC_MAX_STAGES) return out->status = FC_ERANGE;
    if ((st = check_rules(rules)) != 0) return out->status = st;
    if (fc_pos_check(start, FC_MAX_CELLS)) return out->status = FC_EBADPOS;
    st = FC_DONE;
    int nst = opts->nstages ? opts->nstages : opts->single_stage ? 1 : NPORTFOLIO;
    for (int i = 0; i < nst && st != FC_WON; i++) {
        if (opts->nstages)
            st = solve_stage(m, start, rules, opts, opts->stage_states[i], opts->stage_prune[i],
                             opts->stage_weights[i], out);
        else if (opts->single_stage)
            st = solve_stage(m, start, rules, opts, 0, 0, DEFAULT_WEIGHTS, out);
        else
            st = solve_stage(m, start, rules, opts, PORTFOLIO[i].states, PORTFOLIO[i].prune, PORTFOLIO[i].w,
                             out);
        if (st < 0) return out->status = st;
    }
    out->status = st;
    if (st != FC_WON) return 0;
    if (!m->a && !(m->a = (uint16_t *)malloc(2 * FC_MAX_LINE * sizeof *m->a))) return out->status = FC_ENOMEM;
    uint16_t *a = m->a, *b = a + FC_MAX_LINE;
    int n = fc_search_moves(m->s, (uint64_t)m->s->won_index, a, FC_MAX_LINE);
    if (n < 0) return out->status = n;
    out->found_len = n;
    if (opts->shorten > 0) {
        for (int pass = 0; pass < 8; pass++) {    /* until nothing changes */
            int k = fc_shorten(start, rules, a, n, opts->shorten, b, FC_MAX_LINE);
            if (k < 0) return out->status = k;
            memcpy(a, b, (size_t)k * sizeof *a);
            if (k == n) break;
            n = k;
        }
    }
    if (n > cap) return out->status = FC_ERANGE;
    memcpy(moves, a, (size_t)n * sizeof *a);
    out->len = n;
    return n;
}

int fc_solve(const fc_pos *start, const fc_rules *rules, const fc_solve_opts *opts, uint16_t *moves,
             int cap, fc_solve_result *out) {
    solver_mem m = {NULL, NULL};
    int n = solve_with(&m, start, rules, opts, moves, cap, out);
    solver_mem_free(&m);
    return n;
}

int fc_solve_deals(uint64_t first, int count, const fc_rules *rules, const fc_solve_opts *opts,
                   int32_t *status, int32_t *len, uint64_t *states, uint64_t *offset, double *seconds,
                   uint16_t *moves, uint64_t cap) {
    solver_mem m = {NULL, NULL};
    uint64_t used = 0;
    int done = 0, e = 0;
    if (count < 0 || first < 1 || first + (uint64_t)count - 1 > 8589934591ull) return FC_ERANGE;
    clock_t t = clock();      /* read once a deal (a system call): a deal's time runs from the last one's end */
    for (; done < count; done++) {
        fc_pos p;
        fc_solve_result r;
        fc_deal(first + (uint64_t)done, &p);
        uint64_t room = cap - used;
        int n = solve_with(&m, &p, rules, opts, moves + used, room > FC_MAX_LINE ? FC_MAX_LINE : (int)room, &r);
        if (n < 0 && r.status == FC_ERANGE && room < FC_MAX_LINE) break;  /* moves is full: the caller goes on */
        if (n < 0) { e = n; break; }
        status[done] = r.status;
        states[done] = r.states;
        len[done] = r.status == FC_WON ? n : -1;
        offset[done] = used;
        clock_t now = clock();
        seconds[done] = (double)(now - t) / CLOCKS_PER_SEC;
        t = now;
        if (r.status == FC_WON) used += (uint64_t)n;
    }
    solver_mem_free(&m);
    return e ? e : done;
}

