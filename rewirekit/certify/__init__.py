"""Exact certificates against label poisoning (QPCert) for infinitely wide GNNs.

The NTK of an architecture (:mod:`~rewirekit.certify.ntk`) defines a kernel SVM
(:mod:`~rewirekit.certify.svm`); which of its predictions no flip of at most ``B`` training
labels can change is decided exactly by a mixed-integer linear program solved with HiGHS
(:mod:`~rewirekit.certify.milp`, :mod:`~rewirekit.certify.certificates`).
"""

from rewirekit.certify.ntk import Architecture, ntk

__all__ = ["Architecture", "ntk"]
