"""The one stylesheet of a rendered document (inlined; no fonts or assets fetched).

Typesets and directions are attribute/class switches over CSS variables, so a
reader's typeset choice only flips ``data-typeset`` on the root element.
"""

from __future__ import annotations

import hashlib
import re

from layoutkit.elements.vocab import ACCENT_NAMES, ACCENT_PAIRS

#: Named accents as (light, dark) pairs: the very pairs the contract stores for a
#: named accentColor, so a doc looks the same whether it names or spells its colour.
ACCENTS: dict[str, tuple[str, str]] = {
    name: (pair["light"], pair["dark"]) for name, pair in ACCENT_PAIRS.items()
}
DEFAULT_ACCENT = "azure"
_HEX = re.compile(r"^#[0-9a-fA-F]{6}$")

TYPESETS = ("house", "editorial", "bookish", "swiss", "gallery", "hyperlegible")
DIRECTIONS = ("editorial", "dossier", "terminal", "gallery", "release")


def accent_pair(accent: object, project: object = None) -> tuple[str, str]:
    """Light/dark accent colours: explicit pair, named accent, project hash, else the default."""
    if isinstance(accent, dict):
        light, dark = accent.get("light"), accent.get("dark")
        if isinstance(light, str) and _HEX.match(light):
            return light, dark if isinstance(dark, str) and _HEX.match(dark) else light
    if isinstance(accent, str) and accent in ACCENTS:
        return ACCENTS[accent]
    if isinstance(project, str) and project:
        digest = int(hashlib.sha256(project.encode("utf-8")).hexdigest(), 16)
        return ACCENTS[ACCENT_NAMES[digest % len(ACCENT_NAMES)]]
    return ACCENTS[DEFAULT_ACCENT]


_TYPESET_CSS = """
:root,[data-typeset=house]{--f-body:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;--f-head:var(--f-body);--f-size:16px;--lh:1.6;--measure:46rem;--h-weight:700;--h-track:-0.01em}
[data-typeset=editorial]{--f-body:Charter,"Bitstream Charter","Sitka Text",Cambria,"DejaVu Serif",serif;--f-head:Georgia,"Times New Roman","DejaVu Serif",serif;--f-size:18px;--lh:1.65;--measure:42rem;--h-weight:600;--h-track:-0.02em}
[data-typeset=bookish]{--f-body:"Iowan Old Style","Palatino Linotype",Palatino,"Book Antiqua","DejaVu Serif",serif;--f-head:var(--f-body);--f-size:19px;--lh:1.75;--measure:36rem;--h-weight:500;--h-track:0}
[data-typeset=swiss]{--f-body:"Helvetica Neue",Helvetica,Arial,"DejaVu Sans",sans-serif;--f-head:var(--f-body);--f-size:16px;--lh:1.5;--measure:48rem;--h-weight:800;--h-track:-0.03em}
[data-typeset=gallery]{--f-body:"Avenir Next",Avenir,"Segoe UI",system-ui,"DejaVu Sans",sans-serif;--f-head:var(--f-body);--f-size:16px;--lh:1.55;--measure:64rem;--h-weight:300;--h-track:0.01em}
[data-typeset=hyperlegible]{--f-body:"Atkinson Hyperlegible",Verdana,Tahoma,"DejaVu Sans",sans-serif;--f-head:var(--f-body);--f-size:19px;--lh:1.8;--measure:40rem;--h-weight:700;--h-track:0.01em;letter-spacing:0.02em;word-spacing:0.08em}
"""

_BASE_CSS = """
*,*::before,*::after{box-sizing:border-box}
:root{color-scheme:light dark;--bg:#ffffff;--fg:#1d2230;--muted:#5f6878;--line:#dde1e8;--soft:#f4f6f9;--code-bg:#f5f7fa;
--good:#1f8a4c;--warn:#b7791f;--bad:#c92a2a;--neutral:#6b7280;--info:#1c6ae4;
--s0:var(--accent);--s1:#e8590c;--s2:#2f9e44;--s3:#ae3ec9;--s4:#1098ad;--s5:#f08c00;--s6:#868e96;--s7:#d6336c}
@media (prefers-color-scheme:dark){:root{--bg:#12151c;--fg:#e6e9ef;--muted:#9aa3b2;--line:#2c323e;--soft:#1b2029;--code-bg:#181c24;
--good:#51cf66;--warn:#fcc419;--bad:#ff8787;--neutral:#adb5bd;--info:#74c0fc;--s1:#ff922b;--s2:#69db7c;--s3:#da77f2;--s4:#3bc9db;--s5:#ffd43b;--s6:#ced4da;--s7:#faa2c1}}
html{background:var(--bg);color:var(--fg);font-family:var(--f-body);font-size:var(--f-size);line-height:var(--lh)}
body{margin:0;padding:2.5rem 1.25rem 4rem}
.doc{max-width:var(--measure);margin:0 auto}
.doc.wide,.dir-gallery .doc{max-width:calc(var(--measure) + 16rem)}
h1,h2,h3,h4,h5,h6{font-family:var(--f-head);font-weight:var(--h-weight);letter-spacing:var(--h-track);line-height:1.2;margin:1.6em 0 .5em}
h1{font-size:2.3em}h2{font-size:1.6em}h3{font-size:1.25em}h4{font-size:1.05em}
a{color:var(--accent);text-underline-offset:.15em}
a.unsafe-link{color:var(--muted);text-decoration:line-through dotted}
.unsafe-image{color:var(--muted);font-style:italic}
img{max-width:100%;height:auto}
mark{background:color-mix(in srgb,var(--accent) 24%,transparent);color:inherit;padding:0 .15em;border-radius:.2em}
blockquote{margin:1em 0;padding:.2em 1em;border-left:3px solid var(--accent);color:var(--muted)}
hr{border:0;border-top:1px solid var(--line);margin:2em 0}
code,pre,.mono{font-family:ui-monospace,"SF Mono",Menlo,Consolas,"DejaVu Sans Mono",monospace;font-size:.88em}
:not(pre)>code{background:var(--code-bg);padding:.1em .35em;border-radius:4px}
pre.code{background:var(--code-bg);border:1px solid var(--line);border-radius:8px;padding:.9em 1em;overflow:auto;line-height:1.45;white-space:pre}
pre.code[data-lang]::before{content:attr(data-lang);display:block;font-size:.75em;color:var(--muted);margin-bottom:.4em;text-transform:uppercase;letter-spacing:.06em}
.tok-k{color:#a626a4}.tok-s{color:#50a14f}.tok-c{color:#8a919c;font-style:italic}.tok-n{color:#c18401}.tok-b{color:#0184bc}.tok-f{color:#4078f2}
@media (prefers-color-scheme:dark){.tok-k{color:#d291e4}.tok-s{color:#98c379}.tok-n{color:#e5c07b}.tok-b{color:#56b6c2}.tok-f{color:#61afef}}
.math{font-family:"Latin Modern Math","STIX Two Math","Cambria Math","DejaVu Serif",serif;font-style:italic;background:var(--soft);padding:0 .3em;border-radius:4px;white-space:pre-wrap}
.math-block,.math-display{display:block;text-align:center;padding:.6em;margin:1em 0}
.icon{display:inline-block;min-width:1em;text-align:center;color:var(--accent)}
.icon-unknown{color:var(--muted)}
a.wikilink{text-decoration-style:dashed}
ul.task-list{list-style:none;padding-left:1.2em}li.task input{margin:0 .4em 0 -1.3em}li.task.done{color:var(--muted)}
.table-wrap{overflow-x:auto;margin:1em 0}
table{border-collapse:collapse;width:100%;font-size:.92em}
th,td{border-bottom:1px solid var(--line);padding:.45em .6em;text-align:left;vertical-align:top}
th{font-weight:600;color:var(--muted);font-size:.85em;text-transform:uppercase;letter-spacing:.04em}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
tfoot td{font-weight:600;border-top:2px solid var(--line);border-bottom:0}
tr.group td{background:var(--soft);font-weight:600}
.el{margin:1.5rem 0}
.controls{display:flex;gap:1rem;justify-content:flex-end;font-size:.8rem;color:var(--muted);margin-bottom:1rem}
.controls select{font:inherit;color:inherit;background:var(--bg);border:1px solid var(--line);border-radius:6px;padding:.15em .3em}
.audience-note{font-size:.8rem;color:var(--muted);text-align:right}
header.doc-head{margin-bottom:2.5rem}
.kicker,.eyebrow{font-size:.78rem;font-weight:700;letter-spacing:.12em;text-transform:uppercase;color:var(--accent)}
header.doc-head h1{margin:.2em 0 .3em}
.accent-phrase{color:var(--accent)}
.intro{font-size:1.2em;color:var(--muted);margin:.5em 0 1em}
.chips{display:flex;flex-wrap:wrap;gap:.4rem;list-style:none;padding:0;margin:.8em 0}
.chip{display:inline-flex;border:1px solid var(--line);border-radius:999px;font-size:.8rem;overflow:hidden;line-height:1.8}
.chip .k{padding:0 .6em;background:var(--soft);color:var(--muted)}.chip .v{padding:0 .6em;font-weight:600}
.badge{display:inline-block;border-radius:999px;padding:0 .6em;font-size:.75rem;font-weight:600;line-height:1.7;background:var(--soft);color:var(--muted);border:1px solid var(--line)}
.tone-good-b,.badge.good{color:var(--good);border-color:currentColor}.badge.warn{color:var(--warn);border-color:currentColor}.badge.bad{color:var(--bad);border-color:currentColor}.badge.info{color:var(--info);border-color:currentColor}.badge.accent{color:var(--accent);border-color:currentColor}
.t-good{color:var(--good)}.t-warn{color:var(--warn)}.t-bad{color:var(--bad)}.t-neutral{color:var(--neutral)}
td.t-good,td.t-warn,td.t-bad,td.t-neutral{font-weight:600}
section.section>.sec-head h2{margin-top:.2em}
section.section{margin:3rem 0}
.sec-note{color:var(--muted);margin-top:-.3em}
.columns{display:grid;gap:1.5rem;grid-template-columns:var(--cols)}
.columns>.col>.el:first-child{margin-top:0}
@media (max-width:720px){.columns{grid-template-columns:1fr}}
.compare{display:grid;grid-template-columns:1fr 1fr;gap:1.5rem}
.compare>.side{border:1px solid var(--line);border-radius:10px;padding:1rem}
.compare>.side>.side-label{font-weight:700;font-size:.85rem;text-transform:uppercase;letter-spacing:.06em;color:var(--muted)}
@media (max-width:720px){.compare{grid-template-columns:1fr}}
.tile{border:1px solid var(--line);border-radius:10px;padding:.9rem 1rem;display:grid;gap:.3rem;background:var(--bg)}
.tile .t-title{font-weight:700;font-size:1.05em}
.tile .meta{font-size:.82rem;color:var(--muted);display:flex;flex-wrap:wrap;gap:.3rem .9rem}
.tile .cover{width:100%;aspect-ratio:16/10;object-fit:cover;border-radius:6px;background:var(--soft)}
.live-dot{display:inline-block;width:.55em;height:.55em;border-radius:50%;background:var(--good);margin-right:.3em;box-shadow:0 0 0 3px color-mix(in srgb,var(--good) 25%,transparent)}
.progress{height:6px;border-radius:3px;background:var(--soft);overflow:hidden}.progress>span{display:block;height:100%;background:var(--accent)}
.phase-shipped .badge.phase{color:var(--good)}.phase-verified .badge.phase{color:var(--info)}
.stat-strip{display:grid;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));gap:1px;background:var(--line);border:1px solid var(--line);border-radius:10px;overflow:hidden}
.stat{background:var(--bg);padding:.9rem 1rem}
.stat .label{font-size:.78rem;color:var(--muted);text-transform:uppercase;letter-spacing:.05em}
.stat .value{font-size:1.9em;font-weight:700;line-height:1.15;font-variant-numeric:tabular-nums}
.stat .unit{font-size:.55em;color:var(--muted);margin-left:.15em;font-weight:500}
.stat .delta{font-size:.85rem;font-weight:600}.stat .note{font-size:.8rem;color:var(--muted)}
.stat svg.spark{width:100%;height:28px;display:block;margin-top:.3rem}
.meter{display:grid;gap:.2rem;margin:.6rem 0}.meter .row{display:flex;justify-content:space-between;font-size:.9rem}
.meter .bar{position:relative;height:10px;border-radius:5px;background:var(--soft)}
.meter .fill{position:absolute;inset:0 auto 0 0;border-radius:5px;background:var(--accent)}
.meter .fill.good{background:var(--good)}.meter .fill.warn{background:var(--warn)}.meter .fill.bad{background:var(--bad)}.meter .fill.neutral{background:var(--neutral)}
.meter .threshold{position:absolute;top:-3px;bottom:-3px;width:2px;background:var(--fg)}
.meter .note{font-size:.8rem;color:var(--muted)}
figure{margin:1.5rem 0}figcaption,.caption{font-size:.85rem;color:var(--muted);margin-top:.5rem}
.placeholder{display:grid;place-items:center;aspect-ratio:16/10;background:var(--soft);border:1px dashed var(--line);border-radius:8px;color:var(--muted);font-size:.85rem}
.site-picture{display:inline-block;padding:.35rem .6rem;background:var(--soft);border:1px dashed var(--line);border-radius:6px;color:var(--muted);font-size:.85rem;overflow-wrap:anywhere}
figure>.site-picture{display:block;padding:1.2rem 1rem;text-align:center}
.chart svg{width:100%;height:auto;display:block;overflow:visible}
.chart-title{font-weight:700;margin-bottom:.4rem}
svg .lbl,svg .val,svg .axis,svg .ref-lbl,svg .stage-lbl,svg .chip-txt{font-family:var(--f-body);font-size:12px;fill:var(--fg)}
svg .axis{fill:var(--muted);font-size:11px}svg .small{font-size:10.5px}svg .ref-lbl{fill:var(--muted);font-style:italic}
svg .hero{font-size:54px;font-weight:700;fill:var(--fg);font-family:var(--f-body)}svg .big{font-size:20px;font-weight:700;fill:var(--fg)}
svg .delta{font-size:16px;font-weight:600;fill:var(--muted)}
svg .grid{stroke:var(--line);stroke-width:1}svg .axis-break{stroke:var(--muted);stroke-width:1.5}svg .frame,svg .axis-line{stroke:var(--line);stroke-width:1.5}
svg .ref{stroke:var(--fg);stroke-dasharray:5 4;stroke-width:1.3;opacity:.7}
svg .s0{fill:var(--s0)}svg .s1{fill:var(--s1)}svg .s2{fill:var(--s2)}svg .s3{fill:var(--s3)}svg .s4{fill:var(--s4)}svg .s5{fill:var(--s5)}svg .s6{fill:var(--s6)}svg .s7{fill:var(--s7)}
svg .ln0{stroke:var(--s0)}svg .ln1{stroke:var(--s1)}svg .ln2{stroke:var(--s2)}svg .ln3{stroke:var(--s3)}svg .ln4{stroke:var(--s4)}svg .ln5{stroke:var(--s5)}svg .ln6{stroke:var(--s6)}svg .ln7{stroke:var(--s7)}
svg polyline[class^=ln]{stroke-width:2.2;stroke-linejoin:round}svg .spark{stroke-width:1.6}
svg .area{opacity:.25}svg .slice{stroke:var(--bg);stroke-width:2}
svg .tone-good{fill:var(--good)}svg .tone-warn{fill:var(--warn)}svg .tone-bad{fill:var(--bad)}svg .tone-neutral{fill:var(--neutral)}
svg .before{fill:var(--neutral);opacity:.55}svg .after{fill:var(--accent)}
svg .chip-bg{fill-opacity:.14}svg .tone-good-txt{fill:var(--good)}svg .tone-warn-txt{fill:var(--warn)}svg .tone-bad-txt{fill:var(--bad)}svg .tone-neutral-txt{fill:var(--muted)}svg .chip-txt{font-weight:700}
svg .heat0{fill:var(--soft)}svg .heat1{fill:color-mix(in srgb,var(--accent) 25%,var(--bg))}svg .heat2{fill:color-mix(in srgb,var(--accent) 50%,var(--bg))}svg .heat3{fill:color-mix(in srgb,var(--accent) 75%,var(--bg))}svg .heat4{fill:var(--accent)}
svg .stage{opacity:.85}svg .muted-fill{fill:var(--line)}
.finding{display:grid;grid-template-columns:5px 1fr;border:1px solid var(--line);border-radius:10px;overflow:hidden}
.finding>.rail{background:var(--neutral)}.finding.sev-high>.rail{background:var(--bad)}.finding.sev-medium>.rail{background:var(--warn)}.finding.sev-low>.rail{background:var(--info)}
.finding>.body{padding:.9rem 1.1rem}.finding .f-title{font-weight:700;font-size:1.08em;margin:.2rem 0}
.finding .where{font-size:.82rem;color:var(--muted)}.finding dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem .8rem;margin:.6rem 0;font-size:.92rem}
.finding dt{color:var(--muted);font-weight:600}.finding dd{margin:0}
.finding.reading-resolved .f-title{text-decoration:none}.finding.reading-refuted .f-title{text-decoration:line-through;color:var(--muted)}
.status.resolved{color:var(--good);border-color:currentColor}.status.pending{color:var(--warn);border-color:currentColor}.status.refuted{color:var(--muted)}.status.wont-fix{color:var(--neutral)}
.trace{display:grid;grid-template-columns:1fr auto 1fr;gap:.5rem;align-items:center;font-size:.85rem}
.trace .hop{border:1px solid var(--line);border-radius:6px;padding:.3rem .5rem}
.evidence{font-size:.85rem;color:var(--muted);padding-left:1.1em}
.timeline.spine{list-style:none;padding:0 0 0 1.4rem;border-left:2px solid var(--line);margin-left:.4rem}
.timeline.spine>li{position:relative;margin:0 0 1.2rem}
.timeline.spine>li::before{content:"";position:absolute;left:calc(-1.4rem - 6px);top:.45em;width:10px;height:10px;border-radius:50%;background:var(--accent);border:2px solid var(--bg)}
.timeline .when{font-size:.8rem;color:var(--muted);font-variant-numeric:tabular-nums}
.timeline .t-head{font-weight:650}
.timeline.time{position:relative;height:auto;padding-top:.5rem}
.timeline.time .axis{position:relative;height:2px;background:var(--line);margin:2.2rem 0 1rem}
.timeline.time .tick{position:absolute;top:-5px;width:12px;height:12px;margin-left:-6px;border-radius:50%;background:var(--accent)}
.timeline.time .tick span{position:absolute;top:-1.7rem;left:50%;transform:translateX(-50%);white-space:nowrap;font-size:.75rem;color:var(--muted)}
.timeline.time ol{list-style:none;padding:0;display:grid;gap:.6rem}
.verdict{border-radius:10px;padding:1rem 1.2rem;border:1px solid var(--line);border-left:6px solid var(--info);background:color-mix(in srgb,var(--info) 7%,var(--bg))}
.verdict.good{border-left-color:var(--good);background:color-mix(in srgb,var(--good) 7%,var(--bg))}
.verdict.warn{border-left-color:var(--warn);background:color-mix(in srgb,var(--warn) 8%,var(--bg))}
.verdict.bad{border-left-color:var(--bad);background:color-mix(in srgb,var(--bad) 7%,var(--bg))}
.verdict .state{font-size:1.25em;font-weight:700}
.ref-chip{display:inline-flex;align-items:center;gap:.4em;border:1px solid var(--line);border-radius:999px;padding:.1em .8em;text-decoration:none;font-size:.9rem}
.ref-chip::before{content:"↗";color:var(--accent)}
.ref-preview{border:1px solid var(--line);border-radius:10px;padding:.8rem 1rem;display:block;text-decoration:none;color:inherit}
.gallery{display:grid;gap:.8rem}
.gallery figure{margin:0}.gallery img,.gallery .placeholder{width:100%;border-radius:8px;display:block}
.gallery.grid{grid-template-columns:repeat(auto-fill,minmax(14rem,1fr))}.gallery.grid img,.gallery.grid .placeholder{aspect-ratio:16/10;object-fit:cover}
.gallery.bento{grid-template-columns:repeat(6,1fr);grid-auto-rows:7rem;grid-auto-flow:dense}
.gallery.bento figure{grid-column:span 2;grid-row:span 1}.gallery.bento figure.span-wide{grid-column:span 4}.gallery.bento figure.span-tall{grid-row:span 2}
.gallery.bento figure.span-large,.gallery.bento figure:first-child{grid-column:span 4;grid-row:span 2}
.gallery.bento img,.gallery.bento .placeholder{height:100%;object-fit:cover;aspect-ratio:auto}
.gallery.bento figcaption{display:none}
.gallery.masonry{display:block;columns:3 14rem;column-gap:.8rem}.gallery.masonry figure{break-inside:avoid;margin-bottom:.8rem}
.gallery.carousel{display:flex;overflow-x:auto;scroll-snap-type:x mandatory;gap:0}
.gallery.carousel figure{flex:0 0 100%;scroll-snap-align:center}.gallery.carousel img,.gallery.carousel .placeholder{aspect-ratio:16/10;object-fit:contain;background:var(--soft)}
.media .download{display:inline-flex;gap:.5em;align-items:center;border:1px solid var(--line);border-radius:8px;padding:.5em .9em;text-decoration:none}
.media object,.media iframe{width:100%;height:32rem;border:1px solid var(--line);border-radius:8px}
.media video{width:100%;border-radius:8px}.media audio{width:100%}
.html-frame iframe{border:1px solid var(--line);border-radius:8px;width:100%;max-width:1600px;background:#fff}
.mockups{display:flex;flex-wrap:wrap;gap:1.2rem;align-items:flex-start}
.mock-frame{border:1px solid var(--line);border-radius:calc(var(--mk-radius,10px) + 4px);background:var(--soft);padding:.6rem;max-width:100%}
.mock-frame .mk-name{font-size:.75rem;color:var(--muted);margin-bottom:.4rem;text-align:center}
.mock-screen{background:var(--bg);border-radius:var(--mk-radius,10px);overflow:hidden;display:flex;flex-direction:column;gap:6px;padding:8px;min-height:8rem}
.mk{display:flex;flex-direction:column;gap:6px;border-radius:calc(var(--mk-radius,10px) / 2);font-size:.78rem;color:var(--muted)}
.mk.row{flex-direction:row}.mk>.mk{flex:1}
.mk-leaf{border:1px dashed var(--line);padding:.35rem .5rem;min-height:1.8rem}
.mk-button{background:var(--soft);border:1px solid var(--line);text-align:center;color:var(--fg);font-weight:600}
.mk-button.primary,.mk.primary{background:var(--accent);color:#fff;border-color:var(--accent)}
.mk-image,.mk-img,.mk-media,.mk-chart{background:repeating-linear-gradient(45deg,var(--soft),var(--soft) 6px,var(--bg) 6px,var(--bg) 12px);min-height:4rem}
.mk-nav,.mk-header,.mk-bar{background:var(--soft);border:0;font-weight:600;color:var(--fg)}
.mk-text,.mk-title,.mk-heading{border:0;color:var(--fg);padding-left:0}.mk-title,.mk-heading{font-weight:700;font-size:.95rem}
.mk-input,.mk-field{border:1px solid var(--line);background:var(--bg)}
.diagram-svg svg{width:100%;height:auto;display:block}
.doc-nested{border-left:3px solid var(--line);padding-left:1rem}
.unknown-kind{border:1px dashed var(--line);border-radius:8px;padding:.6rem .9rem;font-size:.85rem;color:var(--muted)}
.unknown-kind pre{white-space:pre-wrap;font-size:.8rem}
.page-el{border-top:1px solid var(--line)}
.list-check{list-style:none;padding-left:1.2em}.list-check li::before{content:"✓";color:var(--good);margin-left:-1.2em;width:1.2em;display:inline-block}
.tile-grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(15rem,1fr));gap:.8rem}
.views{margin:1rem 0}.views>input{position:absolute;opacity:0;pointer-events:none}
.views>label{display:inline-block;font-size:.8rem;padding:.2em .8em;border:1px solid var(--line);border-radius:999px;margin:0 .3em .5em 0;cursor:pointer;color:var(--muted)}
.views>.view{display:none}
/* Audience switch: an element tagged for other audiences hides for the chosen one. */
html[data-audience=public] [data-aud]:not([data-aud~=public]),html[data-audience=technical] [data-aud]:not([data-aud~=technical]),html[data-audience=internal] [data-aud]:not([data-aud~=internal]){display:none!important}
/* Directions */
.dir-editorial header.doc-head{text-align:center}.dir-editorial header.doc-head .chips{justify-content:center}
.dir-editorial header.doc-head h1{font-size:2.8em}
.dir-dossier .doc{border-top:6px solid var(--accent);padding-top:1.5rem}
.dir-dossier header.doc-head{display:grid;grid-template-columns:1fr;border-bottom:1px solid var(--line);padding-bottom:1.2rem}
.dir-dossier .kicker,.dir-dossier .eyebrow,.dir-dossier th{font-family:ui-monospace,"DejaVu Sans Mono",monospace}
.dir-dossier section.section{border-top:1px solid var(--line);padding-top:1rem}
.dir-terminal{--bg:#0d1117;--fg:#d1f7c4;--muted:#7d8a7a;--line:#253027;--soft:#141b16;--code-bg:#111814;color-scheme:dark}
.dir-terminal,.dir-terminal body{font-family:ui-monospace,"SF Mono",Menlo,Consolas,"DejaVu Sans Mono",monospace}
.dir-terminal h1::before{content:"$ ";color:var(--accent)}.dir-terminal h2::before{content:"## ";color:var(--muted)}
.dir-gallery header.doc-head h1{font-size:3.2em}.dir-gallery .gallery{gap:1.2rem}
.dir-release header.doc-head{border-bottom:2px solid var(--accent);padding-bottom:1rem}
.dir-release section.section>.sec-head .eyebrow{display:inline-block;background:var(--accent);color:var(--bg);padding:.05em .6em;border-radius:4px}
.dir-release .prose ul{padding-left:1.1em}
/* An export (render_doc with an audience) shows every gallery item in a 2-column grid. */
html.export .gallery{display:grid!important;grid-template-columns:1fr 1fr!important;grid-auto-rows:auto!important;columns:auto;overflow:visible}
html.export .gallery figure{grid-column:auto!important;grid-row:auto!important;flex:none}
html.export .gallery img,html.export .gallery .placeholder{aspect-ratio:16/10;height:auto;object-fit:contain}
html.export .gallery.bento figcaption{display:block}
/* Print: a clean PDF from the browser. */
@media print{
  :root{--bg:#fff;--fg:#000;--muted:#444;--line:#ccc;--soft:#f3f3f3;color-scheme:light}
  .dir-terminal{--bg:#fff;--fg:#000;--soft:#f3f3f3;--line:#ccc;--code-bg:#f6f6f6}
  @page{margin:16mm 14mm}
  body{padding:0;font-size:11pt}
  .controls,.views>label{display:none!important}
  .doc{max-width:none}
  .el,figure,tr,.tile,.finding,.stat-strip,pre.code{break-inside:avoid}
  h1,h2,h3{break-after:avoid}
  .columns,.compare{grid-template-columns:repeat(auto-fit,minmax(0,1fr))}
  .gallery,.gallery.grid,.gallery.bento,.gallery.masonry,.gallery.carousel{display:grid!important;grid-template-columns:1fr 1fr!important;grid-auto-rows:auto!important;columns:auto;overflow:visible;gap:4mm}
  .gallery figure,.gallery.bento figure{grid-column:auto!important;grid-row:auto!important;flex:none}
  .gallery img,.gallery .placeholder{aspect-ratio:16/10;height:auto;object-fit:contain}
  .gallery.bento figcaption{display:block}
  .views>.view{display:block!important}.views>.view~.view{display:none!important}
  pre.code{white-space:pre-wrap}
  a[href^="http"]::after{content:" (" attr(href) ")";font-size:.8em;color:var(--muted);word-break:break-all}
  .html-frame iframe{display:none}.html-frame::after{content:"Interactive HTML (see the online version)";color:var(--muted)}
}
"""


def document_css(accent: tuple[str, str], view_count: int = 0) -> str:
    """The stylesheet with the accent pair and the radio-tab rules for table views."""
    light, dark = accent
    views = "".join(
        f".views>input:nth-of-type({i}):checked~.view:nth-of-type({i}){{display:block}}"
        f".views>input:nth-of-type({i}):checked+label{{color:var(--fg);border-color:var(--accent)}}"
        for i in range(1, view_count + 1)
    )
    return (
        f":root{{--accent:{light}}}@media (prefers-color-scheme:dark){{:root{{--accent:{dark}}}}}"
        f".dir-terminal{{--accent:{dark}}}" + _TYPESET_CSS + _BASE_CSS + views
    )
