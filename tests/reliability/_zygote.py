"""A process that imports layoutkit once, then forks one child per job.

The tests of ``test_kill9`` send it jobs (one JSON line on stdin each); every
job runs ``Workspace.call`` in a fresh child process, which the test kills
with SIGKILL at a random moment. Importing once and forking keeps a trial at
milliseconds instead of a second of start-up, and the zygote itself runs no
threads, so forking it is safe.

Lines the child writes on stdout (each one ``os.write``, so lines never mix):

- ``pid <n>``: the child is running;
- ``began``: the operation's write transaction is open;
- ``stmts <n> <seconds>``: the call returned; n SQL statements ran (through
  SQLAlchemy or straight to the driver) in
  ``seconds`` after the transaction began;
- ``error <message>``: the call raised.

The zygote writes ``exit <status>`` when the child is gone (``-9`` when killed).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event

from layoutkit import Principal, Workspace
from layoutkit.storage._sql._base import TxBase


def _say(line: str) -> None:
    os.write(1, (line + "\n").encode())


def _child(job: dict[str, Any]) -> None:
    _say(f"pid {os.getpid()}")
    ws = Workspace.open(job["url"], name=job["name"])
    store = ws.store
    opened = store.transaction
    state = {"began": None, "stmts": 0}
    kill_at = job.get("kill_at")

    @contextmanager
    def signalled() -> Any:
        with opened() as tx:
            if state["began"] is None:
                state["began"] = time.perf_counter()
                _say("began")
            yield tx

    def before_execute(*_args: Any) -> None:
        if state["began"] is None:
            return
        state["stmts"] += 1
        if kill_at is not None and state["stmts"] >= kill_at:
            os.kill(os.getpid(), signal.SIGKILL)

    sent = TxBase._driver_call

    def driver_call(self: TxBase, query: str, values: Any, send: Any) -> Any:
        # Statements sent straight to the driver are kill points too.
        before_execute()
        return sent(self, query, values, send)

    store.transaction = signalled  # type: ignore[method-assign]
    event.listen(store.engine, "before_cursor_execute", before_execute)
    TxBase._driver_call = driver_call  # type: ignore[method-assign]
    kind, name = job["principal"]
    try:
        ws.call(job["op"], job["params"], Principal(kind, name))
    except Exception as exc:
        _say("error " + repr(exc).replace("\n", " ")[:500])
        return
    spent = time.perf_counter() - (state["began"] or time.perf_counter())
    _say(f"stmts {state['stmts']} {spent:.6f}")


def main() -> None:
    for line in sys.stdin:
        job = json.loads(line)
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                _child(job)
            except BaseException as exc:
                _say("error " + repr(exc).replace("\n", " ")[:500])
                code = 1
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        _say(f"exit {code}")


if __name__ == "__main__":
    main()
