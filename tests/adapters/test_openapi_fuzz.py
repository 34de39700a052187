"""schemathesis against the generated OpenAPI document: no request makes the server fail (5xx).

The app runs in-process over ASGI; every operation of the registry is fuzzed
with schema-shaped and schema-breaking params.
"""

from __future__ import annotations

import os

import schemathesis
from hypothesis import HealthCheck, settings

from layoutkit import Workspace
from layoutkit.adapters.http import create_app

_WS = Workspace.open()
_TOKEN = _WS.create_token("owner", "fuzz")
_WS.call("create", {"kind": "board", "slug": "fuzz"})
_WS.call("compose_board", {"board": "fuzz", "cards": [{"kind": "text", "payload": {"md": "seed"}}]})
_APP = create_app(_WS, mcp=False)

#: These three (and compose's named route) show the whole content contract (every card and element shape,
#: recursive). Schemathesis's coverage phase walks every negative branch of a
#: schema at collection, minutes for these alone; their payloads are covered by
#: the contract's own property tests, and the fuzzing phase still runs for them.
_CONTRACT_SHAPED = ("compose_board", "push_doc", "validate")
_CONFIG = schemathesis.Config.from_dict(
    {
        "operations": [
            {
                "include-path-regex": (
                    rf"^/api/v1/(ops/({'|'.join(_CONTRACT_SHAPED)})|boards/\{{slug\}}/compose)$"
                ),
                "phases": {"coverage": {"enabled": False}},
            }
        ]
    }
)
#: Paths of wait_for_work: their params are fuzzed with a short timeout.
_LONG_POLLS = ("/api/v1/work/wait", "/api/v1/ops/wait_for_work")
schema = schemathesis.openapi.from_asgi("/api/v1/openapi.json", _APP, config=_CONFIG)


@schema.parametrize()
@settings(
    max_examples=int(os.environ.get("LAYOUTKIT_FUZZ_EXAMPLES", "12")),
    derandomize=os.environ.get("LAYOUTKIT_FUZZ_RANDOM") is None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_no_request_makes_the_server_fail(case: schemathesis.Case) -> None:
    if case.path in _LONG_POLLS and isinstance(case.body, dict):
        # A long poll that finds nothing answers after its timeout (25 s by
        # default): bounded here, so a well-formed wait ends within the read timeout.
        case.body["timeout"] = 0.2
    response = case.call(headers={"authorization": f"Bearer {_TOKEN}"})
    assert response.status_code < 500 or response.status_code == 501, (
        f"{case.method} {case.path} -> {response.status_code}: {response.text[:500]}"
    )
