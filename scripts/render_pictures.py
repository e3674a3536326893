"""Draw the README's pictures of gpupool's output from real runs.

Run ``python scripts/render_pictures.py``.

It plans a pull request on the bundled ``stacks/examples/azure-kai-fair.yaml`` (the A100 pool's
``nodes.max`` raised from 3, the base, to 4, the example) and writes two PNG files:

- ``docs/images/plan.png``: the text plan, as a terminal shows it;
- ``docs/images/plan-comment.png``: the pull-request comment (``--format markdown``) as GitHub
  renders it: cmarkgfm's GitHub-flavoured HTML (what GitHub's own renderer is built on) with
  tables, ``<details>`` folded, and the Mermaid pie GitHub draws redrawn here as SVG from the
  same figures, since no Mermaid runs here.

The pages are screenshotted by headless Chromium (Debian: ``apt-get install chromium``; set
``CHROMIUM`` to another binary). The simulated section is left out (``--no-simulation``): its
Mermaid line charts are not redrawn. Run it again when the plan's output changes.
"""

from __future__ import annotations

import html
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import cmarkgfm
from cmarkgfm.cmark import Options

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "stacks" / "examples" / "azure-kai-fair.yaml"
IMAGES = ROOT / "docs" / "images"
WIDTH = 1000
_PIE = re.compile(
    r"```mermaid\npie title (?P<title>[^\n]*)\n(?P<rows>(?:\s+\"[^\"]*\" : [\d.]+\n)+)```")
_COLOURS = ("#4e79a7", "#f28e2b", "#59a14f", "#bab0ac", "#e15759", "#76b7b2", "#edc948")
_STYLE = """
body { margin: 0; padding: 24px; width: WIDTHpx; box-sizing: border-box; background: #fff;
  font: 14px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif;
  color: #1f2328; }
.comment { border: 1px solid #d0d7de; border-radius: 6px; padding: 16px 24px; }
h3 { font-size: 1.25em; margin-top: 0; } h4 { font-size: 1em; margin: 20px 0 8px; }
table { border-collapse: collapse; margin: 8px 0; display: block; overflow: auto; }
th, td { border: 1px solid #d0d7de; padding: 4px 10px; } tr:nth-child(2n) { background: #f6f8fa; }
code, pre { font: 12px ui-monospace, "DejaVu Sans Mono", monospace; background: #f6f8fa; }
pre { padding: 12px; border-radius: 6px; overflow: auto; }
blockquote { margin: 0; padding: 0 1em; color: #59636e; border-left: .25em solid #d0d7de; }
sub { color: #59636e; } details { margin-top: 12px; } summary { cursor: pointer; }
pre.terminal { background: #1e1e1e; color: #d4d4d4; font-size: 12px; line-height: 1.35;
  margin: 0; white-space: pre-wrap; }
""".replace("WIDTH", str(WIDTH))


def _gpupool(*argv: str, cwd: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "COLUMNS": "100"}
    done = subprocess.run([sys.executable, "-m", "gpupool", *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, check=False)
    if done.returncode not in (0, 2):
        raise SystemExit(f"gpupool {' '.join(argv)} failed:\n{done.stderr}")
    return done.stdout


def _pie_svg(title: str, rows: list[tuple[str, float]]) -> str:
    """Draw the pie GitHub's Mermaid draws for these rows: slices clockwise from 12 o'clock."""
    total = sum(value for _, value in rows) or 1.0
    parts, angle = [], -math.pi / 2
    for n, (label, value) in enumerate(rows):
        share = value / total
        end = angle + 2 * math.pi * share
        x1, y1 = 110 + 100 * math.cos(angle), 110 + 100 * math.sin(angle)
        x2, y2 = 110 + 100 * math.cos(end), 110 + 100 * math.sin(end)
        large = 1 if share > 0.5 else 0
        colour = _COLOURS[n % len(_COLOURS)]
        parts.append(f'<path d="M110,110 L{x1:.2f},{y1:.2f} A100,100 0 {large},1 {x2:.2f},'
                     f'{y2:.2f} Z" fill="{colour}" stroke="#fff"/>')
        parts.append(f'<rect x="240" y="{30 + 24 * n}" width="14" height="14" fill="{colour}"/>'
                     f'<text x="262" y="{42 + 24 * n}" font-size="13">{html.escape(label)} '
                     f'({share:.0%})</text>')
        angle = end
    return (f'<figure><figcaption><b>{html.escape(title)}</b></figcaption>'
            f'<svg width="520" height="230" xmlns="http://www.w3.org/2000/svg">'
            f'{"".join(parts)}</svg></figure>')


def _comment_html(markdown: str) -> str:
    def pie(match: re.Match[str]) -> str:
        rows = [(label, float(value)) for label, value in
                re.findall(r'"([^"]*)" : ([\d.]+)', match["rows"])]
        return _pie_svg(match["title"], rows)

    body = cmarkgfm.github_flavored_markdown_to_html(
        _PIE.sub(pie, markdown), options=Options.CMARK_OPT_UNSAFE)
    return f'<div class="comment">{body}</div>'


def _screenshot(chromium: str, body: str, target: Path, scratch: Path, width: int = WIDTH) -> None:
    """Render ``body`` ``width`` pixels wide and screenshot the whole page into ``target``."""
    page = scratch / (target.stem + ".html")
    style = _STYLE.replace(f"width: {WIDTH}px", f"width: {width}px")
    page.write_text(f"<!doctype html><meta charset=utf-8><style>{style}</style>"
                    f"<body>{body}<script>document.body.dataset.height="
                    f"document.documentElement.scrollHeight</script></body>", encoding="utf-8")
    flags = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             "--force-device-scale-factor=1", f"--user-data-dir={scratch / 'profile'}"]
    dom = subprocess.run([*flags, f"--window-size={width},800", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, check=True, timeout=120).stdout
    found = re.search(r'data-height="(\d+)"', dom)
    height = int(found.group(1)) if found else 2000
    subprocess.run([*flags, f"--window-size={width},{height}", f"--screenshot={target}",
                    page.as_uri()], capture_output=True, check=True, timeout=120)


def main() -> int:
    """Plan the example's pull request and write both pictures; 1 without a Chromium."""
    chromium = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which(
        "chromium-browser")
    if chromium is None:
        print("error: no chromium on PATH (apt-get install chromium), or set CHROMIUM",
              file=sys.stderr)
        return 1
    IMAGES.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        stacks = scratch / "stacks"
        stacks.mkdir()
        shutil.copy(EXAMPLE, stacks / "shared-aks.yaml")
        text = EXAMPLE.read_text(encoding="utf-8")
        assert "nodes: {min: 2, max: 4}" in text, "the example's A100 pool changed: edit me"
        (stacks / "base.yaml").write_text(
            text.replace("nodes: {min: 2, max: 4}", "nodes: {min: 2, max: 3}"), encoding="utf-8")
        shutil.copy(EXAMPLE.parent / "azure-kai-fair.jobs.csv", stacks)  # its simulation block
        argv = ("plan", "stacks/shared-aks.yaml", "--base", "stacks/base.yaml", "--no-simulation")
        plan = _gpupool(*argv, cwd=scratch)
        comment = _gpupool(*argv, "--format", "markdown", cwd=scratch)
        _screenshot(chromium, f'<pre class="terminal">$ gpupool {" ".join(argv)}\n'
                    f"{html.escape(plan)}</pre>", IMAGES / "plan.png", scratch, 1240)
        _screenshot(chromium, _comment_html(comment), IMAGES / "plan-comment.png", scratch)
    for name in ("plan.png", "plan-comment.png"):
        print(f"wrote docs/images/{name} ({(IMAGES / name).stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
