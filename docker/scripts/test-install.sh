#!/usr/bin/env bash
# Checks the lab install end to end (run by `make test`, after the installers):
#  1. a second run of install-all.sh is a fast no-op;
#  2. the "Go (agx)" kernelspec exists and points at existing binaries of the
#     pinned versions;
#  3. docker/smoke.ipynb and notebooks/00-welcome.ipynb execute headless through
#     that kernel from a directory outside the checkout, with no error output,
#     and the welcome notebook's autograd graph (nb.Graph) arrives as an SVG
#     picture, not as the DOT text shown when Graphviz is missing;
#  4. the lab server (lab.sh) starts and answers /api with the kernel listed.
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
    # strings below prove that the cells which should print did.
    for out in cell.get("outputs", []):
        kind = out["output_type"]
        if kind == "error":
            problems.append(f"cell {i}: error {out.get('ename')}: {out.get('evalue', '')[:300]}")
        elif kind == "stream":
            text = "".join(out["text"]) if isinstance(out["text"], list) else out["text"]
            if out["name"] == "stderr":
                problems.append(f"cell {i}: stderr: {text[:300]}")
            texts.append(text)
        else:
            for mime, v in out.get("data", {}).items():
                texts.append("".join(v) if isinstance(v, list) else str(v))
                if mime == "text/html":
                    htmls.append(texts[-1])
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

# 4. The lab server starts and serves the kernelspec.
port="$("$SYSTEM_PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
token="test-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
t0="$(now)"
LAB_SKIP_INSTALL=1 LAB_PORT="$port" JUPYTER_TOKEN="$token" JUPYTER_RUNTIME_DIR="$work/runtime" \
  "$AGX_SCRIPTS_DIR/lab.sh" >"$work/lab.log" 2>&1 &
lab_pid=$!
answer=""
for _ in $(seq 1 300); do
  if answer="$("$SYSTEM_PYTHON" - "$port" "$token" 2>/dev/null <<'PY'
import json, sys, urllib.request
port, token = sys.argv[1], sys.argv[2]
url = f"http://127.0.0.1:{port}/api/kernelspecs?token={token}"
with urllib.request.urlopen(url, timeout=1) as r:
    specs = json.load(r)
print(specs.get("default"), " ".join(sorted(specs["kernelspecs"])))
PY
  )"; then
    break
  fi
  kill -0 "$lab_pid" 2>/dev/null || break
  sleep 0.05
done
if [[ -n "$answer" ]]; then
  secs="$(elapsed "$t0")"
  if [[ "$answer" == "$AGX_KERNEL_NAME "*"$AGX_KERNEL_NAME"* ]]; then
    ok "lab.sh served /api/kernelspecs after ${secs}s (default kernel $AGX_KERNEL_NAME)"
  else
    bad "lab.sh /api/kernelspecs answered '$answer'; want default $AGX_KERNEL_NAME"
  fi
else
  bad "lab.sh did not answer on port $port:"; tail -20 "$work/lab.log" | sed 's/^/        /'
fi

if ((fails > 0)); then
  echo "test-install: $fails check(s) failed"
  exit 1
fi
echo "test-install: all checks passed"
