"""Both checkers (certgen/checker.py and build/fccheck, when built) on a certificate file, through `certgen
check`, and `certgen mutate`."""
import json

from certgen import fastcheck

EXE = fastcheck.binary()


def checks(path, run):
    """Both checkers' JSON verdicts on the certificate at ``path``: (reference, fast or None)."""
    ref = run("check", "--reference", "--json", str(path), module="certgen")
    fast = run("check", "--json", str(path), module="certgen") if EXE else None
    return json.loads(ref.stdout), (json.loads(fast.stdout) if fast else None), ref.returncode, \
        (fast.returncode if fast else None)


def refused_by_both(path, run, failure):
    ref, fast, rc_ref, rc_fast = checks(path, run)
    assert rc_ref == 1 and not ref["valid"] and ref["failure"] == failure, ref
    if fast is not None:
        assert rc_fast == 1 and fast["failure"] == failure
        assert fast["message"] == ref["message"].replace("\n  reached", " reached")
    return ref


def mutated(path, tmp_path, run, kind):
    """`certgen mutate` of the certificate at ``path``: ``kind`` is add-won or a --delete KIND (seed 5)."""
    out = tmp_path / "m.cert"
    flags = ["--add-won"] if kind == "add-won" else ["--delete", kind]
    p = run("mutate", str(path), *flags, "--seed", "5", "--out", str(out), module="certgen")
    assert p.returncode == 0, p.stderr
    return out
