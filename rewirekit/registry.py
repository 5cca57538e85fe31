"""One registry for everything the library finds by name: methods, datasets, models, presets.

Every registry follows the same name rule (:func:`normalize_name`): case, surrounding spaces
and the choice between ``-`` and ``_`` do not matter, so ``"Proxy-Add"`` finds ``proxy_add``
and ``"geom_gcn"`` finds ``geom-gcn``. A name is kept as registered for display and
storage; lookups go through the rule. An unknown name raises
:class:`~rewirekit.errors.RewireError` listing the choices.

Example::

    >>> colours = Registry("colour")
    >>> colours.register("dark-red", "#8b0000")
    >>> colours["Dark_Red"]
    '#8b0000'
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Generic, TypeVar

from rewirekit.errors import RewireError

T = TypeVar("T")


def normalize_name(name: object) -> str:
    """The lookup form of a name: stripped, lower case, ``-`` read as ``_``."""
    return str(name).strip().lower().replace("-", "_")


class Registry(Mapping[str, T], Generic[T]):
    """A read-only mapping from registered names to items, looked up by :func:`normalize_name`.

    Iteration yields the names as registered, in registration order.

    Args:
        kind: what the items are, for error messages (``"method"``, ``"dataset"``, ...).
        items: initial ``(name, item)`` pairs.
        aliases: extra names, ``{alias: registered name}``.
    """

    def __init__(
        self,
        kind: str,
        items: Iterable[tuple[str, T]] = (),
        aliases: Mapping[str, str] | None = None,
    ) -> None:
        self.kind = kind
        self._items: dict[str, T] = {}
        self._names: dict[str, str] = {}  # normalised name or alias -> registered name
        for name, item in items:
            self.register(name, item)
        for alias, name in (aliases or {}).items():
            self.alias(alias, name)

    def register(self, name: str, item: T) -> T:
        """Add ``item`` under ``name`` and return it; a name taken by another item raises
        :class:`RuntimeError` (a programming error, not bad user input)."""
        key = normalize_name(name)
        taken = self._names.get(key)
        if taken is not None and self._items[taken] is not item:
            raise RuntimeError(f"{self.kind} name {name!r} is registered twice")
        self._names[key] = name
        self._items[name] = item
        return item

    def alias(self, alias: str, name: str) -> None:
        """Let ``alias`` find the item registered as ``name``."""
        self._names[normalize_name(alias)] = self.canonical(name)

    def canonical(self, name: str) -> str:
        """The registered name that ``name`` finds; RewireError listing the choices if none."""
        registered = self._names.get(normalize_name(name))
        if registered is None:
            raise RewireError(
                f"unknown {self.kind} {name!r}; choose one of: {', '.join(self._items)}."
            )
        return registered

    def __getitem__(self, name: str) -> T:
        return self._items[self.canonical(name)]

    def get(self, name: str, default: T | None = None) -> T | None:  # type: ignore[override]
        registered = self._names.get(normalize_name(name))
        return default if registered is None else self._items[registered]

    def __contains__(self, name: object) -> bool:
        return normalize_name(name) in self._names

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {list(self._items)})"
