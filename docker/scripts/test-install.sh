#!/usr/bin/env bash
# Checks the lab install end to end (run by `make test`, after the installers):
#  1. a second run of install-all.sh is a fast no-op;
#  2. the "Go (agx)" kernelspec exists and points at existing binaries of the
#     pinned versions;
#  3. docker/smoke.ipynb and notebooks/00-welcome.ipynb execute headless through
#     that kernel from a directory outside the checkout, with no error output,
#     and the welcome notebook's autograd graph (nb.Graph) arrives as an SVG
#     picture, not as the DOT text shown when Graphviz is missing;
#  4. seed-workspace.py updates a workspace without overwriting an edited notebook;
#  5. lab.sh on a fresh workspace answers /api with the kernel listed, and no file
#     it serves holds a reference solution or a hidden test; SIGTERM (twice) stops
#     it with its kernels and their children, with no traceback in the log;
#  6. a second start keeps the notebook edited in 5; SIGINT stops it the same way;
#  7. LAB_AUTHOR=1 serves the instructor sources.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_go
fails=0
ok() { printf '  ok    %s\n' "$*"; }
bad() { printf '  FAIL  %s\n' "$*"; fails=$((fails + 1)); }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

work="$(mktemp -d "${TMPDIR:-/tmp}/agx-test-install-XXXXXX")"
lab_pid=""
cleanup() {
  if [[ -n "$lab_pid" ]] && kill -0 "$lab_pid" 2>/dev/null; then
    kill "$lab_pid" 2>/dev/null || true
    wait "$lab_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

echo "test-install: lab install checks"

# 1. Idempotence: everything is installed by now, so this must be quick.
t0="$(now)"
if "$AGX_SCRIPTS_DIR/install-all.sh" >"$work/second.log" 2>&1; then
  secs="$(elapsed "$t0")"
  if awk -v s="$secs" 'BEGIN { exit !(s < 2.0) }'; then
    ok "install-all.sh second run: ${secs}s (< 2s)"
  else
    bad "install-all.sh second run took ${secs}s (want < 2s)"
  fi
  if [[ -s "$work/second.log" ]]; then
    bad "install-all.sh second run was not a no-op:"; sed 's/^/        /' "$work/second.log"
  fi
else
  bad "install-all.sh failed on its second run:"; sed 's/^/        /' "$work/second.log"
fi

# 2. The kernelspec.
spec_dir="$("$JUPYTER" kernelspec list --json 2>/dev/null |
  "$SYSTEM_PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["kernelspecs"].get(sys.argv[1], {}).get("resource_dir", ""))' \
    "$AGX_KERNEL_NAME")"
if [[ -z "$spec_dir" ]]; then
  bad "jupyter kernelspec list does not show $AGX_KERNEL_NAME"
else
  ok "kernelspec $AGX_KERNEL_NAME at $spec_dir"
  # Prints one line per problem.
  problems="$("$SYSTEM_PYTHON" - "$spec_dir/kernel.json" "$AGX_ROOT" "$AGX_KERNEL_DISPLAY_NAME" <<'PY'
import json, os, sys
spec = json.load(open(sys.argv[1]))
root, display = sys.argv[2], sys.argv[3]
env = spec.get("env", {})
def need_exec(p, what):
    if not (os.path.isfile(p) and os.access(p, os.X_OK)):
        print(f"{what} {p!r} is not an executable file")
need_exec(spec["argv"][0], "argv[0]")
if "{connection_file}" not in spec["argv"]:
    print("argv lacks {connection_file}")
if spec.get("display_name") != display:
    print(f"display_name is {spec.get('display_name')!r}, want {display!r}")
for tool in ("gonb", "goimports"):
    need_exec(os.path.join(env.get("AGX_BIN", "?"), tool), tool)
need_exec(env.get("AGX_GO", "?"), "go")
if os.path.realpath(env.get("AGX_ROOT", "?")) != os.path.realpath(root):
    print(f"AGX_ROOT is {env.get('AGX_ROOT')!r}, want this checkout {root!r}")
PY
)"
  if [[ -n "$problems" ]]; then
    while IFS= read -r line; do bad "kernelspec: $line"; done <<<"$problems"
  else
    ok "kernelspec argv and env point at existing executables and this checkout"
  fi
  kbin="$("$SYSTEM_PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["env"]["AGX_BIN"])' "$spec_dir/kernel.json")"
  if has_version "$kbin/gonb" github.com/janpfeifer/gonb "$GONB_VERSION"; then
    ok "gonb is $GONB_VERSION"
  else
    bad "$kbin/gonb is not built from gonb $GONB_VERSION"
  fi
fi

# 3. Headless notebooks, run from outside the checkout.
# check_outputs NOTEBOOK EXPECTED... : no error/stderr outputs and each EXPECTED
# string appears in some output. EXPECTED "svg:NAME" wants an HTML output that
# holds an <svg> element mentioning NAME (GoNB sends SVG as text/html).
check_outputs() {
  "$SYSTEM_PYTHON" - "$@" <<'PY'
import json, sys
nb = json.load(open(sys.argv[1]))
want = [w for w in sys.argv[2:] if not w.startswith("svg:")]
svgs = [w[len("svg:"):] for w in sys.argv[2:] if w.startswith("svg:")]
texts, htmls, problems = [], [], []
for i, cell in enumerate(nb["cells"]):
    if cell["cell_type"] != "code":
        continue
    # A cell that only declares types or functions prints nothing; the wanted
    # strings below prove that the cells which should print did. A cell tagged
    # raises-exception (lesson 00 shows a compile error and a panic) must fail.
    expected = "raises-exception" in cell.get("metadata", {}).get("tags", [])
    failed = False
    for out in cell.get("outputs", []):
        kind = out["output_type"]
        if kind == "error":
            failed = True
            if not expected:
                problems.append(f"cell {i}: error {out.get('ename')}: {out.get('evalue', '')[:300]}")
        elif kind == "stream":
            text = "".join(out["text"]) if isinstance(out["text"], list) else out["text"]
            if out["name"] == "stderr" and not expected:
                problems.append(f"cell {i}: stderr: {text[:300]}")
            texts.append(text)
        else:
            for mime, v in out.get("data", {}).items():
                texts.append("".join(v) if isinstance(v, list) else str(v))
                if mime == "text/html":
                    htmls.append(texts[-1])
    if expected and not failed:
        problems.append(f"cell {i} is tagged raises-exception but ran without an error")
blob = "\n".join(texts)
problems += [f"no output contains {w!r}" for w in want if w not in blob]
for name in svgs:
    if not any("<svg" in h and "</svg>" in h and name in h for h in htmls):
        near = [h[:200] for h in htmls if name in h]
        problems.append(f"no text/html output is an <svg> showing {name!r} (is Graphviz installed?); " +
                        (f"the one naming it starts {near[0]!r}" if near else "none names it"))
print("\n".join(problems))
PY
}

run_notebook() {
  local src="$1" name
  shift
  name="$(basename "$src" .ipynb)"
  mkdir -p "$work/$name"
  cp "$src" "$work/$name/$name.ipynb"
  local t0 secs problems
  t0="$(now)"
  if ! (cd "$work/$name" && "$JUPYTER" nbconvert --to notebook --execute --allow-errors \
    --ExecutePreprocessor.timeout=180 --ExecutePreprocessor.interrupt_on_timeout=True \
    --ExecutePreprocessor.kernel_name="$AGX_KERNEL_NAME" \
    "$name.ipynb" --output out.ipynb) >"$work/$name/nbconvert.log" 2>&1; then
    bad "$name: nbconvert failed:"; tail -20 "$work/$name/nbconvert.log" | sed 's/^/        /'
    return
  fi
  secs="$(elapsed "$t0")"
  problems="$(check_outputs "$work/$name/out.ipynb" "$@")"
  if [[ -n "$problems" ]]; then
    while IFS= read -r line; do bad "$name: $line"; done <<<"$problems"
  else
    ok "$name.ipynb ran headless outside the checkout in ${secs}s, no errors"
  fi
}

run_notebook "$AGX_ROOT/docker/smoke.ipynb" "agx smoke: go" "agx-smoke-html" "agx-smoke-markdown" "second cell sees agx smoke"
run_notebook "$AGX_ROOT/notebooks/00-welcome.ipynb" "Hello from agx" "svg:SquareBackward"

# 4. seed-workspace.py, the workspace update behind `make lab`, on its own.
seed_check() {
  local s1="$work/seed1" s2="$work/seed2" ws="$work/ws-unit" ws2="$work/ws-unit2" got
  mkdir -p "$s1/sub" "$s2/sub" "$s1/.hidden" "$ws2"
  echo A1 >"$s1/a.ipynb"; echo B1 >"$s1/sub/b.ipynb"; echo C1 >"$s1/c.ipynb"
  echo X >"$s1/.hidden/x.ipynb"; echo E >"$s1/e.executed.ipynb"; echo T >"$s1/notes.txt"
  "$SYSTEM_PYTHON" "$AGX_SCRIPTS_DIR/seed-workspace.py" "$s1" "$ws" 2>/dev/null || return 1
  echo mine >"$ws/a.ipynb"          # the student edits a.ipynb,
  rm "$ws/c.ipynb"                  # deletes c.ipynb,
  echo own >"$ws/own.ipynb"         # and makes a notebook of their own.
  echo A2 >"$s2/a.ipynb"; echo B2 >"$s2/sub/b.ipynb"; echo C1 >"$s2/c.ipynb"; echo D1 >"$s2/d.ipynb"
  "$SYSTEM_PYTHON" "$AGX_SCRIPTS_DIR/seed-workspace.py" "$s2" "$ws" 2>/dev/null || return 1
  got="$(cd "$ws" && for f in a sub/b c d own; do printf '%s=%s ' "$f" "$(cat "$f.ipynb")"; done)"
  got+="$(cd "$ws" && find . -name 'x.ipynb' -o -name '*.executed.ipynb' -o -name 'notes.txt' | tr '\n' ' ')"
  [[ "$got" == "a=mine sub/b=B2 c=C1 d=D1 own=own " ]] || { echo "$got"; return 1; }
  # A workspace filled before any manifest existed (an image's volume): identical
  # notebooks are adopted (and later updated), different ones are kept.
  echo A1 >"$ws2/a.ipynb"; echo changed >"$ws2/c.ipynb"
  "$SYSTEM_PYTHON" "$AGX_SCRIPTS_DIR/seed-workspace.py" "$s1" "$ws2" 2>/dev/null || return 1
  "$SYSTEM_PYTHON" "$AGX_SCRIPTS_DIR/seed-workspace.py" "$s2" "$ws2" 2>/dev/null || return 1
  got="$(cd "$ws2" && for f in a c d; do printf '%s=%s ' "$f" "$(cat "$f.ipynb")"; done)"
  [[ "$got" == "a=A2 c=changed d=D1 " ]] || { echo "$got"; return 1; }
}
if out="$(seed_check 2>&1)"; then
  ok "seed-workspace.py: new and deleted notebooks copied, unedited ones updated, edited ones kept"
else
  bad "seed-workspace.py: $out"
fi

# 5-7. The lab server itself, through its REST API. api.py CMD PORT TOKEN [ARGS]:
#   specs                 the default kernel and the kernel names
#   walk [SOURCES...]     every file served; prints one line per problem: a solution
#                         or hidden-test marker, or a line of a source's solution or
#                         hidden tests (30+ characters) in the served notebook of the
#                         same name; then "served N" and the paths
#   edit PATH TEXT        appends a Markdown cell with TEXT to a served notebook
#   cat PATH              the served notebook's cell sources
#   kernel RUNTIME_DIR [CELL]  starts a kernel and prints its id; with CELL, connects
#                         to it and has it run CELL (without, no client ever talks
#                         to it, as with a notebook that was never opened)
cat >"$work/api.py" <<'PY'
import json, os, sys, time, urllib.parse, urllib.request
cmd, port, token, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
base = f"http://127.0.0.1:{port}/api"
MARKERS = ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS")

def call(method, path, body=None, query=""):
    url = f"{base}/{urllib.parse.quote(path)}{query}"
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Authorization": f"token {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.load(r)

def source_text(nb):
    return "\n".join("".join(c["source"]) if isinstance(c["source"], list) else c["source"] for c in nb["cells"])

if cmd == "specs":
    specs = call("GET", "kernelspecs")
    print(specs.get("default"), " ".join(sorted(specs["kernelspecs"])))
elif cmd == "walk":
    secrets = {}
    for src in args:
        inside, lines, public = False, set(), set()
        for line in source_text(json.load(open(src))).split("\n"):
            s = line.strip()
            if "BEGIN SOLUTION" in s or "BEGIN HIDDEN TESTS" in s:
                inside = True
            elif "END SOLUTION" in s or "END HIDDEN TESTS" in s:
                inside = False
            elif inside and len(s) >= 30:
                lines.add(s)
            else:
                public.add(s)
        # A line the source also shows outside those regions (a given Backward's
        # first line, a visible check the hidden ones repeat) is no secret.
        secrets[os.path.basename(src)] = lines - public
    served, todo = [], [""]
    while todo:
        d = call("GET", "contents/" + todo.pop(), query="?content=1")
        for item in d["content"]:
            if item["type"] == "directory":
                todo.append(item["path"])
                continue
            f = call("GET", "contents/" + item["path"], query="?content=1")
            served.append(f["path"])
            text = json.dumps(f["content"]) if f["type"] == "notebook" else str(f["content"])
            for m in MARKERS:
                if m in text:
                    print(f"{f['path']} contains {m!r}")
            if f["type"] == "notebook":
                lines = {l.strip() for l in source_text(f["content"]).split("\n")}
                for s in sorted(secrets.get(os.path.basename(f["path"]), set()) & lines):
                    print(f"{f['path']} contains the source's hidden line {s[:60]!r}")
    print("served", len(served), " ".join(sorted(served)))
elif cmd == "edit":
    path, text = args
    model = call("GET", "contents/" + path, query="?content=1")
    model["content"]["cells"].append({"cell_type": "markdown", "metadata": {}, "source": text})
    call("PUT", "contents/" + path, {"type": "notebook", "format": "json", "content": model["content"]})
elif cmd == "cat":
    print(source_text(call("GET", "contents/" + args[0], query="?content=1")["content"]))
elif cmd == "kernel":
    from jupyter_client import BlockingKernelClient
    kid = call("POST", "kernels", {})["id"]
    if len(args) > 1:
        kc = BlockingKernelClient()
        kc.load_connection_file(os.path.join(args[0], f"kernel-{kid}.json"))
        kc.start_channels()
        kc.wait_for_ready(timeout=60)
        kc.execute(args[1])
        time.sleep(0.5)
        kc.stop_channels()
    print(kid)
PY
api() { "$SYSTEM_PYTHON" "$work/api.py" "$1" "$lab_port" "$token" "${@:2}"; }

# lab_start NAME [VAR=VALUE...]: lab.sh on a free port with the environment given,
# logging to $work/NAME.log; sets lab_pid and lab_port and waits until /api answers.
# Job control gives it a process group of its own and SIGINT its default action.
token="test-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
lab_start() {
  local name="$1"
  shift
  lab_port="$("$SYSTEM_PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  set -m
  env LAB_SKIP_INSTALL=1 LAB_PORT="$lab_port" JUPYTER_TOKEN="$token" JUPYTER_RUNTIME_DIR="$work/runtime-$name" "$@" \
    "$AGX_SCRIPTS_DIR/lab.sh" >"$work/$name.log" 2>&1 &
  lab_pid=$!
  set +m
  local i
  for i in $(seq 1 600); do
    api specs >/dev/null 2>&1 && return 0
    kill -0 "$lab_pid" 2>/dev/null || break
    sleep 0.1
  done
  bad "$name: lab.sh did not answer on port $lab_port:"; tail -20 "$work/$name.log" | sed 's/^/        /'
  return 1
}

# descendants PID: the pids of PID's children, grandchildren, ...
descendants() {
  local c
  for c in $(pgrep -P "$1" || true); do
    echo "$c"
    descendants "$c"
  done
}
alive() { local s; s="$(ps -o stat= -p "$1" 2>/dev/null)" && [[ "$s" != Z* ]]; }

# stop_check NAME SIGNAL...: starts two kernels, an idle one and one running
# `!sleep 300`, sends the signals to the lab (0.3 s apart) and checks that the lab
# exits cleanly and takes the kernels, their children and their temporary
# directories with it.
stop_check() {
  local name="$1" pids=() p i rc left=() tmpdirs=()
  shift
  if ! { api kernel "$work/runtime-$name" && api kernel "$work/runtime-$name" '!sleep 300'; } \
    >/dev/null 2>"$work/$name.kernel.err"; then
    bad "$name: could not start the kernels:"; sed 's/^/        /' "$work/$name.kernel.err"
  fi
  for i in $(seq 1 100); do
    mapfile -t pids < <(descendants "$lab_pid")
    ((${#pids[@]} >= 3)) && pgrep -f 'sleep 300' -P "$(IFS=,; echo "${pids[*]}")" >/dev/null && break
    sleep 0.1
  done
  if ((${#pids[@]} < 3)); then
    bad "$name: want two kernels and the child running a cell, found pids: ${pids[*]:-none}"
  fi
  mapfile -t tmpdirs < <(sed -n 's/.*tmp Go code in "\([^"]*\)".*/\1/p' "$work/$name.log")
  for i in "$@"; do
    kill -s "$i" "$lab_pid" 2>/dev/null || true
    sleep 0.3
  done
  for i in $(seq 1 200); do
    kill -0 "$lab_pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$lab_pid" 2>/dev/null; then
    bad "$name: the lab still runs 20 s after SIG$1"; kill -KILL "$lab_pid"
  fi
  rc=0
  wait "$lab_pid" || rc=$?
  lab_pid=""
  sleep 0.2
  for p in "${pids[@]}"; do
    alive "$p" && left+=("$p: $(ps -o args= -p "$p")")
  done
  if ((rc != 0 && rc != 128 + $(kill -l "$1"))); then
    bad "$name: the lab exited with status $rc after SIG$1"
  fi
  if ((${#left[@]} > 0)); then
    bad "$name: still running after the lab stopped:"; printf '        %s\n' "${left[@]}"
    for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  else
    ok "$name: SIG$1 (x$#) stopped the lab (status $rc); its ${#pids[@]} processes (kernels and a cell) are gone"
  fi
  if grep -nE 'Traceback|panic:|Event loop stopped|RuntimeError' "$work/$name.log" >"$work/$name.tb"; then
    bad "$name: the log shows an error on shutdown:"; head -5 "$work/$name.tb" | sed 's/^/        /'
  fi
  for p in "${tmpdirs[@]}"; do
    if [[ -e "$p" ]]; then bad "$name: a kernel's temporary directory $p is left behind"; fi
  done
  ((${#tmpdirs[@]} == 2)) || bad "$name: want 2 kernel temporary directories in the log, found ${#tmpdirs[@]}"
}

exercises=()
for nb in "$AGX_ROOT"/notebooks/exercises/*.ipynb; do
  [[ "$nb" == *.executed.ipynb || ! -f "$nb" ]] || exercises+=("$nb")
done
ncourse="$(find "$AGX_ROOT/notebooks" -maxdepth 1 -name '*.ipynb' ! -name '*.executed.ipynb' | wc -l)"
want_served=$((ncourse + ${#exercises[@]}))
edited="exercises/$(basename "${exercises[0]:-none.ipynb}")"
untouched="00-welcome.ipynb"
ws="$work/workspace"

# walk_check NAME: nothing served holds a solution or a hidden test, and every
# course notebook and exercise is there.
walk_check() {
  local out problems served
  if ! out="$(api walk "${exercises[@]}" 2>&1)"; then
    bad "$1: walking /api/contents failed:"; tail -5 <<<"$out" | sed 's/^/        /'
    return
  fi
  problems="$(grep -v '^served ' <<<"$out" || true)"
  served="$(sed -n 's/^served \([0-9]*\) .*/\1/p' <<<"$out")"
  if [[ -n "$problems" ]]; then
    while IFS= read -r line; do bad "$1: $line"; done <<<"$problems"
  elif [[ "$served" != "$want_served" ]]; then
    bad "$1: served $served files, want the $want_served course notebooks and exercises: $out"
  else
    ok "$1: /api/contents serves $served notebooks, none with a solution or hidden test"
  fi
}

# 5. `make lab` on a fresh workspace: the student's view. SIGTERM twice on exit.
if lab_start lab-first LAB_DIR="$ws"; then
  answer="$(api specs)"
  if [[ "$answer" == "$AGX_KERNEL_NAME "*"$AGX_KERNEL_NAME"* ]]; then
    ok "lab.sh serves /api/kernelspecs (default kernel $AGX_KERNEL_NAME)"
  else
    bad "lab.sh /api/kernelspecs answered '$answer'; want default $AGX_KERNEL_NAME"
  fi
  walk_check lab-first
  api edit "$edited" "student edit $token" || bad "could not save an edit of $edited through the API"
  sum_before="$(sha256sum <"$ws/$untouched")"
  stop_check lab-first TERM TERM
fi

# 6. The second start keeps the edit. Ctrl-C (SIGINT) on exit.
if lab_start lab-second LAB_DIR="$ws"; then
  if grep -qF "student edit $token" <<<"$(api cat "$edited")"; then
    ok "lab-second: the edited $edited survived the restart"
  else
    bad "lab-second: the student's edit of $edited is gone after the restart"
  fi
  if [[ "$(sha256sum <"$ws/$untouched")" == "$sum_before" ]]; then
    ok "lab-second: the untouched $untouched is unchanged"
  else
    bad "lab-second: $untouched changed between two starts"
  fi
  walk_check lab-second
  stop_check lab-second INT
fi

# 7. The author's view: the instructor sources as they are.
if lab_start lab-author LAB_AUTHOR=1 LAB_DIR=; then
  if grep -q 'BEGIN SOLUTION' <<<"$(api cat "$edited")"; then
    ok "lab-author: LAB_AUTHOR=1 serves the instructor sources ($edited has its solution)"
  else
    bad "lab-author: LAB_AUTHOR=1 does not serve the instructor source of $edited"
  fi
  stop_check lab-author TERM
fi

if ((fails > 0)); then
  echo "test-install: $fails check(s) failed"
  exit 1
fi
echo "test-install: all checks passed"
