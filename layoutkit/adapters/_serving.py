"""The uvicorn server `layoutkit serve` runs, in its own process and in each worker.

Apart from :mod:`layoutkit.adapters.http` so the worker processes
(:mod:`layoutkit.adapters._workers`) run the same server without importing the
module that supervises them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol


class Children(Protocol):
    """Worker processes started once the server listens (``_workers.Supervisor``)."""

    def start(self, failed: Callable[[], None]) -> None: ...


def stop_waits(app: Any) -> None:
    """Tell :func:`layoutkit.adapters.http.create_app`'s ``app`` (maybe inside uvicorn's
    middleware) that its server is stopping: its event streams and long polls end at
    their next look instead of running their course (up to 25 s each). The workspace
    itself stays open: it belongs to whoever opened it."""
    for _ in range(8):
        state = getattr(app, "state", None)
        stopping = getattr(state, "stopping", None)
        if stopping is not None:
            stopping.set()
            # Long polls sleeping until the store's next write look again now.
            state.workspace.wake_waiters()
            return
        app = getattr(app, "app", None)
        if app is None:
            return


def uvicorn_server(
    config: Any,
    children: Children | None,
    listening: Callable[[], None] | None = None,
) -> Any:
    """A uvicorn server that starts the ``children`` once it listens, and stops when
    they cannot start (uvicorn is imported here: embedding code that only builds
    the app never needs it). ``listening`` runs once it listens, too. As it starts
    to stop it ends the waits under way (:func:`stop_waits`).
    """
    import uvicorn

    class Server(uvicorn.Server):
        async def startup(self, sockets: list[Any] | None = None) -> None:
            await super().startup(sockets=sockets)
            if self.started:
                self.listened()

        def listened(self) -> None:
            if listening is not None:
                listening()
            if children is not None:
                children.start(failed=self.stop_serving)

        def stop_serving(self) -> None:
            self.should_exit = True

        async def shutdown(self, sockets: list[Any] | None = None) -> None:
            stop_waits(self.config.loaded_app)
            await super().shutdown(sockets=sockets)

    return Server(config)
