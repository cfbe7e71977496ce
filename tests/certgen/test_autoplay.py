"""Certificates with safe automatic moves, up to column order (header rules ``"column_order": true, "autoplay":
"safe"``): built by ``certgen build --canonical --autoplay safe``, checked by the three checkers (certgen/checker.py
and its --sample, build/fccheck), each taking every position after its safe automatic moves with its own copy of
them (certgen/autoplay.py, fccheck's autoplay) before it puts it in the checkers' column order; their mutants (a
deleted member, a deleted successor, an added won position, a member not after its automatic moves) refused by
all three; Coq's CertAuto.v and the search of the same form the Coq modules run (Search.v's `checkSearchAuto`);
the copies against the C core's automatic moves on random positions; ``records_sha256``. Tests that run coqc are skipped where it is missing; the long one (#11982
with four cells, about two minutes) is marked slow."""
import collections
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import zlib

import msgpack
import pytest

from certgen import autoplay, certificate, checker, columns, coq, coqcheck, fastcheck, members, mutate, sampled
from solver import deals, packed, search, spec
from solver.rules import Rules

from helpers.checkers import checks, mutated, refused_by_both
from helpers.coq import COQC, coqc_file, needs_coqc, state_term, statement_checks
from helpers.positions import coq_low, random_state, walk

EXE = fastcheck.binary()
needs_fast = pytest.mark.skipif(EXE is None, reason=f"no fast checker: {fastcheck.why_not()}")
AUTO = {"cells": 4, "foundation_return": False, "column_order": True, "autoplay": "safe"}
SAFE = Rules(autoplay="safe")


def state_of(rec):
    return spec.from_position(packed.unpack(rec))


def p64(s):
    return packed.pack(spec.to_position(s))


def name(s):
    """How the checkers look a position up: after its safe automatic moves, in the checkers' column order."""
    return columns.canon(autoplay.autoplay(s))


def auto_cert(deal, cells):
    """The certificate of deal ``deal`` with ``cells`` free cells, as certgen build writes it (in memory)."""
    res = search.explore(deals.ms_deal(deal), Rules(cells=cells, canonical=True, autoplay="safe"))
    assert res.complete and not res.won
    recs = sorted({p64(columns.canon(state_of(r))) for r in res.records()})
    return certificate.make({"kind": "ms", "deal": deal}, {**AUTO, "cells": cells}, deals.ms_deal(deal), recs)


def unsettled(cert):
    """A position that is not after its safe automatic moves, in the checkers' column order: a successor of a
    member before its automatic moves (of the first such member in the records' order)."""
    rules = Rules.from_dict(cert.rules).plain().spec()
    for rec in cert.records:
        for t in spec.moves(rules, state_of(rec)):
            if not autoplay.settled(t):
                return columns.canon(t)
    raise AssertionError("no move of a member leaves a card that goes home")


def written(tmp_path, name_, cert):
    path = tmp_path / name_
    certificate.write(str(path), cert)
    return path


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """#11982 with 4 cells, by the command line: (path, certificate, build's stdout)."""
    path = tmp_path_factory.mktemp("auto") / "11982-auto.cert"
    p = subprocess.run([sys.executable, "-m", "certgen", "build", "--deal", "11982", "--canonical", "--autoplay",
                        "safe", "--out", str(path), "--no-progress"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return path, certificate.read(str(path)), p.stdout


def every_member(path, run):
    """The sampled check's JSON verdict on the certificate at ``path``, every member drawn, and its exit status."""
    p = run("check", "--json", "--reference", "--sample", "1000000", "--seed", "1", str(path), module="certgen")
    return json.loads(p.stdout), p.returncode


# -- the automatic moves, three times, against the C core's ------------------------------------------------

def test_the_automatic_moves_agree_with_the_core_on_random_positions():
    """certgen/autoplay.py (the twin of CertAuto.v's autoplay) and fccheck's autoplay give the C core's
    automatic moves (solver/fc_internal.h's safe_home, FC_AUTOPLAY_SAFE) on any position: random ones (cards home,
    empty columns, full cells) and random walks from four deals; ``settled_record`` (on a record's bytes) is
    ``settled``."""
    rng = random.Random(34)
    states = [random_state(rng, spec.Rules(cells=rng.randrange(9))) for _ in range(3000)]
    for deal in (1, 3, 11982, 24795893):
        states += walk(spec.Rules(), spec.ms_deal(deal), rng, 300)
    want = [spec.from_position(search.autoplay(spec.to_position(s), SAFE)) for s in states]
    got = [autoplay.autoplay(s) for s in states]
    assert got == want
    moved = sum(g != s for g, s in zip(got, states))
    assert moved > 1000 and sum(g.home == (13, 13, 13, 13) != s.home for g, s in zip(got, states)) > 10
    assert all(autoplay.settled(g) for g in got)
    assert [autoplay.settled_record(p64(s)) for s in states] == [autoplay.settled(s) for s in states]
    if EXE:
        p = subprocess.run([EXE, "--autoplay"], input=b"".join(map(p64, states)), capture_output=True)
        assert p.returncode == 0 and p.stdout == b"".join(map(p64, want))


def test_the_rule_is_autoplay_v_s_low_safe():
    """low_safe against Autoplay.v's lowSafe as helpers.positions.coq_low transliterates it from its Coq text, for
    every card and the other foundations at every height."""
    for x in range(52):
        c = spec.CARDS[x]
        for h in ((a, b, d, e) for a in range(14) for b in range(14) for d in range(0, 14, 3) for e in range(14)):
            assert autoplay.low_safe(h, c) == coq_low("safe", h, c.rank, c.suit)


@needs_fast
def test_fccheck_autoplay_refuses_a_non_position():
    p = subprocess.run([EXE, "--autoplay"], input=b"\x01" * 64, capture_output=True)
    assert p.returncode == 2 and p.stderr.decode().startswith("error: stdin: not a position")


# -- the build, and the three checkers ---------------------------------------------------------------------

def test_the_certificate_of_11982(built, run):
    path, cert, out = built
    assert cert.states == 61_643 and cert.rules == AUTO
    assert "up to column order, safe automatic moves" in out and "61,643" in out
    states = members.decode(cert).states
    assert all(columns.canon(s) == s and autoplay.settled(s) for s in states)
    assert cert.start == p64(spec.ms_deal(11982))           # the header's start is the deal as dealt
    info = json.loads(run("info", "--json", str(path), module="certgen").stdout)
    assert info["rules"] == AUTO and info["states"] == 61_643
    text = run("info", str(path), module="certgen").stdout
    assert "up to column order with safe automatic moves: 61,643 states" in text


def test_the_three_checkers_agree_on_a_small_certificate(tmp_path, run):
    path = written(tmp_path, "Deal3Cells1.cert", auto_cert(3, 1))
    ref, fast, rc_ref, rc_fast = checks(path, run)
    every, rc_every = every_member(path, run)
    assert rc_ref == 0 and ref["valid"] and ref["states"] == 112 and ref["rules"] == {**AUTO, "cells": 1}
    assert ref["message"].startswith("valid for deal 3 under the rules with 1 free cell and nothing back from the "
                                     "foundations up to column order with safe automatic moves: 112 states;")
    if fast is not None:
        assert rc_fast == 0 and {k: fast[k] for k in ("valid", "states", "successors", "message", "rules")} == \
            {k: ref[k] for k in ("valid", "states", "successors", "message", "rules")}
    assert rc_every == 0 and every["successors"] == ref["successors"] > 112


@pytest.mark.slow
def test_the_three_checkers_find_it_valid_in_the_same_words(built, run):
    ref, fast, rc_ref, rc_fast = checks(built[0], run)
    every, rc_every = every_member(built[0], run)
    assert rc_ref == 0 and ref["valid"] and ref["successors"] == 220_154 and ref["rules"] == AUTO
    assert ref["message"] == (
        "valid for deal 11982 under the standard rules (4 free cells, nothing back from the foundations) up to "
        "column order with safe automatic moves: 61,643 states; the start position (after the safe automatic "
        "moves, its columns in the checkers' order) is in the set, every one of the 220,154 successors of its "
        "members (taken after the safe automatic moves and put in the checkers' column order) is in it, and none "
        "of them is won or holds a card that goes home by the safe rule")
    if fast is not None:
        assert rc_fast == 0 and {k: fast[k] for k in ("valid", "states", "successors", "message", "rules")} == \
            {k: ref[k] for k in ("valid", "states", "successors", "message", "rules")}
    assert rc_every == 0 and every["successors"] == 220_154
    assert "the start, the column order, the automatic moves and 'no member is won' on all" in every["message"]


def test_the_disk_search_writes_the_same_records(built, tmp_path, run):
    path = tmp_path / "disk.cert"
    p = run("build", "--deal", "11982", "--canonical", "--autoplay", "safe", "--memory", "1M", "--on-disk",
            "--out", str(path), module="certgen")
    assert p.returncode == 0, p.stderr
    assert certificate.read(str(path)).records == built[1].records


@pytest.mark.parametrize("deal,cells,states", [(3, 1, 112), (1, 1, 63)])
def test_fewer_positions_than_up_to_column_order_alone(deal, cells, states):
    cert = auto_cert(deal, cells)
    assert cert.states == states and checker.check(cert).ok
    assert search.explore(deals.ms_deal(deal), Rules(cells=cells, canonical=True)).states > states


# -- the mutants: refused by the three checkers --------------------------------------------------------

def refused_by_all(path, run, failure):
    """Refused by the reference checker and the fast one in the same words (helpers.checkers), and by the
    sampled check with every member drawn: the same failure."""
    ref = refused_by_both(path, run, failure)
    every, rc_every = every_member(path, run)
    assert rc_every == 1 and every["failure"] == failure
    return ref


@pytest.mark.parametrize("kind,failure", [("deal", "start"), ("first-successor", "successor"),
                                          ("last-successor", "successor"),
                                          # a third "successor" refusal, found deep in the set: slow
                                          pytest.param("random:1", "successor", marks=pytest.mark.slow),
                                          ("add-won", "won")])
def test_mutants_are_refused(built, tmp_path, run, kind, failure):
    ref = refused_by_all(mutated(built[0], tmp_path, run, kind), run, failure)
    if kind == "deal":      # the start after its automatic moves, in the checkers' order, is gone
        assert "the start position (after the safe automatic moves, its columns in the checkers' order) is not " \
               "in the certificate: " + checker.describe(name(spec.ms_deal(11982))) in ref["message"]
    if kind == "first-successor":
        first = spec.moves(spec.Rules(), spec.ms_deal(11982))[0]
        assert "missing " + checker.describe(name(first)) in ref["message"]


def test_a_member_not_after_its_automatic_moves_is_refused(built, tmp_path, run):
    """A position with a card that goes home by the safe rule, added: every move of it may well lead into the
    set, but it is not after its automatic moves, and the three checkers refuse it (the sampled one on the
    pass over every member, even when it does not draw it)."""
    cert = built[1]
    extra = unsettled(cert)
    assert p64(extra) not in set(cert.records) and columns.canon(extra) == extra
    path = written(tmp_path, "unsettled.cert", certificate.make(cert.source, cert.rules, spec.to_position(
        spec.ms_deal(11982)), cert.records + [p64(extra)], {}))
    ref = refused_by_all(path, run, "autoplay")
    assert ref["message"].endswith(checker.NOT_SETTLED + ": " + checker.describe(extra))
    head, body = certificate.read_joined(str(path))
    res = sampled.check(head, body, 1, 1)
    assert (res.failure, res.misplaced) == ("autoplay", extra)
    assert res.message == checker.NOT_SETTLED[:-1] + "; checked on every member)"


@needs_fast
def test_a_successor_that_uncovers_a_card_going_home_is_looked_up_after_its_automatic_moves(tmp_path, run):
    """fccheck takes a successor of a member (settled: checked before its moves) through the automatic moves
    only when its move changes the foundations or uncovers a card that goes home by the safe rule. #23 with one
    free cell: of the 12 moves of its 13 members that leave the foundations alone (the start's class aside), 1
    uncovers such a card and 11 do not; the set is valid for the three checkers, and the set without the
    successor of either kind, named after its automatic moves, is refused by them in the same words."""
    cert = auto_cert(23, 1)
    rules = Rules.from_dict(cert.rules).plain().spec()
    start = name(spec.ms_deal(23))
    kinds = {}
    for rec in cert.records:
        s = state_of(rec)
        for t in spec.moves(rules, s):
            if t.home == s.home and name(t) != start:
                kinds.setdefault(autoplay.autoplay(t) != t, []).append(t)
    assert cert.states == 13 and (len(kinds[True]), len(kinds[False])) == (1, 11)
    ref, fast, rc_ref, rc_fast = checks(written(tmp_path, "23.cert", cert), run)
    assert (rc_ref, rc_fast, ref["valid"], fast["valid"]) == (0, 0, True, True)
    assert every_member(written(tmp_path, "23.cert", cert), run)[1] == 0
    for goes_home in (True, False):
        gone = p64(name(kinds[goes_home][0]))
        assert gone in cert.records and (gone == p64(columns.canon(kinds[goes_home][0]))) != goes_home
        mutant = certificate.Certificate(cert.source, cert.rules, cert.start,
                                         [r for r in cert.records if r != gone], {})
        ref = refused_by_all(written(tmp_path, f"gone-{goes_home}.cert", mutant), run, "successor")
        assert "missing " + checker.describe(name(kinds[goes_home][0])) in ref["message"]


# A driver of fccheck's own functions: P64 records on stdin, each taken after its safe automatic moves (so
# settled); each successor (argv[1] free cells) through autoplay_after and through autoplay, the two compared, then
# put in the checkers' column order in place and from another buffer, the two compared; the member in that order,
# each successor the check does not put in order (autoplay_after moved no card and the move changed no column's
# bottom card: bottoms[k] 0) counted and compared with the same in order.
LEMMA_DRIVER = """
#define main fccheck_main
#include "%s"
#undef main
int main(int argc, char **argv) {
    static unsigned char succ[MAXMOVES * P64], up[MAXMOVES], bottoms[MAXMOVES];
    unsigned char rec[P64], a[P64], b[P64], c[P64];
    Rules r = {atoi(argv[1]), 0, 1, 1};
    long nsucc = 0, skipped = 0, differ = 0, order_differ = 0, unordered = 0, out_of_order = 0;
    (void)argc;
    while (fread(rec, 1, P64, stdin) == P64) {
        Pos s;
        int n, k;
        if (parse(rec, &s)) return 2;
        autoplay(rec, c);
        column_order(c, rec);
        layout(rec, &s);
        n = moves(&r, &s, succ, up, bottoms);
        for (k = 0; k < n; k++, nsucc++) {
            int moved;
            memcpy(a, succ + P64 * k, P64);
            autoplay(succ + P64 * k, b);
            skipped += !(up[k] == HOME_CHANGED || (up[k] && home_safe(s.home, up[k])));
            moved = autoplay_after(&s, up[k], a);
            differ += memcmp(a, b, P64) != 0;
            if (!moved && !bottoms[k]) {
                unordered++;
                column_order(a, c);
                out_of_order += memcmp(a, c, P64) != 0;
            }
            memcpy(c, b, P64);
            column_order(b, a);
            column_order(c, c);
            order_differ += memcmp(a, c, P64) != 0;
        }
    }
    printf("%%ld %%ld %%ld %%ld %%ld %%ld\\n", nsucc, skipped, unordered, differ, order_differ, out_of_order);
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
@pytest.mark.parametrize("cells,figures", [(1, (10981, 10063, 6421)), (4, (15173, 14063, 10698))])
def test_fccheck_skips_the_automatic_moves_and_the_column_order_only_where_they_change_nothing(tmp_path, cells, figures):
    """fccheck's autoplay_after on each successor of a settled position (2,000 positions, random ones and ones of
    random games, each after its automatic moves) is its autoplay: the move leaves the foundations alone and
    uncovers no card that goes home for most of them (the figures), and none of those has a card that goes home.
    Its column_order in place is the same as into another buffer. The successors of the member in the checkers'
    column order that the check does not put in that order (no automatic move, no column emptied or filled: the
    third figure) are in it already."""
    exe = tmp_path / "lemma"
    (tmp_path / "lemma.c").write_text(LEMMA_DRIVER % fastcheck.SOURCE)
    p = subprocess.run(["cc", "-O1", "-std=c99", "-o", str(exe), str(tmp_path / "lemma.c"), "-lz"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    rng, rules, recs = random.Random(cells), spec.Rules(cells=cells), []
    while len(recs) < 2000:
        s = random_state(rng, rules)
        if len(s.cells) <= cells:
            recs.append(p64(s))
            recs += [p64(t) for t in walk(rules, spec.ms_deal(rng.randrange(1, 10 ** 6)), rng, 40)[::4]]
    p = subprocess.run([str(exe), str(cells)], input=b"".join(recs[:2000]), capture_output=True)
    assert p.returncode == 0, p.stderr
    assert tuple(map(int, p.stdout.split())) == figures + (0, 0, 0)


def test_the_same_set_without_automatic_moves_in_its_rules_is_refused(built, tmp_path, run):
    """The records say nothing of the rules: the same set under plain column order is not closed (a move that
    uncovers a safe card leads out of it)."""
    cert = built[1]
    rules = {k: v for k, v in cert.rules.items() if k != "autoplay"}
    path = written(tmp_path, "plain.cert", certificate.Certificate(cert.source, rules, cert.start, cert.records, {}))
    ref = json.loads(run("check", "--reference", "--json", str(path), module="certgen").stdout)
    assert not ref["valid"] and ref["failure"] in ("start", "successor")


@pytest.mark.parametrize("rules", [
    {**AUTO, "autoplay": "horne"}, {**AUTO, "autoplay": True}, {**AUTO, "autoplay": None},
    {k: v for k, v in AUTO.items() if k != "column_order"}, {**AUTO, "foundation_return": True},
    {**AUTO, "autoplay": "safe", "supermoves": True}])
def test_other_rules_are_bad_rules_for_both_readers(built, tmp_path, run, assert_one_line_error, rules):
    cert = built[1]
    path = written(tmp_path, "bad.cert", certificate.Certificate(cert.source, rules, cert.start, cert.records[:5], {}))
    assert "bad rules in header" in assert_one_line_error(run("check", "--reference", str(path), module="certgen"))
    if EXE:
        assert "bad rules in header" in assert_one_line_error(run("check", str(path), module="certgen"))


def test_lean_refuses_it_in_one_line(built, tmp_path, run, assert_one_line_error):
    lean = tmp_path / "lean"
    line = assert_one_line_error(run("render", str(built[0]), "--lean-dir", str(lean), module="certgen"))
    assert "up to column order with safe automatic moves: Lean has no proof of the column lemma nor of the " \
           "lemma on automatic moves here" in line
    assert "prove-coq --canonical --autoplay safe" in line and not lean.exists()


# -- records_sha256 -------------------------------------------------------------------------------------

def test_info_prints_the_sha256_of_the_sorted_records_whatever_the_compression(built, tmp_path, run):
    path, cert, _ = built
    want = hashlib.sha256(b"".join(cert.records)).hexdigest()
    assert json.loads(run("info", "--json", str(path), module="certgen").stdout)["records_sha256"] == want
    # the same records compressed at level 1 (another file, another checksum): the same records_sha256
    top = msgpack.unpackb(path.read_bytes(), raw=False)
    body = zlib.compress(b"".join(cert.records), 1)
    assert body != top["body"]
    other = tmp_path / "level1.cert"
    other.write_bytes(msgpack.packb({**top, "body": body, "sha256": hashlib.sha256(top["header"] + body).hexdigest()},
                                    use_bin_type=True))
    got = json.loads(run("info", "--json", str(other), module="certgen").stdout)
    assert got["records_sha256"] == want and got["bytes"] != os.path.getsize(path)
    # in pieces (version 3), read whole (a FIFO-like path is not needed: summarize on the object), header only
    assert certificate.summarize(str(other)).records_sha256 == want
    assert json.loads(run("info", "--json", "--header-only", str(path), module="certgen").stdout)[
        "records_sha256"] is None
    mutant, _ = mutate.mutate(cert, "random:1", seed=3)
    assert certificate.records_sha256(mutant.records) != want


def test_records_sha256_of_a_version_3_certificate(tmp_path, monkeypatch):
    cert = auto_cert(3, 1)
    monkeypatch.setattr(certificate, "BODY_MAX", 100)       # pieces, as past 2**32 - 1 bytes
    monkeypatch.setattr(certificate, "PIECE", 64)
    path = written(tmp_path, "v3.cert", cert)
    assert msgpack.unpackb(path.read_bytes(), raw=False)["version"] == 3
    assert certificate.summarize(str(path)).records_sha256 == hashlib.sha256(b"".join(cert.records)).hexdigest()


# -- Coq: CertAuto.v ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def out(tmp_path_factory, coq_library):
    return coq_library(tmp_path_factory.mktemp("coq-auto"))


AUTO_THEOREMS = {
    "autoplay_reach": "forall s, AutoReachBy lowSafe s (autoplay s)",
    "checkCertAuto_fence":
        "forall hash r s0 c, checkCertAuto hash r s0 c = true -> foundationReturn r = false /\\ Valid s0 /\\ "
        "(exists m, In m (members c) /\\ exists u, AutoReachBy lowSafe s0 u /\\ SameUpToOrder u m) /\\ "
        "(forall s t, In s (members c) -> In t (moves r s) -> "
        "exists m, In m (members c) /\\ exists u, AutoReachBy lowSafe t u /\\ SameUpToOrder u m) /\\ "
        "(forall s, In s (members c) -> ~ Won s)",
    "unwinnable_of_cert_auto":
        "forall hash r s0 c, checkCertAuto hash r s0 c = true -> forall s, Reachable r s0 s -> ~ Won s",
}


@needs_coqc
def test_cert_auto_is_proved_and_its_autoplay_is_the_python_twin(out):
    """CertAuto.v's theorems have the statements written here and no axiom; its autoplay and settled compute
    what certgen/autoplay.py's do, on positions where cards go home (one, several, a whole suit, none)."""
    rng = random.Random(7)
    samples = [s for s in (random_state(rng, spec.Rules()) for _ in range(400)) if autoplay.autoplay(s) != s][:12]
    samples += walk(spec.Rules(), spec.ms_deal(3), rng, 40)[::8] + [spec.ms_deal(11982)]
    assert len(samples) == 18 and sum(autoplay.autoplay(s) != s for s in samples) >= 12     # docs/TRUST.md: 18
    lines = ["From Coq Require Import List PArith Permutation.",
             "From FreeCell Require Import Spec Cert Columns Autoplay CertUpTo CertAuto.", "Import ListNotations.",
             statement_checks(AUTO_THEOREMS)]
    lines += [f"Lemma auto_{n} : autoplay ({state_term(s)}) = {state_term(autoplay.autoplay(s))} /\\ "
              f"settled ({state_term(s)}) = {'true' if autoplay.settled(s) else 'false'}.\n"
              f"Proof. split; vm_compute; reflexivity. Qed." for n, s in enumerate(samples)]
    path = os.path.join(out, "coq", "AutoCheck.v")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    res = coqc_file(path, out)
    assert res.ok and res.output.count(coqcheck.CLOSED) == len(AUTO_THEOREMS), res.output[-3000:]
    # and a wrong claim is refused: a sample with a card home, said to be unchanged
    s = next(s for s in samples if autoplay.autoplay(s) != s)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines[:3]) + f"\nLemma auto_x : autoplay ({state_term(s)}) = {state_term(s)}.\n"
                "Proof. vm_compute. reflexivity. Qed.\n")
    assert not coqc_file(path, out).ok


@needs_coqc
@pytest.mark.parametrize("deal,cells", [(3, 1), pytest.param(1, 1, marks=pytest.mark.coq)])
def test_small_certificates_are_proven_by_coq(out, deal, cells):
    cert = auto_cert(deal, cells)
    path, ctx = coq.render_cert(cert, out, stem=f"Auto{deal}Cells{cells}")
    text = open(path, encoding="utf-8").read()
    assert f"Lemma search_ok : checkSearchAuto hashKey (rules {cells} false 0) (msDeal {deal}) = true." in text
    assert f"Theorem freecell_{deal}_unwinnable : forall s, Reachable (rules {cells} false 0) (msDeal {deal}) s -> " \
           f"~ Won s." in text
    status, res = coqcheck.check_file(path, ctx, out, COQC, coq.UNWINNABLE, say=lambda *_: None)   # and its driver
    assert status == 0 and res.only_primitives, res.output[-3000:]


@needs_coqc
@pytest.mark.coq
def test_a_board_start_is_proven_its_validity_computed(out):
    """A written-out start (a position of deal 3 with cards home, not a deal): CertAuto.v computes that it is
    valid (validb) instead of a lemma about one deal."""
    rng = random.Random(3)
    start = next(s for s in walk(spec.Rules(cells=1), spec.ms_deal(3), rng, 200) if sum(s.home) >= 3)
    res = search.explore(spec.to_position(start), Rules(cells=1, canonical=True, autoplay="safe"))
    assert res.complete and not res.won
    recs = sorted({p64(columns.canon(state_of(r))) for r in res.records()})
    cert = certificate.make({"kind": "board", "name": "deal3-mid.txt"}, {**AUTO, "cells": 1},
                            spec.to_position(start), recs)
    assert checker.check(cert).ok
    path, ctx = coq.render_cert(cert, out, stem="AutoBoard")
    assert "Definition start : State :=" in open(path, encoding="utf-8").read()
    status, run_ = coqcheck.check_file(path, ctx, out, COQC, coq.UNWINNABLE, say=lambda *_: None)   # and its driver
    assert status == 0 and run_.only_primitives, run_.output[-3000:]


def mutant_of(kind):
    """Deal 3 with one cell: its certificate with one thing wrong (and the mutation named in its info)."""
    good = auto_cert(3, 1)
    recs = list(good.records)
    start = name(spec.ms_deal(3))
    if kind == "delete-start":
        recs.remove(p64(start))
    elif kind == "delete-successor":        # the start's last successor, after its automatic moves
        recs.remove(p64(name(spec.moves(spec.Rules(cells=1), start)[-1])))
    elif kind == "add-won":
        recs.append(packed.pack((((),) * 8, (), (13, 13, 13, 13))))
    else:                                   # a member not after its automatic moves
        recs.append(p64(unsettled(good)))
    return certificate.make(good.source, good.rules, deals.ms_deal(3), sorted(set(recs)),
                            info={"mutation": {"kind": kind}})


MUTANTS = [("delete-start", "start"), ("delete-successor", "successor"), ("add-won", "won"), ("unsettled", "autoplay")]


@pytest.mark.parametrize("kind,failure", MUTANTS)
def test_mutants_fail_the_python_and_fast_checks(tmp_path, run, kind, failure):
    refused_by_all(written(tmp_path, "m.cert", mutant_of(kind)), run, failure)


@needs_coqc
def test_prove_coq_command(out, tmp_path):
    # into the module's folder, whose Coq library the tests above compiled
    p = subprocess.run([sys.executable, "-m", "certgen", "prove-coq", "--deal", "3", "--cells", "1", "--canonical",
                        "--autoplay", "safe", "--out-dir", out, "--no-progress"], cwd=tmp_path, capture_output=True,
                       text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.strip().splitlines()[-1].startswith(
        "proven by Coq: freecell_3_unwinnable : forall s, Reachable (rules 1 false 0) (msDeal 3) s -> ~ Won s (coqc ")
    assert "up to column order with safe automatic moves: 112 states" in p.stdout
    with open(os.path.join(out, "coq", "Deal3Cells1ColumnOrderSafeAutoplay.v"), encoding="utf-8") as f:
        assert "checkSearchAuto" in f.read()


@needs_coqc
@pytest.mark.slow
def test_11982_is_proven_by_coq(out, built):
    status, res = coqcheck.prove_cert(built[1], out, COQC)
    assert status == 0 and res.only_primitives, res.output[-3000:]


@needs_fast
@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
def test_fccheck_says_the_same_as_with_every_successor_put_in_column_order(tmp_path):
    """The check leaves a successor out of column_order when the move changes no column's bottom card and no
    automatic move follows (checker/fccheck.c, check). fccheck compiled with ORDER_EVERY_SUCCESSOR puts every
    successor in order; the two say the same, word for word, on deal 3's certificates with one free cell (up to
    column order, with and without the safe automatic moves): each whole, each with one record deleted (every
    record in turn), with a member out of column order, with a won position or an unsettled member added: 567
    certificates, 565 refused."""
    every = tmp_path / "fccheck-every"
    p = subprocess.run(["cc", "-O1", "-std=c99", "-DORDER_EVERY_SUCCESSOR", "-o", str(every), fastcheck.SOURCE, "-lz"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    res = search.explore(deals.ms_deal(3), Rules(cells=1, canonical=True))
    plain = certificate.make({"kind": "ms", "deal": 3}, {"cells": 1, "foundation_return": False, "column_order": True},
                             deals.ms_deal(3), sorted({p64(columns.canon(state_of(r))) for r in res.records()}))
    res.close()
    auto = auto_cert(3, 1)
    mutants = []
    for good in (plain, auto):
        recs = list(good.records)
        swapped = next(r for r in recs if all(packed.unpack(r)[0][:2]))       # columns 0 and 1 swapped
        cols, cells, home = packed.unpack(swapped)
        misplaced = packed.pack(((cols[1], cols[0]) + tuple(cols[2:]), cells, home))
        kinds = [recs] + [recs[:k] + recs[k + 1:] for k in range(len(recs))]
        kinds += [sorted(set(recs) - {swapped} | {misplaced}), sorted(set(recs) | {mutate.won_record()})]
        if good is auto:
            kinds.append(sorted(set(recs) | {p64(unsettled(good))}))
        mutants += [(good, m) for m in kinds]
    failures = []
    for i, (good, recs) in enumerate(mutants):
        path = written(tmp_path, "m.cert", certificate.Certificate(good.source, good.rules, good.start, recs, {}))
        out = []
        for exe in (EXE, str(every)):
            q = subprocess.run([exe, "--json", str(path)], capture_output=True, text=True)
            verdict = json.loads(q.stdout)
            out.append((q.returncode, {k: v for k, v in verdict.items() if not k.endswith("seconds")}))
        assert out[0] == out[1], i
        failures.append(out[0][1]["failure"])
    assert len(mutants) == len(plain.records) + len(auto.records) + 7
    assert sorted(collections.Counter(failures).items()) == [("", 2), ("autoplay", 1), ("start", 2),
                                                             ("successor", 560), ("won", 2)]
