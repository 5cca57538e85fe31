"""Rewiring methods. Importing this package registers every method."""

from rewirekit.methods.base import (
    RewireOutput,
    Rewirer,
    RewireReport,
    describe,
    get_method,
    list_methods,
    method_class,
    rewire,
)
from rewirekit.methods.community import ComMa
from rewirekit.methods.curvature import BORF, SDRF
from rewirekit.methods.diffusion import DIGL
from rewirekit.methods.identity import Identity
from rewirekit.methods.jdr import JDR
from rewirekit.methods.orc_manl import OrcManl
from rewirekit.methods.random import RandomRewirer
from rewirekit.methods.similarity import ComFy, FeaSt
from rewirekit.methods.spectral import FoSR, ProxyAdd, ProxyDelete

__all__ = [
    "Rewirer",
    "RewireReport",
    "RewireOutput",
    "get_method",
    "rewire",
    "list_methods",
    "describe",
    "method_class",
    "Identity",
    "JDR",
    "RandomRewirer",
    "ComMa",
    "FeaSt",
    "ComFy",
    "DIGL",
    "ProxyAdd",
    "ProxyDelete",
    "FoSR",
    "SDRF",
    "BORF",
    "OrcManl",
]
