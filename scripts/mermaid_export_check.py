"""Mermaid itself reads what ``export_board`` (format mermaid) writes: the counts it finds
against the card's.

Setup (outside CI, once per machine): as ``scripts/mermaid_side_by_side.py`` — Node.js
with npm and Debian's Chromium; ``@mermaid-js/mermaid-cli`` (which brings the ``mermaid``
package and puppeteer) is installed into a scratch folder (``--tools``) on first use.

usage: python scripts/mermaid_export_check.py [--corpus DIR] [--tools DIR] [--show N]

For every corpus text of the three families that layoutkit's import accepts, and a few
hand-written payloads, the payload is exported with :func:`layoutkit.travel.to_mermaid`;
Mermaid's own parser (``mermaid.mermaidAPI.getDiagramFromText`` in headless Chromium)
reads each export, and the script compares what its database holds with the payload:
flowchart vertices, edges and subgraphs; sequence participants and messages; state
states (notes and [*] markers included, as Mermaid keeps them) and transitions.
It prints one line per mismatch or parse error and a total per family.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import click

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from mermaid_side_by_side import CHROMIUM, install_mmdc  # noqa: E402

from layoutkit.diagram.mermaid import import_text  # noqa: E402
from layoutkit.errors import EngineError  # noqa: E402
from layoutkit.travel import to_mermaid  # noqa: E402

FAMILIES = ("flowchart", "sequence", "state")

# Runs in Node: puppeteer drives Chromium, which loads mermaid and parses every text.
_NODE = r"""
const puppeteer = require(process.argv[2] + '/node_modules/puppeteer-core');
const fs = require('fs');
(async () => {
  const texts = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'));
  const browser = await puppeteer.launch({executablePath: process.argv[4], args: ['--no-sandbox']});
  const page = await browser.newPage();
  await page.setContent('<html><body></body></html>');
  await page.addScriptTag({path: process.argv[2] + '/node_modules/mermaid/dist/mermaid.min.js'});
  const out = await page.evaluate(async (texts) => {
    mermaid.initialize({startOnLoad: false});
    const res = [];
    for (const t of texts) {
      try {
        const d = await mermaid.mermaidAPI.getDiagramFromText(t);
        const db = d.db;
        const facts = {type: d.type};
        if (db.getVertices) {
          // An edge to a subgraph adds its id to the vertices; it is drawn as the subgraph.
          const subgraphs = new Set(db.getSubGraphs().map((g) => g.id));
          facts.nodes = [...db.getVertices().keys()].filter((id) => !subgraphs.has(id)).length;
          facts.edges = db.getEdges().length;
          facts.groups = subgraphs.size;
        } else if (db.getActors) {
          facts.nodes = db.getActors().size;
          const note = db.LINETYPE ? db.LINETYPE.NOTE : 2;
          facts.edges = db.getMessages().filter(
            (m) => m.from && m.to && typeof m.message === 'string' && m.type !== note
          ).length;
        } else if (db.getData) {
          const data = db.getData();
          facts.nodes = data.nodes.filter((n) => !n.isGroup).length;
          // A note is drawn in a group with its state and tied by an edge: not the card's.
          const own = (x) => !String(x.id).includes('----');
          facts.groups = data.nodes.filter((n) => n.isGroup && own(n)).length;
          facts.edges = data.edges.filter(own).length;
        }
        res.push(facts);
      } catch (e) {
        res.push({error: String(e && e.message || e).slice(0, 200)});
      }
    }
    return res;
  }, texts);
  fs.writeFileSync(process.argv[5], JSON.stringify(out));
  await browser.close();
})();
"""

_HAND_WRITTEN = [
    {
        "title": "Checkout",
        "dir": "LR",
        "nodes": [
            {"id": "cart", "title": 'Cart "items"', "shape": "stadium"},
            {"id": "pay now", "title": "Pay | [card]", "shape": "diamond"},
            {"title": "no id", "shape": "document"},
        ],
        "groups": [
            {
                "id": "svc",
                "title": "Services {x}",
                "dir": "TD",
                "nodes": [{"id": "db", "title": "DB\nprimary", "shape": "cylinder"}],
            }
        ],
        "edges": [
            {"from": "cart", "to": "pay now", "label": "go #1; <fast>"},
            {"from": "pay now", "to": "db", "style": "dotted"},
            {"from": "no id", "to": "svc", "style": "thick", "label": "to group"},
            {"from": "db", "to": "cart", "style": "both"},
        ],
    },
    {
        "title": "Lanes",
        "lanes": [
            {"label": "Ops", "nodes": [{"id": "a", "title": "A"}]},
            {"label": "Dev", "nodes": [{"id": "b", "title": "B", "shape": "hexagon"}]},
        ],
        "edges": [{"from": "a", "to": "b", "style": "circle"}],
    },
]


def _card_facts(payload: dict[str, Any], family: str) -> dict[str, int]:
    """The counts Mermaid should find, read off the payload."""
    nodes = groups = 0

    def walk(holder: dict[str, Any]) -> None:
        nonlocal nodes, groups
        nodes += len(holder.get("nodes") or [])
        for g in holder.get("groups") or []:
            groups += 1
            walk(g)
        for lane in holder.get("lanes") or []:
            if family == "flowchart":
                groups += 1  # a lane goes out as a subgraph
            walk(lane)

    walk(payload)
    edges = len(payload.get("edges") or [])
    if family == "sequence":
        return {"nodes": nodes, "edges": len(payload["sequence"]["messages"])}
    if family == "state":
        # Mermaid keeps a note as a state of its own and its tie as no transition.
        ties = sum(1 for e in payload.get("edges") or [] if e.get("head") == "none")
        return {"nodes": nodes, "groups": groups, "edges": edges - ties}
    return {"nodes": nodes, "groups": groups, "edges": edges}


@click.command()
@click.option(
    "--corpus",
    type=click.Path(file_okay=False, path_type=Path),
    default=REPO.parent / "shared" / "corpus" / "mermaid",
    show_default=True,
)
@click.option(
    "--tools",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path(tempfile.gettempdir()) / "mermaid-cli",
    show_default=True,
    help="Scratch npm folder holding @mermaid-js/mermaid-cli.",
)
@click.option("--show", default=0, help="Print the first N exports Mermaid disagrees with.")
def main(corpus: Path, tools: Path, show: int) -> None:
    install_mmdc(tools)
    cases: list[tuple[str, str, dict[str, Any]]] = []
    for family in FAMILIES:
        for path in sorted((corpus / family).glob("*.mmd")):
            try:
                payload = import_text(path.read_text(encoding="utf-8"))
            except EngineError:
                continue
            cases.append((family, path.stem, payload))
    for k, payload in enumerate(_HAND_WRITTEN):
        cases.append(("hand-written", f"payload-{k}", payload))
    exports = [to_mermaid(p) for _, _, p in cases]
    with tempfile.TemporaryDirectory() as scratch:
        src, out, texts = (Path(scratch) / n for n in ("check.js", "out.json", "texts.json"))
        src.write_text(_NODE, encoding="utf-8")
        texts.write_text(json.dumps([e.text for e in exports]), encoding="utf-8")
        done = subprocess.run(
            ["node", str(src), str(tools), str(texts), CHROMIUM, str(out)],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise click.ClickException(done.stderr[-2000:])
        found = json.loads(out.read_text(encoding="utf-8"))
    totals: dict[str, list[int]] = {}
    shown = 0
    for (family, name, payload), export, mermaid in zip(cases, exports, found, strict=True):
        row = totals.setdefault(f"{family} -> {export.family}", [0, 0, 0])
        row[0] += 1
        if "error" in mermaid:
            row[2] += 1
            click.echo(f"{family}/{name}: Mermaid refused the export: {mermaid['error']}")
        else:
            want = _card_facts(payload, export.family)
            got = {k: mermaid.get(k) for k in want}
            if got == want:
                row[1] += 1
                continue
            click.echo(f"{family}/{name} ({export.family}): card {want}, Mermaid {got}")
        if shown < show:
            shown += 1
            click.echo(export.text)
    for key, (n, same, refused) in sorted(totals.items()):
        click.echo(f"{key}: {n} exports, {same} same counts, {refused} refused by Mermaid")


if __name__ == "__main__":
    main()
