#!/usr/bin/python3
"""What a student's browser shows of the lab, checked in headless Chromium.

Usage: test-lab-view.py [--out DIR] [NOTEBOOK...]

Starts the lab as `make lab` does (lab.sh, without the install step) on a
temporary workspace seeded with docker/lab/testdata/lab-view.ipynb and the
NOTEBOOKs given (notebooks with stored outputs), opens each notebook in
Debian's Chromium (headless, driven over the DevTools protocol) and checks:

  - the notebook opens trusted (seed-workspace.py signed it), so its stored
    HTML and SVG outputs are shown, and unchanged once the kernel is up (its
    stored metadata.language_info is the kernel's);
  - the code cells hold tab characters and none is drawn with the editor
    theme's arrow (the lab's custom.css);
  - the fixture shows at least one tensor as an HTML table and one SVG
    picture, from the stored outputs, without running anything.

Screenshots of each notebook (its top, its first tensor table, its first
picture) go to DIR (default build/lab-view). Exits 0 when every check passes,
1 when one fails, 2 when Chromium, the kernel or the lab cannot be started
(install Chromium with `apt-get install chromium`, or `make deps-test`).
Costs about 20 s (the lab's start, Chromium's start, the pages' load).
"""
import asyncio
import base64
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, os.pardir, os.pardir))
FIXTURE = os.path.join(ROOT, "docker", "lab", "testdata", "lab-view.ipynb")
CHROMIUM = os.environ.get("AGX_CHROMIUM", "/usr/bin/chromium")
KERNEL = "agx-go"

# Read in the page once the notebook has loaded; returns a JSON string.
PAGE_CHECKS = r"""
(() => {
  const tabs = [...document.querySelectorAll('.CodeMirror span.cm-tab')];
  const marked = tabs.filter(t => getComputedStyle(t).backgroundImage !== 'none');
  const big = el => { const r = el.getBoundingClientRect(); return r.width > 50 && r.height > 50; };
  return JSON.stringify({
    trusted: Jupyter.notebook.trusted,
    dirty: Jupyter.notebook.dirty,
    cells: Jupyter.notebook.get_cells().length,
    tabs: tabs.length,
    markedTabs: marked.length,
    tensorTables: document.querySelectorAll('.output_area .agx-tensor table').length,
    svgs: [...document.querySelectorAll('.output_area svg')].filter(big).length,
    outputs: document.querySelectorAll('.output_area').length,
  });
})()
"""

LOADED = "!!(window.Jupyter && Jupyter.notebook && Jupyter.notebook._fully_loaded && document.querySelector('.CodeMirror'))"
# The kernel answered (Jupyter then writes its language_info into the notebook).
KERNEL_READY = "!!(Jupyter.notebook.kernel && Jupyter.notebook.kernel.info_reply && Jupyter.notebook.kernel.info_reply.language_info)"


class Unavailable(Exception):
    """A tool the test needs is missing (exit status 2)."""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def kernel_data_dir():
    """The Jupyter data directory that holds the agx-go kernelspec."""
    out = subprocess.run(["/usr/bin/jupyter", "kernelspec", "list", "--json"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise Unavailable("jupyter kernelspec list failed: " + out.stderr.strip())
    specs = json.loads(out.stdout).get("kernelspecs", {})
    if KERNEL not in specs:
        raise Unavailable(f"no {KERNEL} kernelspec: install it with docker/scripts/install-all.sh (make deps)")
    return os.path.dirname(os.path.dirname(specs[KERNEL]["resource_dir"]))


def wait_http(url, seconds, proc=None):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise Unavailable(f"the process serving {url} exited with status {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                return r.read()
        except OSError:
            time.sleep(0.25)
    raise Unavailable(f"{url} did not answer within {seconds}s")


class CDP:
    """A minimal DevTools protocol client over tornado's websocket."""

    def __init__(self, ws):
        self.ws, self.next_id = ws, 0

    @classmethod
    async def connect(cls, url):
        from tornado.websocket import websocket_connect
        return cls(await websocket_connect(url, max_message_size=256 << 20))

    async def call(self, method, **params):
        self.next_id += 1
        want = self.next_id
        self.ws.write_message(json.dumps({"id": want, "method": method, "params": params}))
        while True:
            msg = await asyncio.wait_for(self.ws.read_message(), 60)
            if msg is None:
                raise RuntimeError("the DevTools connection closed")
            m = json.loads(msg)
            if m.get("id") == want:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})

    async def eval(self, expr):
        r = await self.call("Runtime.evaluate", expression=expr, returnByValue=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expr[:60]}...: {r['exceptionDetails'].get('text')}")
        return r["result"].get("value")

    async def screenshot(self, path):
        shot = await self.call("Page.captureScreenshot", format="png")
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))


async def check_notebook(cdp, url, name, out_dir, is_fixture):
    await cdp.call("Page.navigate", url=url)
    deadline = time.monotonic() + 60
    while not await cdp.eval(LOADED):
        if time.monotonic() > deadline:
            return [f"{name}: the notebook did not load within 60 s"]
        await asyncio.sleep(0.25)
    while not await cdp.eval(KERNEL_READY):
        if time.monotonic() > deadline:
            return [f"{name}: the kernel did not answer within 60 s"]
        await asyncio.sleep(0.25)
    await asyncio.sleep(1.0)  # MathJax and the output renderers settle
    got = json.loads(await cdp.eval(PAGE_CHECKS))
    print(f"  {name}: {json.dumps(got)}")
    base = os.path.join(out_dir, os.path.splitext(name)[0])
    await cdp.screenshot(base + "-top.png")
    for sel, suffix in ((".output_area .agx-tensor", "tensor"), (".output_area svg", "picture")):
        found = await cdp.eval(f"(() => {{ const e = document.querySelector('{sel}'); "
                               f"if (!e) return false; e.closest('.cell').scrollIntoView(); return true; }})()")
        if found:
            await asyncio.sleep(0.3)
            await cdp.screenshot(f"{base}-{suffix}.png")
    problems = []
    if not got["trusted"]:
        problems.append(f"{name}: the notebook opened Not Trusted (its stored HTML and SVG outputs are not shown)")
    if got["dirty"]:
        problems.append(f"{name}: the notebook has unsaved changes as soon as it opens (its metadata.language_info "
                        "differs from the kernel's: store its outputs anew); Jupyter's autosave would then make "
                        "the student's untouched copy count as edited")
    if got["tabs"] == 0:
        problems.append(f"{name}: no tab characters in the code cells (the check needs tab-indented Go code)")
    if got["markedTabs"]:
        problems.append(f"{name}: {got['markedTabs']} of {got['tabs']} tabs drawn with the editor theme's arrow")
    if is_fixture and got["tensorTables"] < 1:
        problems.append(f"{name}: no tensor shown as an HTML table")
    if is_fixture and got["svgs"] < 1:
        problems.append(f"{name}: no SVG picture shown")
    if got["outputs"] == 0:
        problems.append(f"{name}: no outputs shown")
    return problems


async def browse(port, token, names, out_dir, chrome_dir):
    if not os.access(CHROMIUM, os.X_OK):
        raise Unavailable(f"{CHROMIUM} not found: install Debian's chromium (apt-get install chromium, or make deps-test)")
    chrome = subprocess.Popen(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
         f"--user-data-dir={chrome_dir}", "--remote-debugging-port=0", "--window-size=1280,1400",
         "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        active = os.path.join(chrome_dir, "DevToolsActivePort")
        deadline = time.monotonic() + 60
        while not (os.path.exists(active) and len(open(active).read().split()) >= 2):
            if chrome.poll() is not None or time.monotonic() > deadline:
                raise Unavailable(f"{CHROMIUM} did not start (status {chrome.poll()})")
            time.sleep(0.2)
        dport = open(active).read().split()[0]
        targets = json.loads(wait_http(f"http://127.0.0.1:{dport}/json/list", 30))
        page = next(t for t in targets if t.get("type") == "page")
        cdp = await CDP.connect(page["webSocketDebuggerUrl"])
        await cdp.call("Page.enable")
        problems = []
        for name in names:
            url = f"http://127.0.0.1:{port}/notebooks/{urllib.parse.quote(name)}?token={token}"
            problems += await check_notebook(cdp, url, name, out_dir, name == os.path.basename(FIXTURE))
        return problems
    finally:
        os.killpg(chrome.pid, signal.SIGTERM)
        try:
            chrome.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(chrome.pid, signal.SIGKILL)
            chrome.wait()


def main(argv):
    out_dir = os.path.join(ROOT, "build", "lab-view")
    args = argv[1:]
    if args[:1] == ["--out"] and len(args) >= 2:
        out_dir, args = args[1], args[2:]
    for a in args:
        if not a.endswith(".ipynb") or not os.path.isfile(a):
            print(f"test-lab-view: {a} is not a notebook file", file=sys.stderr)
            return 2
    os.makedirs(out_dir, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="agx-lab-view-")
    lab = None
    try:
        seed = os.path.join(tmp, "seed")
        os.makedirs(seed)
        names = []
        for nb in [FIXTURE] + args:
            shutil.copy(nb, seed)
            names.append(os.path.basename(nb))
        env = dict(os.environ)
        env.update({
            "JUPYTER_PATH": os.pathsep.join(filter(None, [kernel_data_dir(), env.get("JUPYTER_PATH")])),
            # A Jupyter of its own: secret, signatures, configuration, runtime files.
            "JUPYTER_DATA_DIR": os.path.join(tmp, "data"),
            "JUPYTER_CONFIG_DIR": os.path.join(tmp, "config"),
            "JUPYTER_RUNTIME_DIR": os.path.join(tmp, "runtime"),
            "LAB_SKIP_INSTALL": "1", "LAB_AUTHOR": "0",
            "LAB_DIR": os.path.join(tmp, "ws"), "AGX_NOTEBOOK_SEED": seed,
            "LAB_IP": "127.0.0.1", "LAB_PORT": str(free_port()),
            "JUPYTER_TOKEN": secrets.token_hex(16),
        })
        log = open(os.path.join(tmp, "lab.log"), "w")
        lab = subprocess.Popen([os.path.join(HERE, "lab.sh")], env=env, stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True)
        port, token = env["LAB_PORT"], env["JUPYTER_TOKEN"]
        try:
            wait_http(f"http://127.0.0.1:{port}/api", 120, lab)
        except Unavailable:
            log.flush()
            print(open(os.path.join(tmp, "lab.log")).read()[-3000:], file=sys.stderr)
            raise
        print(f"test-lab-view: lab on port {port}; screenshots in {out_dir}")
        problems = asyncio.run(browse(port, token, names, out_dir, os.path.join(tmp, "chrome")))
    except Unavailable as e:
        print(f"test-lab-view: {e}", file=sys.stderr)
        return 2
    finally:
        if lab is not None and lab.poll() is None:
            os.killpg(lab.pid, signal.SIGTERM)
            try:
                lab.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(lab.pid, signal.SIGKILL)
                lab.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    for p in problems:
        print(f"FAIL {p}")
    if problems:
        return 1
    print(f"ok   {len(names)} notebooks: trusted, no tab arrows, stored tensors and pictures shown")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
