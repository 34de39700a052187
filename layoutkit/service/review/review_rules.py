"""Review rules in layers, the review brief and review requests.

The rule files themselves (parsing, lint, layers, the brief's text) are the
pure engine's (``layoutkit.review.rules``); this module reads and writes the
workspace and project layers and answers the operations:

- ``review_brief``: the resolved, enabled rules as one prompt block.
- ``request_review``: what a review pass is sent (the brief, or instructions).
- ``list_review_rules``, ``get_review_rule``: the rules in force, with their layer.
- ``put_review_rule``, ``delete_review_rule``, ``clear_review_rules``: writes, for
  admins; each is a new version and an audit event ``review.rules.update``.
- ``lint_review_rule``: lint (and fix) a rule file without storing it.

A write names its layer by ``project``: with one it writes that project's
layer, without one the workspace layer.
"""

from __future__ import annotations

import logging
from typing import Any

from layoutkit.errors import ServiceError, did_you_mean
from layoutkit.review import rules as engine
from layoutkit.service.road.registry import REGISTRY
from layoutkit.service.road.workspace import Call
from layoutkit.service.shared.common import SLUG
from layoutkit.service.shared.sections import find_section
from layoutkit.service.shared.webhook_events import emit
from layoutkit.storage import ProjectRecord, ReviewRuleRecord, Tx

log = logging.getLogger(__name__)

#: "Admin or higher" may write rules: people (the owner and users) whose role in
#: the workspace is admin or owner (the road checks ``role="admin"``). Agents and
#: services never write rules, whatever their role.
ADMINS = ("owner", "user")
AUDIT_ACTION = "review.rules.update"
#: Longest instructions a review pass may be sent instead of the brief.
MAX_INSTRUCTIONS = 12_000
MAX_PERSONA = 500

PROJECT: dict[str, Any] = {
    "type": "string",
    "pattern": "^[a-z0-9][a-z0-9-]{0,79}$",
    "description": "project slug; without one, the workspace layer",
}
RULE_ID: dict[str, Any] = {
    "type": "string",
    "pattern": engine.ID_PATTERN.pattern,
    "description": "rule id",
}
SOURCE: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "maxLength": engine.MAX_RULE_BYTES,
    "description": "the whole rule file: frontmatter, the rule sentence, the Verify list",
}
PERSONA: dict[str, Any] = {
    "type": "string",
    "maxLength": MAX_PERSONA,
    "description": "who the reviewer reviews as (the brief's last line)",
}
#: Fields a PUT may patch over the resolved rule instead of sending a whole source.
PATCH_FIELDS: dict[str, Any] = {
    "enabled": {"type": "boolean"},
    "body": {
        "type": "string",
        "maxLength": engine.MAX_RULE_BYTES,
        "description": "the markdown after the frontmatter: sentence, then the Verify list",
    },
    "family": {"type": "string", "maxLength": 200},
    "check": {"type": "string", "maxLength": 40, "description": "mechanical, partial, judgment"},
    "severity": {"type": "string", "maxLength": 40, "description": "high, medium, low"},
    "platform": {
        "type": ["array", "null"],
        "items": {"type": "string", "maxLength": 40},
        "maxItems": 4,
        "description": "web, mobile; null (or both) for both",
    },
}


# ---------------------------------------------------------------- layers


def _find_project(tx: Tx, call: Call, slug: str | None) -> ProjectRecord | None:
    """The project ``slug`` names (None for the workspace layer); 404 with close slugs."""
    if slug is None:
        return None
    project = tx.project_by_slug(call.workspace_id, slug)
    if project is None:
        raise ServiceError(
            404,
            "unknown_project",
            f"no project {slug!r}",
            field="project",
            didYouMean=did_you_mean(slug, [p.slug for p in tx.projects(call.workspace_id)]),
        )
    return project


def _stored(records: list[ReviewRuleRecord]) -> list[engine.LayerRule]:
    out = []
    for rec in records:
        assert rec.source is not None
        try:
            out.append(engine.LayerRule(engine.parse(rec.source), rec.version))
        except engine.RuleError:
            # Stored sources were linted on the way in; one this engine no longer
            # reads stays stored (and in its history) but cannot be in force.
            log.warning("review rule %s v%s no longer lints; skipped", rec.rule_id, rec.version)
    return out


def _layers(
    tx: Tx, call: Call, project: ProjectRecord | None
) -> list[tuple[str, list[engine.LayerRule]]]:
    layers: list[tuple[str, list[engine.LayerRule]]] = [
        ("builtin", [engine.LayerRule(r) for r in engine.builtin_rules()]),
        ("workspace", _stored(tx.review_rules(call.workspace_id))),
    ]
    if project is not None:
        layers.append(("project", _stored(tx.review_rules(call.workspace_id, project.id))))
    return layers


def _resolved(tx: Tx, call: Call, project: ProjectRecord | None) -> list[engine.ResolvedRule]:
    return engine.resolve(_layers(tx, call, project))


def _unknown_rule(rule_id: str, resolved: list[engine.ResolvedRule]) -> ServiceError:
    return ServiceError(
        404,
        "unknown_rule",
        f"no review rule {rule_id!r}",
        field="id",
        didYouMean=did_you_mean(rule_id, [r.rule.id for r in resolved]),
    )


def _layer_name(project: ProjectRecord | None) -> str:
    return "workspace" if project is None else "project"


# ---------------------------------------------------------------- brief


@REGISTRY.operation(
    "review_brief",
    "The review brief of a project: the rules in force (built-in, then the workspace's, "
    "then the project's; enabled ones only) as one prompt block: a fixed preamble, a line "
    "[id, platform, severity] with the rule sentence and its verify lines per rule, and the "
    "persona line. Without project: the workspace's brief. Also returns rubricHash, which "
    "changes with any edit of a rule in force.",
    {
        "properties": {"project": PROJECT, "persona": PERSONA},
        "additionalProperties": False,
    },
)
def review_brief(call: Call) -> dict[str, Any]:
    p = call.params
    project = _find_project(call.tx, call, p.get("project"))
    resolved = _resolved(call.tx, call, project)
    return {
        "project": None if project is None else project.slug,
        "persona": p.get("persona"),
        "brief": engine.render_brief(resolved, project=p.get("project"), persona=p.get("persona")),
        "rules": sum(1 for r in resolved if r.rule.enabled),
        "rubricHash": engine.rubric_hash(resolved),
    }


@REGISTRY.operation(
    "request_review",
    "Ask for a review pass. Without instructions the pass is sent exactly the project's "
    "review brief; instructions (up to 12000 characters) are sent instead, for this pass "
    "only. board and section narrow the pass to one board or one of its sections. The "
    "request goes to the workspace's webhooks that subscribe to review.requested "
    "(delivered true, with how many) and is recorded (audit event review.request); the "
    "reply carries exactly the text sent, under sent, and, when no webhook listens, what "
    "to do under next.",
    {
        "properties": {
            "project": PROJECT,
            "board": SLUG,
            "section": {"type": "string", "minLength": 1, "maxLength": 500},
            "persona": PERSONA,
            "instructions": {"type": "string", "minLength": 1, "maxLength": MAX_INSTRUCTIONS},
        },
        "dependentRequired": {"section": ["board"]},
        "additionalProperties": False,
    },
    board="board",
    writes=True,
)
def request_review(call: Call) -> dict[str, Any]:
    p, tx = call.params, call.tx
    board = call.board
    slug = p.get("project")
    if slug is None and board is not None and board.project_id is not None:
        filed = tx.project(board.project_id)
        slug = filed.slug if filed is not None else None
    elif slug is not None and board is not None and board.project_id is not None:
        filed = tx.project(board.project_id)
        if filed is not None and filed.slug != slug:
            raise ServiceError(
                400,
                "invalid_params",
                f"board {board.slug!r} is filed under project {filed.slug!r}, not {slug!r}",
                field="project",
            )
    section = None
    if "section" in p:
        cards = {c.id: c for c in tx.cards(board.id)}
        frame = find_section(cards, p["section"])
        title = frame.payload.get("title")
        section = title if isinstance(title, str) and title else p["section"]
    project = _find_project(tx, call, slug)
    if "instructions" in p:
        sent, source, rubric = p["instructions"], "instructions", None
    else:
        resolved = _resolved(tx, call, project)
        sent = engine.render_brief(resolved, project=slug, persona=p.get("persona"))
        source, rubric = "brief", engine.rubric_hash(resolved)
    scope = {
        "project": slug,
        "board": None if board is None else board.slug,
        "section": section,
    }
    event = tx.record_event(
        "review.request",
        call.principal.label,
        board_id=None if board is None else board.id,
        detail={
            "workspace": call.workspace_id,
            **scope,
            "source": source,
            "rubricHash": rubric,
            "sent": sent,
        },
    )
    hooks = emit(
        call,
        "review.requested",
        {"request": event.id, **scope, "source": source, "rubricHash": rubric, "sent": sent},
    )
    out = {
        "request": event.id,
        **scope,
        "source": source,
        "rubricHash": rubric,
        "chars": len(sent),
        "sent": sent,
        "delivered": hooks > 0,
        "webhooks": hooks,
    }
    if not hooks:
        out["next"] = (
            "no webhook of this workspace listens for review.requested, so nobody was "
            "sent this pass: hand `sent` to a reviewer yourself (an agent reads the screens "
            "with review_plan and files findings with annotate), or subscribe your reviewer "
            'with create_webhook {url, events: ["review.requested"]} and ask again'
        )
    return out


# ---------------------------------------------------------------- reading rules


@REGISTRY.operation(
    "list_review_rules",
    "The review rules in force for a project (or, without project, for the workspace): "
    "each with its fields, the layer it comes from (builtin, workspace, project), its "
    "version there and the lower layers it overrides. Disabled rules are listed with "
    "enabled false.",
    {"properties": {"project": PROJECT}, "additionalProperties": False},
)
def list_review_rules(call: Call) -> dict[str, Any]:
    project = _find_project(call.tx, call, call.params.get("project"))
    resolved = _resolved(call.tx, call, project)
    return {
        "project": None if project is None else project.slug,
        "rules": [r.to_dict() for r in resolved],
        "rubricHash": engine.rubric_hash(resolved),
    }


@REGISTRY.operation(
    "get_review_rule",
    "One review rule in force: its fields, layer, version and source text, and which "
    "layers define it. history true adds every version written at the layer named "
    "(the project's with project, else the workspace's); version reads one of them.",
    {
        "required": ["id"],
        "properties": {
            "id": RULE_ID,
            "project": PROJECT,
            "history": {"type": "boolean"},
            "version": {"type": "integer", "minimum": 1, "maximum": 2**31 - 1},
        },
        "additionalProperties": False,
    },
)
def get_review_rule(call: Call) -> dict[str, Any]:
    p, tx = call.params, call.tx
    project = _find_project(tx, call, p.get("project"))
    layers = _layers(tx, call, project)
    rule_id = p["id"]
    resolved = engine.resolve(layers)
    found = next((r for r in resolved if r.rule.id == rule_id), None)
    if found is None:
        raise _unknown_rule(rule_id, resolved)
    history = tx.review_rule_history(
        call.workspace_id, rule_id, None if project is None else project.id
    )
    if found.layer == "builtin":
        source = engine.builtin_sources()[rule_id]
    else:
        # The rule in force may come from the workspace layer below the project named.
        layer_id = project.id if found.layer == "project" and project is not None else None
        versions = (
            history
            if layer_id == (None if project is None else project.id)
            else tx.review_rule_history(call.workspace_id, rule_id, layer_id)
        )
        source = next(r.source for r in versions if r.version == found.version)
    out: dict[str, Any] = {
        "rule": found.to_dict(),
        "source": source,
        "definedIn": [
            {"layer": name, "version": e.version}
            for name, entries in layers
            for e in entries
            if e.rule.id == rule_id
        ],
    }
    if p.get("history"):
        out["history"] = [_version_view(rec) for rec in history]
    if "version" in p:
        rec = next((r for r in history if r.version == p["version"]), None)
        if rec is None:
            raise ServiceError(
                404,
                "unknown_version",
                f"rule {rule_id!r} has no version {p['version']} at the "
                f"{_layer_name(project)} layer",
                field="version",
                versions=[r.version for r in history],
            )
        out["version"] = {**_version_view(rec), "source": rec.source}
    return out


def _version_view(rec: ReviewRuleRecord) -> dict[str, Any]:
    return {
        "version": rec.version,
        "at": rec.created_at.isoformat(),
        "by": rec.author,
        "deleted": rec.source is None,
    }


@REGISTRY.operation(
    "lint_review_rule",
    "Lint a review rule file without storing it: findings {code, severity, message, line, "
    "fixable, field?, didYouMean?}. fix true repairs a byte-order mark, HTML entities, "
    "enum near-misses, a missing id (from filename or the first heading) and a missing "
    "check (judgment), and returns the repaired source with what is left to fix.",
    {
        "required": ["source"],
        "properties": {
            "source": {**SOURCE, "maxLength": 4 * engine.MAX_RULE_BYTES},
            "filename": {"type": "string", "maxLength": 500},
            "fix": {"type": "boolean"},
        },
        "additionalProperties": False,
    },
    pure=True,
)
def lint_review_rule(call: Call) -> dict[str, Any]:
    p = call.params
    result = engine.lint(p["source"], filename=p.get("filename"), fix=p.get("fix", False))
    return result.to_dict()


# ---------------------------------------------------------------- writing rules


def _audit(call: Call, project: ProjectRecord | None, rec: ReviewRuleRecord, action: str) -> None:
    call.tx.record_event(
        AUDIT_ACTION,
        call.principal.label,
        # Events carry no workspace column; a rule write names no board to find it by.
        detail={
            "workspace": call.workspace_id,
            "action": action,
            "layer": _layer_name(project),
            "project": None if project is None else project.slug,
            "id": rec.rule_id,
            "version": rec.version,
        },
    )


def _write_project(call: Call) -> ProjectRecord | None:
    """The project a write names, created on first use as boards create theirs."""
    slug = call.params.get("project")
    if slug is None:
        return None
    tx = call.tx
    return tx.project_by_slug(call.workspace_id, slug) or tx.create_project(call.workspace_id, slug)


def _refuse(findings: tuple[engine.LintFinding, ...], field: str | None) -> ServiceError:
    errors = [f for f in findings if f.severity == "error"]
    first = errors[0]
    where = f"line {first.line}: " if first.line and field == "source" else ""
    return ServiceError(
        422,
        "invalid_rule",
        f"the rule does not lint clean: {where}{first.message}",
        field=field or first.field or "source",
        findings=[f.to_dict() for f in findings],
    )


def _patched_source(call: Call, project: ProjectRecord | None) -> tuple[str, str]:
    """The whole source a field patch makes of the resolved rule, and the field path
    a refusal names."""
    p = call.params
    rule_id = p.get("id")
    if rule_id is None:
        raise ServiceError(
            400, "invalid_params", "a field patch names the rule: send id", field="id"
        )
    resolved = _resolved(call.tx, call, project)
    current = next((r.rule for r in resolved if r.rule.id == rule_id), None)
    if current is None:
        raise _unknown_rule(rule_id, resolved)
    meta = current.frontmatter()
    changed = [k for k in PATCH_FIELDS if k in p]
    if not changed:
        raise ServiceError(
            400,
            "invalid_params",
            "send source (the whole rule) or fields to change: " + ", ".join(PATCH_FIELDS),
            field="source",
        )
    for key in ("family", "check", "severity"):
        if key in p:
            meta[key] = p[key]
    if "enabled" in p:
        meta["enabled"] = p["enabled"]
    if "platform" in p:
        plats = p["platform"]
        if plats is None or sorted(plats) == sorted(engine.PLATFORMS):
            meta.pop("platform", None)
        else:
            meta["platform"] = plats
    body = p.get("body", current.body)
    return engine.render_source(meta, body), changed[0]


@REGISTRY.operation(
    "put_review_rule",
    "Write a review rule at the project's layer (with project) or the workspace's: "
    "source is the whole rule file, or send fields to change over the rule in force "
    "(enabled, body, family, check, severity, platform) with id. The rule must lint "
    "clean (422 invalid_rule with the findings). Every write is a new version and an "
    "audit event review.rules.update. Admins only.",
    {
        "properties": {"id": RULE_ID, "project": PROJECT, "source": SOURCE, **PATCH_FIELDS},
        "additionalProperties": False,
    },
    writes=True,
    principals=ADMINS,
    role="admin",
)
def put_review_rule(call: Call) -> dict[str, Any]:
    p = call.params
    project = _write_project(call)
    if "source" in p:
        both = [k for k in PATCH_FIELDS if k in p]
        if both:
            raise ServiceError(
                400,
                "exclusive_params",
                f"send source or fields to change, not both ({', '.join(both)})",
                field=both[0],
            )
        source, field = p["source"].removeprefix("\ufeff"), "source"
    else:
        source, field = _patched_source(call, project)
    result = engine.lint(source)
    if result.rule is None:
        raise _refuse(result.findings, field)
    rule = result.rule
    if "id" in p and p["id"] != rule.id:
        raise ServiceError(
            400,
            "id_mismatch",
            f"the path names rule {p['id']!r} but the source's id is {rule.id!r}",
            field="id",
        )
    rec = call.tx.write_review_rule(
        call.workspace_id,
        rule.id,
        source,
        author=call.principal.label,
        project_id=None if project is None else project.id,
    )
    _audit(call, project, rec, "put")
    resolved = _resolved(call.tx, call, project)
    now = next(r for r in resolved if r.rule.id == rule.id)
    return {
        "rule": now.to_dict(),
        "layer": _layer_name(project),
        "project": None if project is None else project.slug,
        "version": rec.version,
        "warnings": [f.to_dict() for f in result.findings],
    }


@REGISTRY.operation(
    "delete_review_rule",
    "Delete a rule from the project's layer (with project) or the workspace's: the "
    "lower layer's rule of that id shows again. Built-in rules cannot be deleted; "
    "disable one with put_review_rule enabled false. A new version and an audit event "
    "review.rules.update. Admins only.",
    {
        "required": ["id"],
        "properties": {"id": RULE_ID, "project": PROJECT},
        "additionalProperties": False,
    },
    writes=True,
    principals=ADMINS,
    role="admin",
    destroys=True,
)
def delete_review_rule(call: Call) -> dict[str, Any]:
    p, tx = call.params, call.tx
    project = _find_project(tx, call, p.get("project"))
    project_id = None if project is None else project.id
    live = {r.rule_id for r in tx.review_rules(call.workspace_id, project_id)}
    if p["id"] not in live:
        builtin = p["id"] in engine.BUILTIN_IDS
        raise ServiceError(
            404,
            "unknown_rule",
            f"the {_layer_name(project)} layer has no rule {p['id']!r}"
            + ("; built-in rules are disabled (enabled false), not deleted" if builtin else ""),
            field="id",
            didYouMean=did_you_mean(p["id"], live),
        )
    rec = tx.write_review_rule(
        call.workspace_id, p["id"], None, author=call.principal.label, project_id=project_id
    )
    _audit(call, project, rec, "delete")
    now = next((r for r in _resolved(tx, call, project) if r.rule.id == p["id"]), None)
    return {
        "id": p["id"],
        "layer": _layer_name(project),
        "project": None if project is None else project.slug,
        "version": rec.version,
        "deleted": True,
        "now": None if now is None else now.to_dict(),
    }


@REGISTRY.operation(
    "clear_review_rules",
    "Delete every rule of the project's layer (with project) or the workspace's, so the "
    "lower layers show again; each deletion is a new version and an audit event "
    "review.rules.update. Admins only.",
    {"properties": {"project": PROJECT}, "additionalProperties": False},
    writes=True,
    principals=ADMINS,
    role="admin",
    destroys=True,
)
def clear_review_rules(call: Call) -> dict[str, Any]:
    tx = call.tx
    project = _find_project(tx, call, call.params.get("project"))
    project_id = None if project is None else project.id
    deleted = []
    for live in tx.review_rules(call.workspace_id, project_id):
        rec = tx.write_review_rule(
            call.workspace_id,
            live.rule_id,
            None,
            author=call.principal.label,
            project_id=project_id,
        )
        _audit(call, project, rec, "delete")
        deleted.append({"id": rec.rule_id, "version": rec.version})
    return {
        "layer": _layer_name(project),
        "project": None if project is None else project.slug,
        "deleted": deleted,
    }
