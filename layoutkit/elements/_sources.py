"""Where a doc's ``sources`` aliases point: repository-host URLs for ``alias:path#L1-L5``.

The renderer and the push operation both expand aliases with this one
function, so a link reads the same in a rendered document and a pushed one.
"""

from __future__ import annotations


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
    url = f"{base}{blob}{ref or 'HEAD'}/{path.lstrip('/')}"
    if fragment:
        url += "#" + fragment
    return url
