"""How advise writes a count: the noun, and the verb with it, in the number they take."""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """Return ``n`` with its noun in the number it takes: ``1 pod``, ``0 pods``, ``2 pods``."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def verb(n: int, one: str, many: str) -> str:
    """Return the verb form for a subject of ``n``: ``one`` for 1, ``many`` otherwise."""
    return one if n == 1 else many
