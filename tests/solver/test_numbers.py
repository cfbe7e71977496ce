"""Whole numbers on the command line (issue 10): one reading for every option and every command, digits
only (``_`` and ``,`` refused everywhere), the message naming the option the user typed, the value and,
past the top, the maximum; a negative size is a bad value, not an option."""
import os
import re
import subprocess
import sys

import pytest

from solver.limits import IN_MEMORY_MAX_STATES as MAX_STATES
from solver.errors import FreecellError
from solver.numbers import whole_number

from helpers import ROOT, one_line_error as assert_one_line_error, run

DIGITS_ONLY = "must be a whole number written with digits only (no '_' or ',')"


@pytest.mark.parametrize("args,flag", [
    (("solve", "--deal", "1", "--max-states", "{}"), "--max-states"),
    (("explore", "--deal", "1", "--max-states", "{}"), "--max-states"),
    (("survey", "1-2", "--max-states", "{}"), "--max-states"),
    (("survey", "1-2", "--jobs", "{}"), "--jobs"),
    (("explore", "--deal", "1", "--cells", "{}"), "--cells"),
    (("deal", "{}"), "deal"),
    (("deal", "--deal", "{}"), "deal"),
])
@pytest.mark.parametrize("value", ["1_000", "1,000"])
def test_separators_are_refused_by_every_option(args, flag, value):
    line = assert_one_line_error(run(*[a.format(value) for a in args]))
    assert line == f"error: {flag} {DIGITS_ONLY}, got {value!r}"


@pytest.mark.parametrize("args,flag", [
    (("build", "--deal", "1", "--out", "x.cert", "--max-states", "{}"), "--max-states"),
    (("survey", "1-2", "--dir", "d", "--chunk", "{}"), "--chunk"),
    (("survey", "1-2", "--dir", "d", "--second-max-states", "{}"), "--second-max-states"),
    (("mutate", "x.cert", "--delete", "deal", "--out", "y.cert", "--seed", "{}"), "--seed"),
])
def test_certgen_options_read_numbers_the_same_way(args, flag, tmp_path):
    p = run(*[a.format("1_000") for a in args], module="certgen")
    assert assert_one_line_error(p) == f"error: {flag} {DIGITS_ONLY}, got '1_000'"


@pytest.mark.parametrize("module,args,flag", [
    ("certgen", ("check", "x.cert", "--reference", "--sample", "{}"), "--sample"),
    ("certgen", ("check", "x.cert", "--reference", "--sample", "5", "--seed", "{}"), "--seed"),
    ("certgen", ("mutate", "x.cert", "--delete", "deal", "--out", "y.cert", "--seed", "{}"), "--seed"),
    ("solver", ("explore", "--deal", "1", "--cells", "{}"), "--cells"),
    ("solver", ("survey", "1-2", "--jobs", "{}"), "--jobs"),
    ("solver", ("deal", "{}"), "deal"),
])
@pytest.mark.parametrize("value", [" 3", "3 ", "\t3", "3\n"])
def test_spaces_around_the_digits_are_refused(module, args, flag, value):
    """Plain ASCII digits, nothing around them: `--sample " 3"` was accepted (the hostile pass)."""
    line = assert_one_line_error(run(*[a.format(value) for a in args], module=module))
    assert line.startswith(f"error: {flag} must be a whole number ") and line.endswith(f", got {value!r}")


def test_the_sample_is_bounded():
    """--sample N past the most members a certificate may declare (2**40) is refused, not echoed in --json."""
    from certgen.certificate import MAX_STATES as CERT_MAX
    huge = "9" * 26
    line = assert_one_line_error(run("check", "x.cert", "--reference", "--sample", huge, "--json", module="certgen"))
    assert line == f"error: --sample must be a whole number from 1 to {CERT_MAX}, got {huge!r}"
    assert CERT_MAX == 2 ** 40
    line = assert_one_line_error(run("survey", "1-2", "--difficulty", "--memory", " 16G"))
    assert line.startswith("error: --memory must be a size such as 16G") and line.endswith("got ' 16G'")


def test_a_huge_max_states_names_the_maximum():
    huge = str(10 ** 30)
    line = assert_one_line_error(run("solve", "--deal", "1", "--max-states", huge))
    assert line == f"error: --max-states must be a whole number from 1 to {MAX_STATES}, got {huge!r}"
    assert "at least" not in line


@pytest.mark.parametrize("value", ["", " ", "-5", "+5", "1e6", "\u0661"])   # \u0661: Arabic-Indic one
def test_an_empty_or_signed_max_states_is_refused_by_build(value, tmp_path):
    out = tmp_path / "x.cert"
    p = run("build", "--deal", "1", "--out", str(out), "--max-states", value, module="certgen")
    assert assert_one_line_error(p).startswith("error: --max-states must be a whole number from 1 to ")
    assert not out.exists()


def test_the_maximum_is_the_c_cores_cap():
    text = (ROOT / "solver" / "fc_internal.h").read_text()
    cap = int(re.search(r"#define MAX_STATES_CAP (0x[0-9A-Fa-f]+)", text).group(1), 16)
    assert MAX_STATES == cap == 2_147_483_647


def test_whole_number_reads_ints_and_text_alike():
    assert whole_number("42", "x", 0, 100) == whole_number(42, "x", 0, 100) == 42
    with pytest.raises(FreecellError, match=r"^x must be a whole number from 0 to 100, got 101$"):
        whole_number(101, "x", 0, 100)
    with pytest.raises(FreecellError, match=r"^x must be a whole number from 0 to 100, got '9999999999"):
        whole_number("9" * 100, "x", 0, 100)
    with pytest.raises(FreecellError):
        whole_number(True, "x", 0, 100)


@pytest.mark.parametrize("module, args", [
    ("solver", ["explore", "--deal", "1", "--memory", "-5M"]),
    ("solver", ["explore", "--deal", "1", "--max-states", "-1,000"]),
    ("certgen", ["build", "--deal", "1", "--memory", "-.5G", "--out", "x.cert"]),
])
def test_a_negative_size_is_told_as_a_bad_value(module, args, tmp_path):
    """argparse read `-5M` as an option: "argument --memory: expected one argument"."""
    p = subprocess.run([sys.executable, "-m", module, *args], cwd=tmp_path, capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=ROOT))
    flag = next(a for a in args if a in ("--memory", "--max-states"))
    value = args[args.index(flag) + 1]
    line = assert_one_line_error(p)
    assert line.startswith(f"error: {flag} must be ") and line.endswith(f", got '{value}'"), line


def test_a_value_that_is_a_file_name_is_not_glued():
    from solver.cliargs import _negative_number
    assert [t for t in ("-5", "-5M", "-.5G", "-1,000", "-1.cert", "-x", "-", "--5", "-5MB") if _negative_number(t)] \
        == ["-5", "-5M", "-.5G", "-1,000"]
