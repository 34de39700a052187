"""Who is calling: users, agents, services, share links and the owner."""

from __future__ import annotations

from typing import Literal

import attrs

PrincipalKind = Literal["owner", "user", "agent", "service", "share"]
Role = Literal["owner", "admin", "member"]
#: Roles from the highest down: a rule that needs admin admits owners too.
ROLES: tuple[Role, ...] = ("owner", "admin", "member")


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
    #: The role in the workspace the call runs in, as its membership says; None
    #: takes the kind's default (owner for the owner, member for the rest).
    role: Role | None = None
    #: The id of the API token the caller signed in with; None for a caller in the
    #: same process, which is trusted with whatever its kind allows.
    token: int | None = None

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
    def workspace_role(self) -> Role:
        """The role this principal acts with in its workspace."""
        if self.role is not None:
            return self.role
        return "owner" if self.kind == "owner" else "member"

    def at_least(self, role: Role) -> bool:
        """Whether the principal's role is ``role`` or higher (share links never are)."""
        if self.kind == "share":
            return False
        return ROLES.index(self.workspace_role) <= ROLES.index(role)

    @property
    def layer(self) -> Literal["ai", "human"]:
        return "ai" if self.kind in ("agent", "service") else "human"

    @property
    def label(self) -> str:
        """How the principal is shown as an author, e.g. ``agent:claude``."""
        return f"{self.kind}:{self.name}"
