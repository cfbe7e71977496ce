"""The fixtures the certificate tests share: small certificates."""
import pytest

from helpers import build_certificate as build


@pytest.fixture(scope="module")
def small_certs():
    # Unwinnable with fewer free cells, and small: good for many random deletions.
    return [build(11982, cells=2), build(11982, cells=1), build(3, cells=1), build(4, cells=1),
            build(7, cells=0)]


@pytest.fixture(scope="module")
def deal7():
    return build(7, cells=0)          # 7 cells-0 is unwinnable and small
