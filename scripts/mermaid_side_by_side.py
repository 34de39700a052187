"""Mermaid's own renderer beside layoutkit, one labelled PNG per corpus diagram.

Setup (outside CI, once per machine): Node.js with npm, and Debian's Chromium
(``apt-get install chromium nodejs npm``). The script installs
``@mermaid-js/mermaid-cli`` into a scratch folder outside the repository
(``--tools``, default under the system temp dir) with ``PUPPETEER_SKIP_DOWNLOAD=1``
and a puppeteer config that points at the system Chromium, so no browser build
is downloaded.

usage: python scripts/mermaid_side_by_side.py [--corpus DIR] [--out DIR]
       [--family flowchart --family state] [--only 'docs-00*'] [--judgement FILE]

For every ``<family>/<id>.mmd`` of the corpus whose ``.expected.json`` does not
say ``"ok": false`` (Mermaid rejects those), it draws Mermaid's PNG with ``mmdc``
and layoutkit's PNG of the same text (one diagram card whose payload is the
``diagram_text``, composed into a scratch SQLite workspace and drawn with
``render_board`` as PNG), puts them side by side (left Mermaid, right layoutkit,
the id on top) and writes ``index.html`` listing every pair. A judgement file
(the Markdown table of ``benches/mermaid_judgement.md``: ``| id | family |
verdict | reason |``) adds counts of better / same / worse per family.
"""

from __future__ import annotations

import base64
import concurrent.futures
import fnmatch
import html
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import click
from PIL import Image, ImageDraw, ImageFont

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from layoutkit import Workspace  # noqa: E402

FAMILIES = ("flowchart", "sequence", "state")
CHROMIUM = "/usr/bin/chromium"
# Both pictures are cut down to this height (and half the sheet's width) so a
# person compares them at one size.
HEIGHT_CAP = 900
WIDTH_CAP = 1100
BAND = 36


@dataclass
class Pair:
    """One corpus text and what became of it on each side."""

    family: str
    ident: str
    source: Path
    mermaid: Path | None = None
    ours: Path | None = None
    sheet: Path | None = None
    error: str = ""


def install_mmdc(tools: Path) -> Path:
    """``mmdc`` from a scratch npm folder, installed there on first use."""
    mmdc = tools / "node_modules" / ".bin" / "mmdc"
    tools.mkdir(parents=True, exist_ok=True)
    config = tools / "puppeteer.json"
    config.write_text(json.dumps({"executablePath": CHROMIUM, "args": ["--no-sandbox"]}))
    if mmdc.exists():
        return mmdc
    if shutil.which("npm") is None:
        raise click.ClickException("npm is not installed: apt-get install nodejs npm")
    env = {**os.environ, "PUPPETEER_SKIP_DOWNLOAD": "1"}
    done = subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", "@mermaid-js/mermaid-cli"],
        cwd=tools,
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0 or not mmdc.exists():
        tail = (done.stderr or done.stdout).strip().splitlines()[-8:]
        hint = (
            "npm could not reach the registry"
            if any(
                w in "\n".join(tail)
                for w in ("ENOTFOUND", "ECONNREFUSED", "ETIMEDOUT", "EAI_AGAIN")
            )
            else "npm install failed"
        )
        raise click.ClickException(f"{hint}:\n" + "\n".join(tail))
    return mmdc


def render_mermaid(mmdc: Path, source: Path, out: Path, tools: Path) -> str:
    """Mermaid's PNG of ``source`` at ``out``; an error message, or "" when drawn."""
    done = subprocess.run(
        [
            str(mmdc),
            "-i",
            str(source),
            "-o",
            str(out),
            "-b",
            "white",
            "-s",
            "2",
            "-p",
            str(tools / "puppeteer.json"),
            "-q",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode != 0 or not out.exists():
        lines = (done.stderr or done.stdout).strip().splitlines()
        return "mmdc: " + (lines[0] if lines else f"exit {done.returncode}")
    return ""


def render_ours(ws: Workspace, text: str, slug: str, out: Path, scale: float) -> str:
    """layoutkit's PNG of ``text`` at ``out``, as a board of one diagram card."""
    try:
        ws.call("create", {"kind": "board", "slug": slug})
        composed = ws.call(
            "compose_board",
            {"board": slug, "cards": [{"kind": "diagram", "payload": {"diagram_text": text}}]},
        )
        card = composed["cards"][0]
        # The card alone, without the board's title band around it.
        region = {k: card[k] for k in ("x", "y", "w", "h")}
        answer = ws.call(
            "render_board", {"board": slug, "format": "png", "scale": scale, "region": region}
        )
    except Exception as exc:
        return f"layoutkit: {type(exc).__name__}: {exc}"[:300]
    out.write_bytes(base64.b64decode(answer["image"]["data"]))
    return ""


def _fit(img: Image.Image, width: int, height: int) -> Image.Image:
    ratio = min(1.0, width / img.width, height / img.height)
    if ratio < 1.0:
        img = img.resize((max(1, int(img.width * ratio)), max(1, int(img.height * ratio))))
    return img


def _font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    for name in ("DejaVuSans-Bold.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"):
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default()


def compose(pair: Pair, out: Path) -> None:
    """The labelled side-by-side sheet of one pair (a grey box where a side failed)."""
    sides = []
    for label, path in (("Mermaid", pair.mermaid), ("layoutkit", pair.ours)):
        if path is not None and path.exists():
            img = Image.open(path).convert("RGB")
        else:
            img = Image.new("RGB", (400, 200), (230, 230, 230))
        sides.append((label, _fit(img, WIDTH_CAP, HEIGHT_CAP)))
    gap = 24
    width = sum(img.width for _, img in sides) + gap * 3
    height = max(img.height for _, img in sides) + BAND * 2 + gap
    sheet = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(sheet)
    draw.text((gap, 6), f"{pair.family}/{pair.ident}", fill="black", font=_font(22))
    x = gap
    for label, img in sides:
        draw.text((x, BAND + 4), label, fill=(60, 60, 160), font=_font(18))
        sheet.paste(img, (x, BAND * 2))
        draw.rectangle(
            (x - 1, BAND * 2 - 1, x + img.width, BAND * 2 + img.height), outline=(200, 200, 200)
        )
        x += img.width + gap
    sheet.save(out)


def read_judgement(path: Path) -> dict[str, tuple[str, str]]:
    """``family/id`` -> (verdict, reason) from a Markdown table ``| id | family | verdict | reason |``."""
    rows: dict[str, tuple[str, str]] = {}
    for line in path.read_text("utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 4 and cells[1] in FAMILIES and cells[2] in ("better", "same", "worse"):
            rows[f"{cells[1]}/{cells[0]}"] = (cells[2], cells[3])
    return rows


def write_index(pairs: list[Pair], out: Path, verdicts: dict[str, tuple[str, str]]) -> None:
    items = []
    for p in pairs:
        key = f"{p.family}/{p.ident}"
        verdict = " — ".join(verdicts.get(key, ("", "")))
        body = (
            f'<img src="{html.escape(p.sheet.name)}" loading="lazy">'
            if p.sheet
            else "<em>no sheet</em>"
        )
        items.append(
            f'<section id="{html.escape(key)}"><h2>{html.escape(key)}</h2>'
            f"<p>{html.escape(verdict)} {html.escape(p.error)}</p>{body}</section>"
        )
    out.write_text(
        "<!doctype html><meta charset=utf-8><title>Mermaid vs layoutkit</title>"
        "<style>img{max-width:100%;border:1px solid #ccc}section{margin:2em 0}</style>"
        + "\n".join(items),
        "utf-8",
    )


def corpus_pairs(corpus: Path, families: tuple[str, ...], only: str | None) -> list[Pair]:
    pairs = []
    for family in families or FAMILIES:
        for source in sorted((corpus / family).glob("*.mmd")):
            ident = source.stem
            if only and not (
                fnmatch.fnmatch(ident, only) or fnmatch.fnmatch(f"{family}/{ident}", only)
            ):
                continue
            expected = source.with_suffix(".expected.json")
            if expected.exists() and json.loads(expected.read_text("utf-8")).get("ok") is False:
                continue
            pairs.append(Pair(family, ident, source))
    return pairs


@click.command()
@click.option(
    "--corpus",
    type=click.Path(path_type=Path, file_okay=False),
    default=REPO.parent / "shared" / "corpus" / "mermaid",
    show_default=True,
    help="the Mermaid corpus: <family>/<id>.mmd beside <id>.expected.json",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path(tempfile.gettempdir()) / "mermaid-side-by-side",
    show_default=True,
    help="where the PNGs and index.html go (keep it outside the repository)",
)
@click.option(
    "--tools",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path(tempfile.gettempdir()) / "mermaid-cli",
    show_default=True,
    help="scratch npm folder for mermaid-cli",
)
@click.option("--family", "families", multiple=True, type=click.Choice(FAMILIES))
@click.option("--only", default=None, help="glob on the id or family/id, e.g. 'docs-00*'")
@click.option(
    "--scale", default=1.5, show_default=True, help="layoutkit PNG pixels per board pixel"
)
@click.option("--jobs", default=2, show_default=True, type=click.IntRange(1, 2))
@click.option(
    "--judgement",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    default=None,
    help="Markdown table of verdicts to count (benches/mermaid_judgement.md)",
)
def main(
    corpus: Path,
    out: Path,
    tools: Path,
    families: tuple[str, ...],
    only: str | None,
    scale: float,
    jobs: int,
    judgement: Path | None,
) -> None:
    """Render the corpus with Mermaid and layoutkit side by side."""
    pairs = corpus_pairs(corpus, families, only)
    if not pairs:
        raise click.ClickException(f"no corpus texts matched under {corpus}")
    mmdc = install_mmdc(tools)
    out.mkdir(parents=True, exist_ok=True)

    def mermaid_side(pair: Pair) -> None:
        target = out / f"{pair.family}-{pair.ident}.mermaid.png"
        if target.exists() and target.stat().st_mtime > pair.source.stat().st_mtime:
            pair.mermaid = target  # mmdc is slow: a picture newer than its text is kept
            return
        error = render_mermaid(mmdc, pair.source, target, tools)
        pair.mermaid = None if error else target
        pair.error = error

    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        list(pool.map(mermaid_side, pairs))
    with (
        tempfile.TemporaryDirectory() as scratch,
        Workspace.open(f"sqlite:///{Path(scratch) / 'side.db'}") as ws,
    ):
        for n, pair in enumerate(pairs):
            target = out / f"{pair.family}-{pair.ident}.layoutkit.png"
            error = render_ours(ws, pair.source.read_text("utf-8"), f"d{n}", target, scale)
            pair.ours = None if error else target
            pair.error = "; ".join(e for e in (pair.error, error) if e)
    for pair in pairs:
        pair.sheet = out / f"{pair.family}-{pair.ident}.pair.png"
        compose(pair, pair.sheet)
    verdicts = read_judgement(judgement) if judgement else {}
    write_index(pairs, out / "index.html", verdicts)

    click.echo(f"{'id':34} {'mermaid':8} {'layoutkit':9} note")
    for p in pairs:
        click.echo(
            f"{p.family + '/' + p.ident:34} {'ok' if p.mermaid else 'FAIL':8} "
            f"{'ok' if p.ours else 'FAIL':9} {p.error}"
        )
    drawn = sum(1 for p in pairs if p.mermaid and p.ours)
    click.echo(f"\n{drawn}/{len(pairs)} pairs drawn on both sides; index: {out / 'index.html'}")
    if verdicts:
        counts: dict[str, Counter[str]] = {}
        for key, (verdict, _) in verdicts.items():
            counts.setdefault(key.split("/", 1)[0], Counter())[verdict] += 1
        click.echo(f"\n{'family':10} {'better':>6} {'same':>6} {'worse':>6}")
        for family, c in sorted(counts.items()):
            click.echo(f"{family:10} {c['better']:6} {c['same']:6} {c['worse']:6}")


if __name__ == "__main__":
    main()
