"""hubdrive: a student's side of the hub test, through JupyterHub's REST API and
a kernel's websocket only (what a browser does, without the page). Run with
Debian's /usr/bin/python3 (tornado comes with Notebook). Each command prints one
JSON object on stdout; errors go to stderr with exit status 1.

  hubdrive.py token URL USER            password on stdin: a token by PAM login
  hubdrive.py start URL USER TOKEN      starts the user's server, waits until ready
  hubdrive.py stop URL USER TOKEN       stops it
  hubdrive.py status URL TOKEN PATH     the HTTP status of GET URL+PATH
  hubdrive.py run URL USER TOKEN NBPATH [EDITS.json]
      opens NBPATH (relative to the user's home) through the contents API,
      replaces the source of the cells whose nbgrader grade_id EDITS names,
      starts a kernel session, executes every code cell in order, saves the
      notebook with its outputs and shuts the kernel down. Prints, per code
      cell, its grade_id, seconds, status and outputs (text and MIME types).
      With HUBDRIVE_THINK=LO,HI in the environment it waits a random time
      between LO and HI seconds before each code cell but the first, as a
      student reads before running the next cell (make hub-load).
"""

import asyncio
import json
import os
import random
import sys
import time
import uuid

from tornado import httpclient, ioloop, websocket
from tornado.httputil import url_concat

CELL_TIMEOUT = 300


def think_times():
    """The student's reading time before each cell but the first (HUBDRIVE_THINK)."""
    spec = os.environ.get("HUBDRIVE_THINK")
    if not spec:
        return lambda: 0
    lo, hi = (float(v) for v in spec.split(","))
    if not 0 <= lo <= hi:
        raise SystemExit("HUBDRIVE_THINK=%s: want LO,HI with 0 <= LO <= HI" % spec)
    rng = random.Random()
    return lambda: rng.uniform(lo, hi)


async def api(method, url, token=None, body=None, ok=(200, 201, 202, 204)):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "token " + token
    req = httpclient.HTTPRequest(
        url, method=method, headers=headers,
        body=None if body is None else json.dumps(body),
        allow_nonstandard_methods=True, follow_redirects=False, request_timeout=120)
    try:
        resp = await httpclient.AsyncHTTPClient().fetch(req, raise_error=False)
    except Exception as e:  # connection refused, timeout
        raise SystemExit("%s %s: %s" % (method, url, e))
    if resp.code not in ok:
        raise SystemExit("%s %s: HTTP %d %s" % (method, url, resp.code, (resp.body or b"")[:500].decode(errors="replace")))
    return json.loads(resp.body) if resp.body else None


async def status(url, token, path):
    req = httpclient.HTTPRequest(url + path, headers={"Authorization": "token " + token},
                                 follow_redirects=False, request_timeout=60)
    resp = await httpclient.AsyncHTTPClient().fetch(req, raise_error=False)
    return {"status": resp.code}


async def token(url, user, password):
    # JupyterHub accepts a username and password in the body of a token request
    # (the authenticator, PAM here, checks them).
    r = await api("POST", "%s/hub/api/users/%s/tokens" % (url, user),
            body={"auth": {"username": user, "password": password}, "note": "agx hub test"})
    return {"token": r["token"]}


async def start(url, user, tok):
    t0 = time.monotonic()
    await api("POST", "%s/hub/api/users/%s/server" % (url, user), tok)
    while time.monotonic() - t0 < 120:
        u = await api("GET", "%s/hub/api/users/%s" % (url, user), tok)
        srv = (u.get("servers") or {}).get("")
        if srv and srv.get("ready"):
            return {"seconds": round(time.monotonic() - t0, 3)}
        await asyncio.sleep(0.25)
    raise SystemExit("%s's server was not ready after 120 s" % user)


async def stop(url, user, tok):
    await api("DELETE", "%s/hub/api/users/%s/server" % (url, user), tok)
    t0 = time.monotonic()
    while time.monotonic() - t0 < 60:
        u = await api("GET", "%s/hub/api/users/%s" % (url, user), tok)
        if not (u.get("servers") or {}).get(""):
            return {"seconds": round(time.monotonic() - t0, 3)}
        await asyncio.sleep(0.25)
    raise SystemExit("%s's server did not stop in 60 s" % user)


def text_of(out):
    if out.get("output_type") == "stream":
        return out.get("text", "")
    if out.get("output_type") == "error":
        return "%s: %s" % (out.get("ename"), out.get("evalue"))
    data = out.get("data", {})
    return data.get("text/plain") or data.get("text/html") or ""


async def execute_all(url, user, tok, nbpath, nb):
    base = "%s/user/%s/api" % (url, user)
    t0 = time.monotonic()
    sess = await api("POST", base + "/sessions", tok, {
        "path": nbpath, "type": "notebook", "name": nbpath.split("/")[-1],
        "kernel": {"name": nb["metadata"].get("kernelspec", {}).get("name", "agx-go")}})
    kid = sess["kernel"]["id"]
    ws_url = url_concat(base.replace("http", "ws", 1) + "/kernels/%s/channels" % kid,
                        {"session_id": sess["id"]})
    conn = await websocket.websocket_connect(httpclient.HTTPRequest(
        ws_url, headers={"Authorization": "token " + tok}, request_timeout=60))
    result = {"session_seconds": round(time.monotonic() - t0, 3), "cells": []}
    session = uuid.uuid4().hex
    think = think_times()
    try:
        for i, cell in enumerate(nb["cells"]):
            if cell["cell_type"] != "code":
                continue
            if result["cells"]:
                await asyncio.sleep(think())
            src = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
            msg_id = uuid.uuid4().hex
            await conn.write_message(json.dumps({
                "header": {"msg_id": msg_id, "username": user, "session": session,
                           "msg_type": "execute_request", "version": "5.3", "date": ""},
                "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
                "content": {"code": src, "silent": False, "store_history": True,
                            "user_expressions": {}, "allow_stdin": False, "stop_on_error": False}}))
            c0 = time.monotonic()
            outputs, reply, idle, count = [], None, False, None
            while reply is None or not idle:
                left = CELL_TIMEOUT - (time.monotonic() - c0)
                if left <= 0:
                    raise SystemExit("cell %d of %s did not finish in %d s" % (i, nbpath, CELL_TIMEOUT))
                raw = await conn.read_message()
                if raw is None:
                    raise SystemExit("the kernel websocket closed during cell %d" % i)
                if not isinstance(raw, str):
                    continue  # binary frames carry buffers, not used here
                m = json.loads(raw)
                if m.get("parent_header", {}).get("msg_id") != msg_id:
                    continue
                t, content = m["msg_type"], m["content"]
                if t == "execute_reply":
                    reply, count = content.get("status"), content.get("execution_count")
                elif t == "status" and content.get("execution_state") == "idle":
                    idle = True
                elif t == "stream":
                    if outputs and outputs[-1].get("output_type") == "stream" and outputs[-1]["name"] == content["name"]:
                        outputs[-1]["text"] += content["text"]
                    else:
                        outputs.append({"output_type": "stream", "name": content["name"], "text": content["text"]})
                elif t in ("display_data", "execute_result"):
                    o = {"output_type": t, "data": content.get("data", {}), "metadata": content.get("metadata", {})}
                    if t == "execute_result":
                        o["execution_count"] = content.get("execution_count")
                    outputs.append(o)
                elif t == "error":
                    outputs.append({"output_type": "error", "ename": content.get("ename", ""),
                                    "evalue": content.get("evalue", ""), "traceback": content.get("traceback", [])})
                elif t == "clear_output":
                    outputs = []
            cell["outputs"], cell["execution_count"] = outputs, count
            result["cells"].append({
                "index": i,
                "grade_id": cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", ""),
                "seconds": round(time.monotonic() - c0, 3),
                "status": reply,
                "text": "".join(text_of(o) for o in outputs),
                "mime": sorted({k for o in outputs for k in o.get("data", {})}),
            })
    finally:
        conn.close()
        await api("DELETE", base + "/sessions/" + sess["id"], tok)
    result["total_seconds"] = round(time.monotonic() - t0, 3)
    return result


async def run(url, user, tok, nbpath, edits_file=None):
    base = "%s/user/%s/api" % (url, user)
    model = await api("GET", base + "/contents/" + nbpath + "?content=1&type=notebook", tok)
    nb = model["content"]
    if edits_file:
        with open(edits_file) as f:
            edits = json.load(f)
        found = set()
        for cell in nb["cells"]:
            gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
            if gid in edits:
                cell["source"] = edits[gid]
                found.add(gid)
        if set(edits) - found:
            raise SystemExit("%s has no cells %s" % (nbpath, sorted(set(edits) - found)))
        # Save the edit first, as the student's editor would.
        await api("PUT", base + "/contents/" + nbpath, tok, {"type": "notebook", "format": "json", "content": nb})
    result = await execute_all(url, user, tok, nbpath, nb)
    await api("PUT", base + "/contents/" + nbpath, tok, {"type": "notebook", "format": "json", "content": nb})
    return result


def main(argv):
    cmd, args = argv[1], argv[2:]
    if cmd == "token":
        args = args[:2] + [sys.stdin.readline().rstrip("\n")]
    funcs = {"token": token, "start": start, "stop": stop, "status": status, "run": run}
    if cmd not in funcs:
        raise SystemExit("unknown command " + cmd)
    out = ioloop.IOLoop.current().run_sync(lambda: funcs[cmd](*args))
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv)
