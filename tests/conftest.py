from __future__ import annotations

import pytest

from layoutkit import Workspace


@pytest.fixture
def ws() -> Workspace:
    return Workspace.open()
