"""Where a doc's ``sources`` aliases point: repository-host URLs for ``alias:path#L1-L5``.

The renderer and the push operation both expand aliases with these functions,
so a link reads the same in a rendered document and a pushed one.

The ``ref`` rule: an alias is a source only with both ``repo`` and ``ref``
(non-empty strings), as the contract requires. A link is pinned to the commit,
tag or branch the author named; a missing ref is never read as the default
branch, whose files (and so ``#L1-L5`` line ranges) move under the link. The
renderer leaves a link through an incomplete source as written (it is then an
unknown scheme and is neutralised) and push refuses the doc.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def doc_source(sources: Any, alias: str) -> Mapping[str, str] | None:
    """The ``{repo, ref}`` that ``alias`` names in a doc's ``sources``; None if it names none."""
    source = sources.get(alias) if isinstance(sources, Mapping) else None
    if not isinstance(source, Mapping):
        return None
    repo, ref = source.get("repo"), source.get("ref")
    if isinstance(repo, str) and repo.strip() and isinstance(ref, str) and ref.strip():
        return source
    return None


def source_url(source: Mapping[str, Any], target: str) -> str:
    """The repository-host URL of ``path#L1-L5`` in a source (see :func:`doc_source`)."""
    path, _, fragment = target.partition("#")
    return repo_url(str(source["repo"]), str(source["ref"]), path, fragment)


def repo_url(repo: str, ref: str, path: str, fragment: str = "") -> str:
    """Repository-host URL for ``path`` at ``ref`` in ``repo``.

    ``owner/name`` means GitHub. A repo written with its host
    (``gitlab.example.com/group/name`` or a full ``https://`` URL) keeps that
    host; hosts whose name contains ``gitlab`` use GitLab's ``/-/blob/`` form,
    every other host the ``/blob/`` form that GitHub, Gitea and Forgejo accept.
    Line fragments ``L1-L5`` are kept as written.
    """
    repo = repo.strip().strip("/")
    if repo.startswith(("http://", "https://")):
        base = repo
    elif repo.count("/") >= 2 and "." in repo.split("/", 1)[0]:
        base = "https://" + repo
    else:
        base = "https://github.com/" + repo
    host = base.split("/")[2].lower()
    blob = "/-/blob/" if "gitlab" in host else "/blob/"
    url = f"{base}{blob}{ref.strip()}/{path.lstrip('/')}"
    if fragment:
        url += "#" + fragment
    return url
