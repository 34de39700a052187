"""The road every operation takes: ``Workspace.call``, the registry, authorization,
request keys and the error table. It imports no family: families register their
operations, their per-workspace state and their background work with it (see
``hooks``)."""
