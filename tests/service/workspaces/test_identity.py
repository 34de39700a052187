"""whoami: the caller as the workspace it calls sees them."""

from __future__ import annotations

from pathlib import Path

import pytest

from layoutkit import Principal, Workspace
from tests.service.helpers import join
from tests.service.transfer_fixtures import BACKENDS, two_workspaces


def test_the_same_process_is_the_owner_with_no_token() -> None:
    with Workspace.open() as ws:
        assert ws.call("whoami", {}) == {
            "kind": "owner",
            "name": "owner",
            "label": "owner:owner",
            "role": "owner",
            "workspace": "default",
            "token": None,
            "home": None,
        }


def test_a_share_link_is_its_board_and_mode_with_no_role() -> None:
    with Workspace.open() as ws:
        who = ws.call("whoami", {}, Principal.share("plans", "annotate"))
    assert (who["kind"], who["role"], who["board"], who["mode"]) == (
        "share",
        None,
        "plans",
        "annotate",
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_token_reads_its_role_here_and_its_home(backend: str, tmp_path: Path) -> None:
    with two_workspaces(backend, tmp_path) as (src, dst):
        plain = src.create_token("agent", "claude")
        claude = src.authenticate(plain)
        assert claude is not None
        at_home = src.call("whoami", {}, claude)
        assert at_home["label"] == "agent:claude"
        assert (at_home["workspace"], at_home["role"], at_home["home"]) == (
            src.name,
            "member",
            src.name,
        )
        assert at_home["token"] == claude.token
        # Another workspace does not know the token at all until it is invited in.
        assert dst.authenticate(plain) is None
        join(dst, claude, "admin", via=src)
        there = dst.authenticate(plain)
        assert there is not None
        away = dst.call("whoami", {}, there)
        assert (away["workspace"], away["role"], away["home"]) == (dst.name, "admin", src.name)
