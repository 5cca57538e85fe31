"""A rich progress bar the benchmark runner can drive."""

from __future__ import annotations

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)


class RichProgress:
    """Context manager implementing the runner's progress hook (``start``/``advance``).

    Draws on standard error, so tables and JSON on standard output stay clean, and
    disappears when done (the summary table follows).
    """

    def __init__(self, console: Console | None = None) -> None:
        self._bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console or Console(stderr=True),
            transient=True,
        )
        self._task: TaskID | None = None

    def __enter__(self) -> RichProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._task is not None:
            self._bar.stop()

    def start(self, total: int) -> None:
        """Show the bar (only now, so an error before any work prints no empty bar)."""
        self._bar.start()
        self._task = self._bar.add_task("benchmark", total=total)

    def advance(self, description: str) -> None:
        if self._task is None:
            raise RuntimeError("RichProgress.start must be called before advance")
        self._bar.update(self._task, advance=1, description=description)
