/* fc.h -- the FreeCell search core: the whole interface the Python binding (solver/search.py) sees.
 *
 * This file is also fed verbatim to cffi's cdef, so it holds only declarations, plain integer
 * #defines and types cffi knows (uint8_t, uint32_t, ...). No #include, no expressions in macros.
 * The implementation is the C files of solver/ (docs/ARCHITECTURE.md, "The C core"; plain C99, no global
 * mutable state: any number of searches can
 * live side by side in one process, each owning its memory until fc_search_free).
 *
 * ---- Cards ------------------------------------------------------------------------------------------
 * A card is an index c = (rank-1)*4 + suit, rank 1..13 (A..K), suit 0=C 1=D 2=H 3=S (the Microsoft
 * deck order AC AD AH AS 2C ... KS). Red = suit 1 or 2.
 *
 * ---- Positions ---------------------------------------------------------------------------------------
 * fc_pos: 8 columns in fixed places, each listed BOTTOM -> TOP (col[i][len[i]-1] is the top card);
 * the free cells as a set (ncells cards, cells[] ascending by card index); the foundation height per
 * suit (home[s] = 0..13, the cards of rank <= home[s] of suit s are on the foundation). A valid
 * position holds each of the 52 cards exactly once (in a column, in a cell, or on its foundation).
 *
 * P64, the 64-byte interchange form (certificates, Python): for columns 0..7 in order, the column's
 * cards bottom -> top as bytes (card+1), then a 0x00 terminator; then the cell cards ascending as
 * (card+1); then 0x00 up to 64 bytes. Foundation heights are not stored; they are derived (for each
 * suit, the number of its cards in no column and no cell). Equal positions <=> equal P64 bytes.
 *
 * ---- Rules (the spec's `moves`, generalised) -----------------------------------------------------------
 * moves(s): every position one single-card move away from s. Sources: the top card of each non-empty
 * column, each cell card. A source card x goes
 *   - to its foundation when home[suit(x)] + 1 == rank(x);
 *   - to each column j other than its own: onto an empty column, or onto a top card p with
 *     rank(p) == rank(x) + 1 and red(p) != red(x);
 *   - into the cells, only from a column and only while fewer than `cells` cards are in the cells.
 * With foundation_return, the top card of each non-empty foundation may also go onto a column
 * (empty, or by the stacking rule above); never into a cell. Won: home = (13,13,13,13).
 * No automatic moves and no supermoves in the spec mode (autoplay = 0, canonical = 0).
 *
 * Two extra counting modes, off in the spec mode:
 *   autoplay  -- after every move (and once on the start position) cards are moved to the foundations
 *                automatically while one is "safe" (see FC_AUTOPLAY_*); a successor is then
 *                "one move, then autoplay to a fixed point".
 *   canonical -- the search counts positions up to the order of the columns (columns sorted in the
 *                key). Stored states are then representatives with the columns in a canonical order.
 *
 * ---- The search ----------------------------------------------------------------------------------------
 * Enumeration of every position reachable from a start position, breadth first (the state arena is
 * the queue), depth first (a stack of unexpanded states) or best first (a heap ordered by a heuristic
 * score: the solver, see FC_ORDER_BEST and fc_solve), with an exact hash set (no lossy hashing).
 * State 0 is the start, states are numbered in discovery order, and each state has a parent (the state
 * whose expansion first found it), so a line of play to any state can be read back. fc_search_run
 * expands states in chunks so a caller can show progress.
 * Memory (BFS/DFS): past FC_COMPACT_AT states a 16-byte compact key per state (a position packed exactly
 * relative to the start position, see docs/ARCHITECTURE.md; the rare position that does not fit is kept as a
 * 40-byte key besides; below it every key has 40 bytes), a 4-byte hash slot per state at load 0.53..0.8, 2 bits
 * of parent bitmap per state, and in DFS 4 bytes per state on the stack while it is there: about 22 bytes a
 * state. FC_ORDER_BEST keeps 40-byte keys, a 4-byte parent, a move and a depth per state. Bounded through
 * max_states.
 */

/* sizes */
#define FC_NCOLS 8
#define FC_MAX_COL 52
#define FC_MAX_CELLS 8
#define FC_P64_SIZE 64
#define FC_MAX_SUCC 200      /* upper bound on |moves(s)|: 16 sources x 10 targets + 4 x 8 returns */

/* rules.autoplay values */
#define FC_AUTOPLAY_NONE 0   /* the spec: no automatic moves */
#define FC_AUTOPLAY_SAFE 1   /* aces and twos always; any card once both opposite-colour foundations are
                                >= rank-1; or both opposite-colour >= rank-2 and the other suit of its
                                own colour >= rank-3 (the rule of seed 004) */
#define FC_AUTOPLAY_HORNE 2  /* aces always; others only when both opposite-colour foundations are
                                >= rank-1 (Horne's classic rule; a 2 needs the opposite aces) */
#define FC_AUTOPLAY_TWOS 3   /* aces and twos always, nothing else */
#define FC_AUTOPLAY_ALL 4    /* every card that can go to its foundation goes (not safe; for tests) */

/* fc_search_new order values: the set found is the same, only the order of discovery differs */
#define FC_ORDER_BFS 0       /* breadth first: shortest lines of play; the arena is the queue */
#define FC_ORDER_DFS 1       /* depth first (a stack of unexpanded states): finds wins far sooner */
#define FC_ORDER_BEST 2      /* best first on a heuristic score (the solver, see fc_solve): a priority
                                queue of unexpanded states; each state also remembers the move that
                                made it. A position whose columns are all sorted (ranks never rising
                                toward the top) counts as won: the won position is stored as its child
                                (every card then goes home one by one). fc_search_new/run alone use
                                the plain moves; fc_solve adds sequence moves and pruning. */

/* fc_search_run status values (fc_stats.status); errors are negative */
#define FC_RUNNING 0         /* the chunk budget ran out; call fc_search_run again */
#define FC_DONE 1            /* every reachable position was enumerated (the set is closed) */
#define FC_WON 2             /* stopped at the first won position (stop_on_win) */
#define FC_LIMIT 3           /* stopped: a new position was found but max_states were already stored */
#define FC_ENOMEM -1         /* out of memory (the states found so far stay readable) */
#define FC_EBADPOS -2        /* not a valid position (a card missing or twice, a column too long...) */
#define FC_EBADRULES -3      /* rules out of range (cells not 0..8, unknown autoplay value) */
#define FC_EENCODE -4        /* internal: a position not expressible relative to the start */
#define FC_ERANGE -5         /* a state index out of range, or a too-small output buffer */
#define FC_EILLEGAL -6       /* a move that is not legal in the position it is applied to */
#define FC_EIO -7            /* the disk search could not write or read one of its files (errno in its stats) */
#define FC_EOVERFLOW -8      /* the disk search's overflow set (positions over its key) outgrew its limit */
#define FC_ESTATE -9         /* fc_ddd_resume: the folder's state file is damaged, or a file it lists is missing or resized */
#define FC_EOTHER -10        /* fc_ddd_resume: the folder holds the search of another start, rules or key size */
#define FC_ESTOPPED -11      /* fc_ddd_sort_step: stopped by fc_ddd_cancel (the step's run is not kept) */

typedef struct {
    uint8_t len[8];          /* cards in each column */
    uint8_t col[8][52];      /* col[i][0] is the bottom card, col[i][len[i]-1] the top */
    uint8_t ncells;          /* cards in the free cells */
    uint8_t cells[8];        /* ascending card indices */
    uint8_t home[4];         /* foundation heights, C D H S */
} fc_pos;

typedef struct {
    int cells;               /* number of free cells, 0..8 (default 4) */
    int foundation_return;   /* 1: foundation top cards may come back onto columns (default 0) */
    int autoplay;            /* FC_AUTOPLAY_* (spec: 0) */
    int canonical;           /* 1: dedupe positions up to column order (spec: 0) */
    int supermoves;          /* 1: moves() also carries a column's top run of k >= 2 cards (alternating
                                colours, each one lower) onto a column in one step, when k <= (f+1)*2^e:
                                f empty free cells, e empty columns other than the destination (seed
                                004's limit). A counting mode: single moves reach the same set (spec: 0) */
    int hand;                /* 1: the favor of docs/HAND.md, once per game: while every free cell is full,
                                a column's top card is held for one move and then put down. The flag
                                "favor used" is part of a stored state (not of P64: a P64 export may then
                                hold a position twice). Not with autoplay or canonical; fc_successors and
                                fc_search_successors_p64 refuse it (FC_EBADRULES) (spec: 0) */
} fc_rules;

typedef struct {
    uint64_t states;         /* distinct positions stored (state 0 is the start) */
    uint64_t expanded;       /* states whose successors were all generated */
    uint64_t generated;      /* successors generated, duplicates included */
    int max_home;            /* most cards on the foundations in any stored state */
    int won;                 /* 1 when a won position was stored */
    int64_t won_index;       /* index of the first won state, -1 if none */
    int status;              /* last fc_search_run status (FC_RUNNING before the first run) */
} fc_stats;

/* ---- positions ---- */

/* 0 when p is a valid position (each card once, lengths in range, cells ascending, at most
   max_cells cells, home consistent), else FC_EBADPOS. */
int fc_pos_check(const fc_pos *p, int max_cells);

/* Pack a valid position into P64 (64 bytes). Returns 0 or FC_EBADPOS. */
int fc_pos_to_p64(const fc_pos *p, uint8_t *out64);

/* Unpack P64 into a position, deriving the foundation heights. Returns 0 or FC_EBADPOS. */
int fc_p64_to_pos(const uint8_t *in64, fc_pos *p);

/* Apply the rules' autoplay to p in place (nothing when rules->autoplay == 0).
   Returns the number of cards moved to the foundations, or a negative error. */
int fc_autoplay(fc_pos *p, const fc_rules *rules);

/* moves(p) under the rules, in a fixed order (column sources 0..7, then cell cards ascending, then
   foundation returns; per source: foundation, columns 0..7, cell), each followed by autoplay when
   rules->autoplay. Writes up to cap positions to out; returns the count or a negative error
   (FC_ERANGE if cap is too small: FC_MAX_SUCC always suffices). rules->canonical is ignored here. */
int fc_successors(const fc_pos *p, const fc_rules *rules, fc_pos *out, int cap);

/* The same on P64 records: out receives n*64 bytes. */
int fc_successors_p64(const uint8_t *in64, const fc_rules *rules, uint8_t *out, int cap);

/* ---- the search ---- */

typedef struct fc_search fc_search;   /* opaque */

/* A new search from `start` (which gets autoplay first when rules->autoplay). max_states = 0 means
   no limit (besides memory and 2^31-1 states); stop_on_win = 1 stops at the first won position;
   order is FC_ORDER_BFS or FC_ORDER_DFS. On failure returns NULL and sets *err (FC_EBADPOS,
   FC_EBADRULES, FC_ENOMEM). */
fc_search *fc_search_new(const fc_pos *start, const fc_rules *rules, uint64_t max_states,
                         int stop_on_win, int order, int *err);

/* Release everything the search holds. NULL is fine. */
void fc_search_free(fc_search *s);

/* Expand up to max_expand more states (0 = no budget: run to the end). Returns the status:
   FC_RUNNING (budget used up, more to do), FC_DONE, FC_WON, FC_LIMIT, or FC_ENOMEM. Calling it
   again after a final status just returns that status. */
int fc_search_run(fc_search *s, uint64_t max_expand);

void fc_search_stats(const fc_search *s, fc_stats *out);

uint64_t fc_search_count(const fc_search *s);

/* State idx as P64 / as a position. 0 or FC_ERANGE. */
int fc_search_get_p64(const fc_search *s, uint64_t idx, uint8_t *out64);
int fc_search_get_pos(const fc_search *s, uint64_t idx, fc_pos *out);

/* Bulk copy of states first .. first+count-1 (clipped to the stored states) as count*64 bytes of P64
   into out, in discovery order. Returns the number of states written. */
uint64_t fc_search_export_p64(const fc_search *s, uint64_t first, uint64_t count, uint8_t *out);

/* The state indices ordered by their P64 records (bytewise; ties by index), into order[0 .. count-1].
   Made by sorting eight bytes of P64 at a time, decoding the states again only where records agree so
   far: 16 bytes a state of working memory besides order. 0 or FC_ENOMEM. */
int fc_search_sort_p64(const fc_search *s, uint32_t *order);

/* The same order as fc_search_sort_p64, faster, in more memory: every state's P64 record decoded once into
   recs (count*64 bytes, in discovery order), their order into order[0 .. count-1] (fc_p64_order, below).
   Then fc_p64_gather copies the records recs[idx[i]], i < count, into out. Callers use these up to
   FC_SORTED_MAX states (recs of 1 GiB), fc_search_sort_p64 and fc_search_export_p64_at above. 0 or FC_ENOMEM. */
#define FC_SORTED_MAX 16777216
int fc_search_sort_records(const fc_search *s, uint8_t *recs, uint32_t *order);
void fc_p64_gather(const uint8_t *recs, const uint32_t *idx, uint64_t count, uint8_t *out);

/* The order of the n records at recs (n*64 bytes), bytewise ascending, into order[0 .. n-1] (records.c: a
   radix sort of their indices, 16 bytes a record of working memory; equal records side by side). 0,
   FC_ENOMEM, or FC_ERANGE when n is 2^32 or more. fc_p64_gather then copies them in that order. */
int fc_p64_order(const uint8_t *recs, uint64_t n, uint32_t *order);

/* Sorted runs of records merged (certgen/upto.py's external sort): run i is the len records at rec, in the
   order idx (NULL: as they are), its next one the at-th. The smallest next record of all the runs is taken,
   again and again, and written to out unless it equals the last one written (last, 64 bytes, when
   *has_last; both updated), so the stream written is ascending without repeats across calls. Stops when cap
   records were written or a run's records are used up (at == len: the caller gives it its next records, or
   drops it); nothing is taken when a run has none at the start. Returns the records written, or FC_ENOMEM. */
typedef struct { const uint8_t *rec; const uint32_t *idx; uint64_t at, len; } fc_run;
int64_t fc_p64_merge(fc_run *runs, int k, uint8_t *last, int *has_last, uint8_t *out, uint64_t cap);

/* States idx[0 .. count-1] as count*64 bytes of P64 into out. Returns the number written (it stops at
   an index out of range). */
uint64_t fc_search_export_p64_at(const fc_search *s, const uint32_t *idx, uint64_t count, uint8_t *out);

/* A certificate up to column order (certgen/columns.py) names each position with its columns in the
   checkers' order: sorted by their bottom card (a column's first byte in P64), empty columns last. This puts
   n P64 records (n*64 bytes at recs) into that order in place, cells untouched; a record without eight
   column ends is left as it is. Not the search's own canonical order (canon_key sorts packed words): the
   certificate builder's, untrusted like the rest of this core (the checkers put every position in that
   order themselves). */
void fc_p64_column_order(uint8_t *recs, uint64_t n);

/* The state whose expansion first found idx; -1 for the start (and for idx out of range). Parents are not
   stored per state in FC_ORDER_BFS/DFS (see "The search" above): BFS answers in microseconds, DFS replays
   the search's order of expansion from its event bitmap (a pass over 2 bits a state, no positions). */
int64_t fc_search_parent(const fc_search *s, uint64_t idx);

/* The states from the start (0) to idx, each the parent of the next, written to out when they fit in cap
   (one replay in DFS). Returns their number (write nothing when it exceeds cap), or a negative error. */
int64_t fc_search_path(const fc_search *s, uint64_t idx, uint64_t *out, uint64_t cap);

/* Successors of state idx exactly as the search generates them (same encoding and code path as the
   enumeration, after autoplay; columns in the stored order, not canonicalised), as P64 into out
   (cap*64 bytes). Returns the count or a negative error. */
int fc_search_successors_p64(const fc_search *s, uint64_t idx, uint8_t *out, int cap);

/* Index of the position given as P64 among the stored states (canonicalised first in canonical
   mode), or -1 when absent. */
int64_t fc_search_find_p64(const fc_search *s, const uint8_t *in64);

/* Bytes of memory the search holds now (arena + hash table + parent bitmap + DFS stack). */
uint64_t fc_search_memory(const fc_search *s);

/* Stored states that do not pack into the 16-byte compact key (127 bits; see docs/ARCHITECTURE.md, "The compact
   store"): kept whole in the 40-byte form; all of them in a search that never packs (FC_ORDER_BEST). */
uint64_t fc_search_overflow(const fc_search *s);

/* The store of a BFS/DFS search holds 40-byte keys (fast to store and read back) until it holds `states`
   positions, FC_COMPACT_AT by default, then moves to 16-byte compact keys once (small at scale): the same
   states, indices, parents and order either way. 0: at the next expansion (tests). Only before the move. */
#define FC_COMPACT_AT 262144
void fc_search_compact_at(fc_search *s, uint64_t states);

/* ---- the solver: a winning line as single-card moves ---------------------------------------------------
 *
 * A move is a 16-bit code: card | dest << 8, dest 0..7 a column, FC_TO_CELL the free cells, FC_TO_HOME the
 * card's foundation. The source is wherever the card is in the position the move is applied to: the top
 * of a column, a free cell, or (foundation returns only) the top of its foundation. So a line of codes
 * replays unambiguously from its start position, under the spec's rules (cells, foundation_return).
 */
#define FC_TO_CELL 8
#define FC_TO_HOME 9
#define FC_MAX_LINE 65535    /* longest line fc_solve / fc_search_moves / fc_shorten write */
#define FC_NWEIGHTS 12

/* Move pruning of the solver's pruned stages (a position's successors are fewer, so a few deals are not
   solved by them and an unpruned stage takes over). */
#define FC_PRUNE_SWAP 1      /* a card lying on its stacking parent does not move onto another column */
#define FC_PRUNE_BREAK 2     /* ... nor alone onto an empty column */
#define FC_PRUNE_LONGEST 4   /* a sequence goes to an empty column whole (as much as may move) only */
#define FC_PRUNE_CELL 8      /* a card lying on its stacking parent does not go into a free cell */
#define FC_PRUNE_ALL 15
#define FC_MAX_STAGES 16

/* The bases of the built-in portfolio's weights (solve.c: W_D, W_D2, W_CELLS, W_GREEDY), for a caller's own
   stages (fc_weights): the plain weights, the depth counting less, the free cells and columns stressed, the
   depth ignored; each randomised, with its seed. */
#define FC_WEIGHTS_D 0
#define FC_WEIGHTS_D2 1
#define FC_WEIGHTS_CELLS 2
#define FC_WEIGHTS_GREEDY 3

typedef struct {
    uint64_t max_states;     /* positions the last (unpruned) stage may store; 0 = no limit. Every
                                stage stores at most this many */
    int single_stage;        /* 1: only the last stage (unpruned, the default weights) */
    int shorten;             /* post-pass on the found line: 0 none; 1 cycles and one-move shortcuts;
                                2 also two-move shortcuts (slower) */
    int supermoves;          /* 1: the search also moves a whole sequence in one step (written out as
                                single-card moves through the free cells and empty columns) */
    int nstages;             /* tuning only: 1..FC_MAX_STAGES replaces the built-in portfolio (solve.c,
                                PORTFOLIO) by the stages below; 0 = the built-in one */
    int stage_prune[16];     /* per stage: FC_PRUNE_* flags (0 = none) */
    uint64_t stage_states[16];/* per stage: positions it may store (0 = max_states) */
    int stage_weights[16][12];/* per stage: heuristic weights (best.c: score, heap_push) */
} fc_solve_opts;

typedef struct {
    int status;              /* FC_WON (a line was written), FC_DONE (every position the solver's own
                                moves reach was searched, no win: with autoplay/canonical this is NOT
                                a proof), FC_LIMIT (max_states), or a negative error */
    uint64_t states;         /* positions stored (every stage run) */
    uint64_t expanded;       /* positions expanded (every stage run) */
    int stages;              /* stages run */
    int found_len;           /* single-card moves in the line as found (automatic moves written out) */
    int len;                 /* single-card moves written (after shortening) */
} fc_solve_result;

/* Best-first search for a won position from `start` under `rules` (cells, foundation_return: the moves;
   autoplay and canonical: the solver's speed-ups, e.g. FC_AUTOPLAY_SAFE + canonical), as a portfolio
   of stages run one after the other until one finds a win: short searches with the move pruning and
   different (partly randomised) heuristic weights, then one without pruning up to opts->max_states
   (solve.c: PORTFOLIO). Then the line to the won position as single-card moves
   in the plain rules (every automatic move written out as a move to the foundation, every sequence move
   card by card, columns in their real places), shortened per opts->shorten, into moves[0..cap).
   Returns the number of moves written (>= 0) when status is FC_WON, else 0 or a negative error.
   FC_DONE means the last (unpruned) stage ran out of positions without a win. */
int fc_solve(const fc_pos *start, const fc_rules *rules, const fc_solve_opts *opts, uint16_t *moves,
             int cap, fc_solve_result *out);

/* The FC_NWEIGHTS weights of base `base` (FC_WEIGHTS_*) with the tie-breaking seed `seed` (the stages of
   fc_solve_opts.stage_weights), into w. 0, or FC_ERANGE for an unknown base. */
int fc_weights(int base, int seed, int *w);

/* The line from the start of search s (as given to fc_search_new, before its autoplay) to state idx,
   as single-card move codes in the plain rules. Returns the count or a negative error. */
int fc_search_moves(const fc_search *s, uint64_t idx, uint16_t *moves, int cap);

/* Shorten a line of moves (codes, plain rules: rules->autoplay and canonical are ignored) from start:
   removes cycles and takes shortcuts (level 1: one move; level 2: up to two moves) to later positions
   of the line, positions compared up to the order of the columns. The line ends where the input ends
   (up to column order). Returns the new length, or FC_EILLEGAL if the input line is not legal. */
int fc_shorten(const fc_pos *start, const fc_rules *rules, const uint16_t *moves, int n, int level,
               uint16_t *out, int cap);

/* Apply one move code to p in place if it is legal under the rules (plain rules: no autoplay).
   0, or FC_EILLEGAL (p unchanged). */
int fc_apply_move(fc_pos *p, const fc_rules *rules, uint16_t move);

/* ---- the survey's batch: many deals in one call ------------------------------------------------------
 *
 * fc_deal: deal n of FreeCell Pro's range 1..8,589,934,591 (Microsoft's generator below 2^31, FreeCell
 * Pro's above: issue 12's rule; solver/deals.py is the Python twin) into out. 0 or FC_ERANGE.
 *
 * fc_solve_deals: fc_solve on deals first .. first+count-1, one after the other, the solver's memory kept
 * from deal to deal. For deal first+i: status[i] (as fc_solve_result.status), states[i] the positions
 * stored, len[i] its line's length (-1 unless FC_WON) and offset[i] where the line starts in moves (the
 * lines of the won deals follow each other), seconds[i] the CPU time the deal took. Returns the number
 * of deals done: fewer than count when moves (cap codes) is full -- the caller goes on from there (with
 * cap >= FC_MAX_LINE at least one deal is done) -- or a negative error. Nothing here is trusted: the
 * caller replays the lines (certgen/survey.py: the independent checker's replay, checker/fccheck.c). */
int fc_deal(uint64_t n, fc_pos *out);

int fc_solve_deals(uint64_t first, int count, const fc_rules *rules, const fc_solve_opts *opts,
                   int32_t *status, int32_t *len, uint64_t *states, uint64_t *offset, double *seconds,
                   uint16_t *moves, uint64_t cap);

/* ---- the enumeration on disk: delayed duplicate detection ----------------------------------------------
 *
 * The same reachable set as fc_search_new/run (any order gives the same set), found breadth first by
 * layers with the visited positions kept in files instead of a hash table: memory is a buffer of `mem`
 * bytes (24-byte keys: mem/24 of them; the position packed as in the memory store but into up to 191 bits,
 * which every position fits: docs/ARCHITECTURE.md, "The enumeration on disk") plus about 90 KB a file being merged; disk is
 * about 1 byte a position (the files are compressed: docs/ARCHITECTURE.md, "The files"), plus the sorted runs of the layer
 * being merged (docs/ARCHITECTURE.md, "The enumeration on disk"); `disk` and `disk_peak` count the files' real bytes. Files
 * go into `dir` (which must exist) and are removed by fc_ddd_free. Positions that do not pack into the key
 * (none at its full width; with fewer key_bits, for tests) are kept whole in memory, in an overflow set of
 * every layer (50 to 100 bytes each), expanded with their layer and merged into the P64 order; the set may
 * take mem/4 bytes (at least 1 MB) besides the buffer: past that the search stops with FC_EOVERFLOW.
 * Not with rules.hand (FC_EBADRULES).
 * Resumable (fc_ddd_keep, fc_ddd_resume): a checkpoint -- one small state file, no layer file copied -- at
 * the end of every layer; a search stopped anywhere goes on from the last one in the same folder.
 */
typedef struct fc_ddd fc_ddd;         /* opaque */

typedef struct {
    uint64_t states;         /* distinct positions found (every layer) */
    uint64_t expanded;       /* positions whose successors were generated */
    uint64_t generated;      /* successors generated, duplicates included */
    uint64_t layer;          /* the layer being expanded or merged (0 = the start) */
    uint64_t layer_states;   /* positions in that layer */
    uint64_t runs;           /* sorted runs made, every layer (written as files but a layer's last, kept in memory) */
    uint64_t disk;           /* bytes in its files now */
    uint64_t disk_peak;      /* most bytes in its files at any time */
    uint64_t memory;         /* bytes of its successor buffer (24 a key) */
    uint64_t overflow;       /* positions in the overflow set (they do not pack into the key; in `states`) */
    uint64_t overflow_memory;/* bytes the overflow set holds */
    uint64_t overflow_limit; /* bytes it may hold (FC_EOVERFLOW past them) */
    int max_home;            /* most cards on the foundations in a position found */
    int won;                 /* 1 when a won position was found */
    int status;              /* FC_RUNNING, FC_DONE, FC_WON, FC_LIMIT or a negative error */
    int sys_errno;           /* FC_EIO: the errno of the failed file operation (ENOSPC: the disk is full) */
    uint64_t checkpoints;    /* state files written (fc_ddd_keep) */
    uint64_t checkpoint_bytes;   /* the last one's size */
    double checkpoint_seconds;   /* wall time spent writing them, fsync included */
    int resumed;             /* 1: made by fc_ddd_resume ... */
    uint64_t resumed_layer;  /* ... from this layer (expanded next) */
    uint64_t resumed_states; /* ... with this many positions found */
    double prior_seconds;    /* processor time in fc_ddd_run of the earlier runs, up to the checkpoint this one went on
                                from (the state file keeps the total: a run's work after its last checkpoint,
                                done again, counts once); 0 for a new search */
    uint64_t sort_runs;      /* the sort into P64 order (fc_ddd_sort_step): runs written, each a step ... */
    uint64_t sorted;         /* ... and the positions in them (of states - overflow) */
    int sort_resumed;        /* 1: fc_ddd_resume went on with the sort from the folder's sort state, with ... */
    uint64_t sort_resumed_runs;      /* ... these runs and ... */
    uint64_t sort_resumed_positions; /* ... these positions sorted */
} fc_ddd_info;

/* A new disk search from `start`; mem: bytes of the successor buffer (at least 12288 are used: 512 keys);
   max_states: 0 = no limit; stop_on_win as fc_search_new; key_bits: 0 (the key's 191 bits, enough for every
   position), or 1..190 for tests: positions needing more bits go to the overflow set. NULL on failure with
   *err set. */
fc_ddd *fc_ddd_new(const fc_pos *start, const fc_rules *rules, const char *dir, uint64_t mem, uint64_t max_states,
                   int stop_on_win, int key_bits, int *err);

/* Remove its files and release its memory (in keep mode the files of the last checkpoint and its state file
   stay). NULL is fine. */
void fc_ddd_free(fc_ddd *d);

/* Checkpoints. on = 1 (only between layers: right after fc_ddd_new or fc_ddd_resume): write the state file
   `search.state` in the folder now and at the end of every layer (a temporary name, fsync'd, renamed; the
   counters, the start, rules and key bits, the search's random number (in every file's head) and its time so
   far, each live layer file's name and byte size, the overflow set; no layer file is copied), and let
   fc_ddd_free keep the files it lists (and the sort's: fc_ddd_sort_step). on = 0: remove the state files;
   fc_ddd_free removes every file again (the natural end: the caller turns it off once the certificate is
   written). 0 or a negative error (FC_ERANGE: not between layers, or a search with a target: fc_ddd_target). */
int fc_ddd_keep(fc_ddd *d, int on);

/* Go on with the search whose state file is in `dir`, from the layer its last checkpoint was written at
   (keep mode on). start, rules and key_bits must be the search's (else FC_EOTHER); mem, max_states and
   stop_on_win may differ. Every file the state lists must exist with its recorded byte size and its head
   (this search's number, the file's kind and number; else FC_ESTATE, as for a state file of another
   format); the search's other files in dir (runs, a half-written layer) are removed. A search that had ended
   and begun its sort goes on with the sort (status FC_DONE: fc_ddd_sort_step) from the sort state
   `sort.state` when that state holds together with this search state and the runs it lists (their byte
   sizes and heads); else the sort starts again (from its first run when only the runs do not match; from the
   search state, its last layer expanded again, when the sort state itself does not), and why says so in one
   line. NULL on failure with *err set and a one-line reason in why (whylen bytes); then no file of the
   folder is touched. */
fc_ddd *fc_ddd_resume(const fc_pos *start, const fc_rules *rules, const char *dir, uint64_t mem,
                      uint64_t max_states, int stop_on_win, int key_bits, int *err, char *why, uint64_t whylen);

/* Work up to max_expand units (an expansion, or 64 positions merged; 0 = to the end). Returns the status.
   At FC_WON the successor buffer is released (nothing needs it after a win). */
int fc_ddd_run(fc_ddd *d, uint64_t max_expand);

void fc_ddd_stats(const fc_ddd *d, fc_ddd_info *out);

/* After a won position (or the target) was found: the positions from layer *first to the won one as P64
   records into out (cap records), each one move (plus autoplay) from the one before (up to column order when
   the rules are canonical). *first is 0 (the start) unless more than DDD_MAXF = 32 layers were live and the
   older ones were merged into one file (their depths are gone): then the oldest layer kept (a multiple of
   32), or the won one's when it was met before. first NULL: FC_ERANGE when they were merged. Returns their
   number (nothing written when it exceeds cap), or a negative error. The rest of the line (the start to the
   first of these) is another search's: fc_ddd_target. */
int64_t fc_ddd_line(fc_ddd *d, uint8_t *out, uint64_t cap, uint64_t *first);

/* The bytes the overflow set (the positions that do not pack into the key, kept whole in memory) may
   take: by default a quarter of mem (at least 1 MB); at least 1 MB. Any time; 0. */
int fc_ddd_overflow_limit(fc_ddd *d, uint64_t bytes);

/* Look for one position instead of a won one: the P64 record p64, as the search stores it (after autoplay,
   up to column order when the rules are canonical; any order of its columns is taken then). Met as a
   successor, in the overflow set, in a merge or as the start, it counts as the won position does without a
   target (stats' won, FC_WON with stop_on_win, fc_ddd_line); a won position no longer counts. Only right after
   fc_ddd_new (no checkpoint: fc_ddd_keep refuses a search with a target; not when its start was won and
   it stopped there). 0, FC_ERANGE (too late, or a search in keep mode), FC_EBADPOS or FC_EENCODE. */
int fc_ddd_target(fc_ddd *d, const uint8_t *p64);

/* After FC_DONE: put the positions in the order of their P64 records, a step a call: each step reads the next
   chunk of the visited files (as many keys as the buffer sorts at once: mem / 40), sorts it and writes it as
   a sorted run; the last step opens their merge (fc_ddd_next_p64). In keep mode the layer files stay and each
   step ends by writing the sort state `sort.state` (its runs, where the next chunk begins; fsync'd and
   renamed as the search state is), so a search resumed after a kill goes on from its last finished run; else
   each file goes once read. Returns 1 (more steps), 0 (sorted), or a negative error: FC_ESTOPPED when
   fc_ddd_cancel was called during the step (its run is dropped; the search is then only good for
   fc_ddd_free). */
int fc_ddd_sort_step(fc_ddd *d);

/* Stop the sort's step under way (fc_ddd_sort_step, called in another thread) within about a second: it
   looks at this flag every 65,536 keys read or written and between pieces of 2^18 keys sorted. */
void fc_ddd_cancel(fc_ddd *d);

/* After fc_ddd_sort_step returned 0: the next positions in P64 order (distinct) as cap*64 bytes into out. Returns
   the number written; 0 at the end (or after an error: see the stats' status). */
uint64_t fc_ddd_next_p64(fc_ddd *d, uint8_t *out, uint64_t cap);

/* The disk search's files alone, for tests (docs/ARCHITECTURE.md, "The files"): write n elements to path as a file of
   keys (recs 0: 24 bytes each, the key's low, middle then high 64 bits in the machine's byte order,
   ascending as 192-bit numbers, below 2^191 (the reader refuses larger ones), repeats allowed) or of P64
   records (recs 1: 64 bytes each, ascending), after the head of format 3 (docs/ARCHITECTURE.md, "The files") with search
   number 0, kind L (keys) or S (records) and number 0. Returns the
   file's bytes, or FC_EIO with *sys_errno set (EINVAL: not ascending). */
int64_t fc_ddd_file_write(const char *path, int recs, const uint8_t *data, uint64_t n, int *sys_errno);

/* Read such a file back: its elements (the first cap of them into out); returns their number, or FC_EIO
   with *sys_errno set (EIO: the file is damaged, truncated, not of this kind, or its head is not that head),
   or FC_ENOMEM. */
int64_t fc_ddd_file_read(const char *path, int recs, uint8_t *out, uint64_t cap, int *sys_errno);
