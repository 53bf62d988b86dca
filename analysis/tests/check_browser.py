"""ctest's test_report_browser: the report as a browser shows it. Writes the
report of a committed H200 file, opens it in headless Chromium at 1280x900
and fails on an image that does not load or a console error (a script error
or a resource that failed). It first checks itself: a copy with one image
broken on purpose must fail. Exits 77 (skipped) without Chromium.

    python3 check_browser.py PYTHON FILE.h5 [--shots DIR]

PYTHON: a Python with sweep_analysis and its dependencies (the build venv).
With --shots, screenshots of the page are left in DIR to look at.
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
    "document.body.setAttribute('data-check',JSON.stringify({images:document.images.length,"
    "broken:b,errors:window.__errs}))});</script>"
)


def browser():
    for b in BROWSERS:
        p = shutil.which(b)
        if p:
            return p
    return None


def instrument(src, dst, break_image=False):
    with open(src, encoding="utf-8") as fh:
        page = fh.read()
    if break_image:
        page = page.replace("data:image/png;base64,iVBOR", "data:image/png;base64,AAAA", 1)
    page = page.replace("<head>", "<head>" + HEAD, 1).replace("</body>", TAIL + "</body>", 1)
    with open(dst, "w", encoding="utf-8") as fh:
        fh.write(page)


def chromium(exe, page, *args):
    cmd = [exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900"]
    cmd += ["--enable-logging=stderr", "--v=0", *args, "file://" + page]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180)


def problems(exe, page):
    """What went wrong when Chromium loaded page: a list of strings."""
    p = chromium(exe, page, "--dump-dom")
    m = re.search(r'data-check="([^"]*)"', p.stdout)
    if not m:
        return [f"the page did not finish loading (rc {p.returncode}): {p.stderr[-500:]}"]
    check = json.loads(html.unescape(m.group(1)))
    out = [f"image does not load: {b}" for b in check["broken"]]
    out += [f"page error: {e}" for e in check["errors"]]
    out += [ln for ln in p.stderr.splitlines() if "CONSOLE" in ln and "Uncaught" in ln]
    if check["images"] == 0:
        out.append("no image in the report")
    return out


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    py, h5 = argv[1], argv[2]
    if not os.access(py, os.X_OK):
        py = sys.executable  # no build venv: this Python must have the package
    shots = argv[argv.index("--shots") + 1] if "--shots" in argv else None
    exe = browser()
    if exe is None:
        print("test_report_browser: SKIPPED: no chromium on PATH")
        return 77
    tmp = tempfile.mkdtemp(prefix="sw-browser-")
    try:
        rep = os.path.join(tmp, "report")
        env = dict(os.environ, PYTHONPATH=os.path.dirname(HERE), MPLBACKEND="Agg")
        cmd = [py, "-m", "sweep_analysis.report", "-q", h5, "-o", rep]
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
        if r.returncode != 0:
            print(f"test_report_browser: sweep-report failed: {r.stderr}", file=sys.stderr)
            return 1
        good, bad = os.path.join(rep, "checked.html"), os.path.join(rep, "broken.html")
        instrument(os.path.join(rep, "index.html"), good)
        instrument(os.path.join(rep, "index.html"), bad, break_image=True)
        if not problems(exe, bad):
            print("test_report_browser: a broken image went unnoticed", file=sys.stderr)
            return 1
        found = problems(exe, good)
        for f in found:
            print(f"test_report_browser: {f}", file=sys.stderr)
        if shots:
            os.makedirs(shots, exist_ok=True)
            chromium(exe, good, f"--screenshot={os.path.join(shots, 'report.png')}")
            shutil.copytree(os.path.join(rep, "figures"), shots, dirs_exist_ok=True)
        print(f"test_report_browser: {h5}: {'FAILED' if found else 'ok'}")
        return 1 if found else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
