"""MCP prompts: a few requests a host can offer a person, each a short text that
names the operations to call and the arguments to pass them.

A prompt holds no rule of its own: it only fills its arguments into a message
that points the model at the tools (and the ``layoutkit://`` resources) that do
the work. ``operations`` lists the tools each one leans on, so a test can hold
the prompts to the registry.
"""

from __future__ import annotations

from typing import Any

import attrs
import mcp_types as types
from mcp.shared.exceptions import MCPError

from layoutkit import Workspace

INVALID_PARAMS = -32602


@attrs.frozen
class PromptSpec:
    name: str
    title: str
    description: str
    #: (name, description, required)
    arguments: tuple[tuple[str, str, bool], ...]
    operations: tuple[str, ...]
    template: str

    def prompt(self) -> types.Prompt:
        return types.Prompt(
            name=self.name,
            title=self.title,
            description=self.description,
            arguments=[
                types.PromptArgument(name=n, description=d, required=r)
                for n, d, r in self.arguments
            ],
        )

    def render(self, given: dict[str, str]) -> str:
        missing = [n for n, _, required in self.arguments if required and not given.get(n)]
        if missing:
            raise MCPError(INVALID_PARAMS, f"prompt {self.name} needs {', '.join(missing)}")
        unknown = sorted(set(given) - {n for n, _, _ in self.arguments})
        if unknown:
            raise MCPError(INVALID_PARAMS, f"prompt {self.name} takes no {', '.join(unknown)}")
        values = {n: given.get(n) or "" for n, _, _ in self.arguments}
        return self.template.format(**values).strip()


PROMPTS: tuple[PromptSpec, ...] = (
    PromptSpec(
        name="layout_document",
        title="Lay out this document as a board",
        description="Turn a document into cards on a board, placed by the server.",
        arguments=(
            ("document", "the document's text (markdown welcome)", True),
            ("board", "the slug of the board to lay it out on (made if missing)", True),
        ),
        operations=("docs", "create", "compose_board", "render_board"),
        template="""
Lay out the document below as cards on the layoutkit board "{board}".

1. If the board does not exist yet, call `create` with {{"kind": "board", "slug": "{board}"}}.
2. Split the document into cards by meaning: headings become `section` cards, prose
   `text` or `note` cards, lists `checklist`, code `code`, figures `media`. Read a
   kind's shape with the `docs` tool (topic = the kind) or the resource
   layoutkit://schema/card/<kind> before you send it.
3. Send them in one `compose_board` call on "{board}"; give placement intent
   (layout, section, flow), never coordinates.
4. Look at the result with `render_board` (or read layoutkit://boards/{board}/picture.png)
   and fix what reads badly with another `compose_board` or `update_cards`.

The document:

{document}
""",
    ),
    PromptSpec(
        name="review_screenshots",
        title="Review these screenshots",
        description="Plan a review of a project's screens, look at every sheet, file findings.",
        arguments=(
            ("boards", "the slugs of the boards holding the screens, comma-separated", True),
            ("focus", "what to look for (optional)", False),
        ),
        operations=("review_plan", "get_card_image", "annotate"),
        template="""
Review the screenshots on the layoutkit boards: {boards}.

1. Call `review_plan` with {{"boards": [the slugs above]}}; it answers a run and its sheets.
2. Look at every sheet with `get_card_image` {{"run": <run>, "sheet": n}}; sheet 1
   prints a sight code: echo it as "sight" for the later sheets.
3. File what you find with `annotate` on the card it concerns (cardId, cardVersion,
   a region, a prompt saying what is wrong and the fix), one item per finding.
4. Close the run with `review_plan` {{"run": <run>, "sight": <code>}} to get its receipt.

Focus: {focus}
""",
    ),
    PromptSpec(
        name="hand_back_session",
        title="Hand back this session",
        description="End the working session on a task with a summary and what comes next.",
        arguments=(
            ("task", "the task's id (for example tk-12)", True),
            ("notes", "what was done, in a few words (optional)", False),
        ),
        operations=("get", "hand_back"),
        template="""
Hand back this working session on layoutkit task {task}.

1. Read the task with `get` {{"kind": "task", "id": "{task}"}} to recall what was asked.
2. Call `hand_back` with {{"id": "{task}", "summary": ...}}: say what was done and
   what was not, list the next items (kind step, or human with who for a decision
   a person must take), and the refs (branch, pull request) of the work.

Notes from the person: {notes}
""",
    ),
)

_BY_NAME = {p.name: p for p in PROMPTS}


def handlers(ws: Workspace) -> dict[str, Any]:
    """The ``Server`` keyword handlers for prompts."""

    async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[p.prompt() for p in PROMPTS])

    async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        spec = _BY_NAME.get(params.name)
        if spec is None:
            raise MCPError(INVALID_PARAMS, f"no prompt named {params.name!r}")
        text = spec.render(dict(params.arguments or {}))
        message = types.PromptMessage(
            role="user", content=types.TextContent(type="text", text=text)
        )
        return types.GetPromptResult(description=spec.description, messages=[message])

    return {"on_list_prompts": list_prompts, "on_get_prompt": get_prompt}
