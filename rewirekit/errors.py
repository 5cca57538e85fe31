"""The one error type users see for bad input."""


class RewireError(ValueError):
    """Invalid input to a rewirekit method, dataset loader or benchmark.

    The message always says what was wrong and what to do about it.
    """
