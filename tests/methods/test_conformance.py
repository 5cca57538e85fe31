"""The conformance suite over the registry: every registered method against every rule of
:mod:`rewirekit.testing` (one test per method per rule).

A method joins by registering; its parameters come from its own ``examples``.
"""

from __future__ import annotations

import pytest

import rewirekit
from rewirekit import RewireError
from rewirekit.methods import method_class
from rewirekit.testing import CHECKS


@pytest.mark.parametrize("check", list(CHECKS))
@pytest.mark.parametrize("name", rewirekit.list_methods())
def test_conformance(name, check):
    CHECKS[check](method_class(name))


def test_unknown_method_lists_choices():
    with pytest.raises(RewireError, match="random"):
        rewirekit.get_method("no-such-method")
