"""Exact certificates against label poisoning (QPCert) for infinitely wide GNNs.

The NTK of an architecture (:mod:`~rewirekit.certify.ntk`) defines a kernel SVM
(:mod:`~rewirekit.certify.svm`); which of its predictions no flip of at most ``B`` training
labels can change is decided exactly by mixed-integer linear programs solved with HiGHS
(:mod:`~rewirekit.certify.milp`, :mod:`~rewirekit.certify.certificates`), or, for small
budgets, by retraining the SVM for every admissible flip (:mod:`~rewirekit.certify.bruteforce`).
:func:`certify_labels` goes from a graph to a certificate in one call.
"""

from rewirekit.certify.api import certify_labels
from rewirekit.certify.certificates import (
    PLAIN,
    CollectiveCertificate,
    Options,
    SampleCertificate,
    certify_binary,
    certify_collective,
    certify_multiclass,
)
from rewirekit.certify.ntk import MODELS, Architecture, ntk

__all__ = [
    "MODELS",
    "PLAIN",
    "Architecture",
    "CollectiveCertificate",
    "Options",
    "SampleCertificate",
    "certify_binary",
    "certify_collective",
    "certify_labels",
    "certify_multiclass",
    "ntk",
]
