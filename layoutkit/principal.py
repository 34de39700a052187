"""Who is calling: users, agents, services, share links and the owner."""

from __future__ import annotations

from typing import Literal

import attrs

PrincipalKind = Literal["owner", "user", "agent", "service", "share"]


@attrs.frozen(slots=True)
class Principal:
    """The identity an operation runs as.

    Agents and services write to the AI layer, people to the human layer.
    A share principal is bound to one board and a mode (view or annotate).
    """

    kind: PrincipalKind
    name: str
    board: str | None = None
    mode: Literal["view", "annotate"] | None = None
    #: The card a share link opens on (its ``cardId``); the link still grants the board.
    card: int | None = None

    @classmethod
    def owner(cls, name: str = "owner") -> Principal:
        return cls("owner", name)

    @classmethod
    def user(cls, name: str) -> Principal:
        return cls("user", name)

    @classmethod
    def agent(cls, name: str) -> Principal:
        return cls("agent", name)

    @classmethod
    def service(cls, name: str) -> Principal:
        return cls("service", name)

    @classmethod
    def share(
        cls, board: str, mode: Literal["view", "annotate"] = "view", card: int | None = None
    ) -> Principal:
        return cls("share", f"share:{board}", board=board, mode=mode, card=card)

    @property
    def layer(self) -> Literal["ai", "human"]:
        return "ai" if self.kind in ("agent", "service") else "human"

    @property
    def label(self) -> str:
        """How the principal is shown as an author, e.g. ``agent:claude``."""
        return f"{self.kind}:{self.name}"
