"""A rich progress bar the benchmark runner can drive."""
from __future__ import annotations

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


class RichProgress:
    """Context manager implementing the runner's progress hook (``start``/``advance``).

    Draws on standard error, so tables and JSON on standard output stay clean.
    """

    def __init__(self, console: Console | None = None) -> None:
        self._bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                             TimeElapsedColumn(), console=console or Console(stderr=True))
        self._task = None

    def __enter__(self) -> RichProgress:
        self._bar.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._bar.__exit__(*exc)

    def start(self, total: int) -> None:
        self._task = self._bar.add_task("benchmark", total=total)

    def advance(self, description: str) -> None:
        self._bar.update(self._task, advance=1, description=description)
