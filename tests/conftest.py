"""Fixtures several test files share."""
import pytest

from helpers import build_certificate


@pytest.fixture(scope="session")
def cert11982():
    """Deal 11982's certificate under the standard rules (84,767 states), built once per session."""
    return build_certificate(11982)
