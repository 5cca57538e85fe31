"""The public conformance suite of the method contract: :func:`check_rewirer`.

Write a method by subclassing :class:`~rewirekit.methods.base.Rewirer`, declare its
``examples``, and check it like scikit-learn's ``check_estimator`` checks an estimator::

    >>> from rewirekit.testing import check_rewirer
    >>> check_rewirer(MyRewirer)
"""

from rewirekit.testing.checks import CHECKS, check_rewirer, rewirer_checks
from rewirekit.testing.graphs import BAD_INPUTS, SUITE_GRAPHS

__all__ = ["CHECKS", "BAD_INPUTS", "SUITE_GRAPHS", "check_rewirer", "rewirer_checks"]
