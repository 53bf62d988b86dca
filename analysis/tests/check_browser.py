"""ctest's test_report_browser: the report as a browser shows it. Writes the
report of a committed H200 file, opens it in headless Chromium at 1280x900
and fails on an image that does not load or a console error (a script error
or a resource that failed), and unless the Summary opens with its figure,
which loads, and fits one screen: from its heading to its last line at most
900 pixels. It first checks itself: a copy with one image broken on
purpose, and one with the Summary a screen longer, must fail. Exits 77
(skipped) without Chromium.

    python3 check_browser.py PYTHON FILE.h5 [MORE.h5 ...] [--shots DIR] [-- REPORT-OPTIONS]

PYTHON: a Python with sweep_analysis and its dependencies (the build venv).
With --shots, screenshots of the page are left in DIR to look at; after
--, options for sweep-report (--fleet-reference FILE...).
"""

import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BROWSERS = ("chromium", "chromium-browser", "google-chrome")

# Injected into a copy of the page: records errors from the start (capture
# phase sees failed images too) and, once loaded, which images decoded.
HEAD = (
    "<script>window.__errs=[];window.addEventListener('error',function(e){"
    "window.__errs.push(String(e.message||(e.target&&(e.target.alt||e.target.src))))},true);"
    "</script>"
)
TAIL = (
    "<script>window.addEventListener('load',function(){var b=[];"
    "for(var i of document.images){if(!(i.complete&&i.naturalWidth>0))b.push(i.alt.slice(0,60))}"
    "var h=document.getElementById('summary'),f=h&&h.nextElementSibling,"
    "u=document.querySelector('ul.summary'),g=f&&f.querySelector('img');"
    "document.body.setAttribute('data-check',JSON.stringify({images:document.images.length,"
    "broken:b,errors:window.__errs,summary_figure:!!(f&&f.tagName=='FIGURE'&&g&&g.complete"
    "&&g.naturalWidth>0),summary_px:h&&u?u.getBoundingClientRect().bottom-"
    "h.getBoundingClientRect().top:-1}))});</script>"
)
SCREEN_PX = 900  # the viewport's height: the Summary with its figure fits it


def browser():
    for b in BROWSERS:
        p = shutil.which(b)
        if p:
            return p
    return None


def instrument(src, dst, break_image=False, tall_summary=False):
    with open(src, encoding="utf-8") as fh:
        page = fh.read()
    if break_image:
        page = page.replace("data:image/png;base64,iVBOR", "data:image/png;base64,AAAA", 1)
    if tall_summary:  # a Summary a screen too long: the check must see it
        page = page.replace(
            '<ul class="summary">', '<div style="height:900px"></div><ul class="summary">', 1
        )
    page = page.replace("<head>", "<head>" + HEAD, 1).replace("</body>", TAIL + "</body>", 1)
    with open(dst, "w", encoding="utf-8") as fh:
        fh.write(page)


def chromium(exe, page, *args):
    cmd = [exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900"]
    cmd += ["--enable-logging=stderr", "--v=0", *args, "file://" + page]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180)


def problems(exe, page):
    """What went wrong when Chromium loaded page: a list of strings, and what
    the page reported (the Summary's height...), {} when it did not load."""
    p = chromium(exe, page, "--dump-dom")
    m = re.search(r'data-check="([^"]*)"', p.stdout)
    if not m:
        return [f"the page did not finish loading (rc {p.returncode}): {p.stderr[-500:]}"], {}
    check = json.loads(html.unescape(m.group(1)))
    out = [f"image does not load: {b}" for b in check["broken"]]
    out += [f"page error: {e}" for e in check["errors"]]
    out += [ln for ln in p.stderr.splitlines() if "CONSOLE" in ln and "Uncaught" in ln]
    if check["images"] == 0:
        out.append("no image in the report")
    if not check["summary_figure"]:
        out.append("the Summary does not open with a figure that loads")
    if not 0 < check["summary_px"] <= SCREEN_PX:
        out.append(f"the Summary takes {check['summary_px']:.0f} px, not one screen ({SCREEN_PX})")
    return out, check


def _args(argv):
    """(PYTHON, the files, --shots DIR or None, the options after --)."""
    extra = argv[argv.index("--") + 1 :] if "--" in argv else []
    argv = argv[: argv.index("--")] if "--" in argv else list(argv)
    shots = argv[argv.index("--shots") + 1] if "--shots" in argv else None
    if shots:
        del argv[argv.index("--shots") : argv.index("--shots") + 2]
    py = argv[1] if os.access(argv[1], os.X_OK) else sys.executable  # no build venv
    return py, argv[2:], shots, extra


def _self_check(exe, rep) -> str:
    """Why the check would miss a broken image or a Summary too long, or ""."""
    page = os.path.join(rep, "index.html")
    bad, tall = os.path.join(rep, "broken.html"), os.path.join(rep, "tall.html")
    instrument(page, bad, break_image=True)
    instrument(page, tall, tall_summary=True)
    if not problems(exe, bad)[0]:
        return "a broken image went unnoticed"
    if not any("not one screen" in p for p in problems(exe, tall)[0]):
        return "a Summary too long went unnoticed"
    return ""


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    py, files, shots, extra = _args(argv)
    h5 = " ".join(files)
    exe = browser()
    if exe is None:
        print("test_report_browser: SKIPPED: no chromium on PATH")
        return 77
    tmp = tempfile.mkdtemp(prefix="sw-browser-")
    try:
        rep = os.path.join(tmp, "report")
        env = dict(os.environ, PYTHONPATH=os.path.dirname(HERE), MPLBACKEND="Agg")
        cmd = [py, "-m", "sweep_analysis.report", "-q", *files, "-o", rep, *extra]
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
        if r.returncode != 0:
            print(f"test_report_browser: sweep-report failed: {r.stderr}", file=sys.stderr)
            return 1
        missed = _self_check(exe, rep)
        if missed:
            print(f"test_report_browser: {missed}", file=sys.stderr)
            return 1
        good = os.path.join(rep, "checked.html")
        instrument(os.path.join(rep, "index.html"), good)
        found, check = problems(exe, good)
        for f in found:
            print(f"test_report_browser: {f}", file=sys.stderr)
        if shots:
            os.makedirs(shots, exist_ok=True)
            chromium(exe, good, f"--screenshot={os.path.join(shots, 'report.png')}")
            shutil.copytree(os.path.join(rep, "figures"), shots, dirs_exist_ok=True)
        px = check.get("summary_px", -1)
        print(f"test_report_browser: {h5}: {'FAILED' if found else 'ok'} (Summary {px:.0f} px)")
        return 1 if found else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
