"""Every default limit and every bytes-a-position figure, in one place (pure Python: ``--help`` reads them
without loading the C core). A search that reaches its limit ends with "unknown", never out of memory.

Limits are positions a search may store. Bytes-a-position figures say what a stored position costs, each
measured for one store and used for one purpose (named by it):

* ``STORE_BYTES_PER_POSITION`` (24): the enumeration's compact in-memory store (solver/store.c: a 16-byte key,
  1.25 to 1.875 4-byte table slots, 2 bits of parents), as it runs: 23.2 bytes measured at 2.95 M positions,
  23.7 at 100 M (scripts/bench.py --store). ``--memory M`` enumerates in memory up to M / 24 positions, then
  on disk (solver.disksearch.explore_within).
* ``STORE_BYTES_PER_POSITION_WORST`` (42): the same store at its worst: positions past the 16-byte key are
  kept in 40 bytes (deal 982's 2-cell set up to column order had 16.2 GB when the out-of-memory killer
  stopped it short of 400,000,000 positions; 26 let two such processes start on a 24 GB machine); what the
  difficulty survey counts a process's enumeration at (its --jobs guard, solver.difficulty.job_memory).
* ``SOLVER_BYTES_PER_POSITION`` (60): the solver's best-first store at its peak: 5,761,816 KB at 100,279,000
  positions, 58.8 bytes (deal 13599 with 1 cell, `solve --max-states 100000000`); the difficulty survey's
  solver memory (solver.difficulty.solver_memory).
* ``COMMAND_BYTES_PER_POSITION`` (90): an upper bound for every command, the search with what comes after it
  (the solver's store, the checks after `build`/`prove`; docs/TRUST.md, scripts/bench.py): what --help says
  --max-states costs (solver.cliargs.memory_words).
* ``SORT_BYTES_PER_RECORD`` (128): a record held in a run while a certificate up to column order is sorted
  (an upper bound: 64 bytes in the run's buffer, 20 to sort it, and the buffer's growth; certgen/upto.py).
"""

# --- default limits: positions a search may store, then "unknown" ---------------------------------------------

EXPLORE_STATES = 20_000_000         # explore, build, prove: the enumeration in memory (1.8 GB at the most)
ANALYZE_STATES = 5_000_000          # analyze
SOLVE_STATES = 3_000_000            # solve, prove-win, each deal of both surveys' first pass
HAND_STATES = 20_000_000            # explore --hand 1
DEEP_STAGE_STATES = 25_000_000      # each pruned stage of the deep portfolio (solve --deep; solver.solve.DEEP)
DEEP_STATES = 100_000_000           # solve --deep: the last, unpruned stage
PROVE_QUICK_SOLVE_STATES = 50_000    # prove's first try of the solver (most winning lines: hundreds to thousands)
PROVE_FIRST_SOLVE_STATES = 1_000_000  # then the enumeration, then the solver, each up to this (about 0.1 GB)
DISK_WIN_STATES = 1_000_000         # --on-disk, --work-dir: the depth-first search in memory for a win first (24 MB)
CERTIFY_STATES = 20_000_000         # certify-list: the fixed form
CERTIFY_CANONICAL_STATES = 120_000_000  # certify-list: the form up to column order in memory (#24795893: 65,441,019)
PLAY_VERDICT_STATES = 1_000_000     # the web page: each search of a verdict
PLAY_HINT_STATES = 300_000          # the web page: one hint's search (the survey of 1..32000 needs fewer)
FASTCHECK_INDEX_STATES = 50_000_000  # the fast checker: a hash index of the records' places (10 bytes a position,
                                    # 0.5 GB at the most) up to this; past it binary searches, 11-15 bytes a position
SAMPLE_MEMORY = 4 << 30             # check --reference --sample: the records held in memory (64 bytes each) up to
                                    # this; past it read twice from disk, memory independent of their number
PROVE_SAMPLE = 1_000                # prove: members whose closure the sampled reference checks when a kernel checks them all

# The difficulty survey's ladder of tiers (solver.difficulty.Tier): (solver limit, enumeration limit[, disk
# buffer in bytes, up to column order, the deep portfolio, automatic moves]). An enumeration in memory costs
# STORE_BYTES_PER_POSITION a position as it runs (tier 4's 400,000,000 about 9 GB) and up to
# STORE_BYTES_PER_POSITION_WORST; tier 5 enumerates on disk with a buffer of DIFFICULTY_DISK_BUFFER bytes.
DIFFICULTY_DISK_BUFFER = 4 << 30
DIFFICULTY_TIERS = ((100_000, 2_000_000), (2_000_000, 20_000_000), (20_000_000, 80_000_000),
                    (20_000_000, 400_000_000, None, True),
                    (100_000_000, 4_000_000_000, DIFFICULTY_DISK_BUFFER, True, True, "safe"))
SURVEY_MAX_DEALS = 10_000_000       # deals in one plain survey (its rows are kept in memory)

# --- the most any command takes ---------------------------------------------------------------------------------

IN_MEMORY_MAX_STATES = 2 ** 31 - 1  # the in-memory store numbers positions with 31 bits (MAX_STATES_CAP, fc_internal.h)
DISK_MAX_STATES = 2 ** 40           # with --memory (the disk search counts in 64 bits): certgen.certificate.MAX_STATES
MIN_MEMORY = 1 << 16                # the disk search's smallest buffer (fc_ddd_new)
MAX_MEMORY = 1 << 50                # 1024T: more than any machine has; the core takes sizes up to 2**64 - 1

# --- bytes a position (see the module docstring) ---------------------------------------------------------------

STORE_BYTES_PER_POSITION = 24
STORE_BYTES_PER_POSITION_WORST = 42
SOLVER_BYTES_PER_POSITION = 60
COMMAND_BYTES_PER_POSITION = 90
SORT_BYTES_PER_RECORD = 128
