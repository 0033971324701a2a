#!/usr/bin/env bash
# The lab image's install, rehearsed on the host (run by `make test`; no Docker
# engine is needed). The image RUNs the same scripts with its own prefixes; here
# they install into a fresh temporary directory instead:
#  1. install-gonb.sh into $AGX_PREFIX and install-kernel.sh into $JUPYTER_DATA_DIR
#     (both under the temp dir), then a second run must be a silent no-op;
#  2. install-go.sh: a no-op when the pinned Go is in place; with a local module
#     zip it refuses an h1: mismatch, installs on a match (the hash computed here
#     by a second implementation), then is a no-op;
#  3. docker/smoke.ipynb executes headless through the kernel installed in 1 (the
#     image's build-time warm-up does the same);
#  4. agx-kernel turns AGX_CUDA=1 into GOFLAGS=-tags=cuda, and nothing otherwise
#     (AGX_OPENBLAS likewise), and adds GODEBUG madvdontneed=0 and
#     memprofilerate=0, each unless set;
#  5. start-lab.sh (the image's command) with the image's settings: it serves
#     /api with the token from JUPYTER_TOKEN_FILE, fills an empty work directory
#     from the notebook seed without overwriting a file, finds no GPU here
#     (AGX_CUDA=0 even in a CUDA build) and drops CUDA stubs from LD_LIBRARY_PATH.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_go
fails=0
ok() { printf '  ok    %s\n' "$*"; }
bad() { printf '  FAIL  %s\n' "$*"; fails=$((fails + 1)); }

work="$(mktemp -d "${TMPDIR:-/tmp}/agx-test-docker-XXXXXX")"
lab_pid=""
cleanup() {
  if [[ -n "$lab_pid" ]] && kill -0 "$lab_pid" 2>/dev/null; then
    kill "$lab_pid" 2>/dev/null || true
    wait "$lab_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

echo "test-docker-install: the image's install steps into $work"
export AGX_PREFIX="$work/prefix" JUPYTER_DATA_DIR="$work/jupyter"
export JUPYTER_RUNTIME_DIR="$work/runtime" JUPYTER_CONFIG_DIR="$work/config"

# 1. Install into the temp prefix, then again.
for round in first second; do
  if "$AGX_SCRIPTS_DIR/install-jupyter.sh" >"$work/$round.log" 2>&1 &&
    "$AGX_SCRIPTS_DIR/install-gonb.sh" >>"$work/$round.log" 2>&1 &&
    "$AGX_SCRIPTS_DIR/install-kernel.sh" >>"$work/$round.log" 2>&1; then
    ok "install scripts, $round run, into a fresh prefix"
  else
    bad "install scripts failed on the $round run:"; sed 's/^/        /' "$work/$round.log"
  fi
done
if [[ -s "$work/second.log" ]]; then
  bad "the second run was not a no-op:"; sed 's/^/        /' "$work/second.log"
else
  ok "second run: silent no-op"
fi
spec="$JUPYTER_DATA_DIR/kernels/$AGX_KERNEL_NAME/kernel.json"
if [[ -f "$spec" ]] && grep -q "\"AGX_BIN\": \"$AGX_PREFIX/bin\"" "$spec"; then
  ok "kernelspec in \$JUPYTER_DATA_DIR points at \$AGX_PREFIX/bin"
else
  bad "no kernelspec at $spec pointing at $AGX_PREFIX/bin"
fi
for tool in gonb goimports; do
  [[ -x "$AGX_PREFIX/bin/$tool" ]] || bad "$AGX_PREFIX/bin/$tool missing"
done

# 2. install-go.sh.
if [[ "$(head -n1 /usr/local/go/VERSION 2>/dev/null)" == "go$GO_VERSION" ]]; then
  if out="$("$AGX_SCRIPTS_DIR/install-go.sh" 2>&1)" && [[ -z "$out" ]]; then
    ok "install-go.sh: no-op with Go $GO_VERSION in /usr/local/go"
  else
    bad "install-go.sh with the pinned Go in place: $out"
  fi
fi
# A stand-in toolchain module zip, and its h1: hash computed here in Python
# (golang.org/x/mod/sumdb/dirhash.Hash1), independently of install-go.sh's shell.
fake_h1="$("$SYSTEM_PYTHON" - "$work/go.zip" "$GO_VERSION" <<'PY'
import base64, hashlib, sys, zipfile
path, version = sys.argv[1], sys.argv[2]
top = f"golang.org/toolchain@v0.0.1-go{version}.linux-amd64/"
files = {top + "VERSION": f"go{version}\ntime 2026-01-01T00:00:00Z\n".encode(),
         top + "bin/go": b"#!/bin/sh\necho fake go\n",
         top + "src/a b.go": b"package a\n"}
with zipfile.ZipFile(path, "w") as z:
    for name, data in files.items():
        info = zipfile.ZipInfo(name)
        info.external_attr = (0o755 if name.endswith("bin/go") else 0o644) << 16
        z.writestr(info, data)
summary = "".join(f"{hashlib.sha256(files[n]).hexdigest()}  {n}\n" for n in sorted(files))
print("h1:" + base64.b64encode(hashlib.sha256(summary.encode()).digest()).decode())
PY
)"
if GO_ROOT_DIR="$work/goroot" GO_ZIP="$work/go.zip" "$AGX_SCRIPTS_DIR/install-go.sh" >"$work/go1.log" 2>&1; then
  bad "install-go.sh accepted a zip whose hash is not the pinned one"
elif grep -q "checksum mismatch" "$work/go1.log" && [[ ! -e "$work/goroot" ]]; then
  ok "install-go.sh refuses a checksum mismatch and installs nothing"
else
  bad "install-go.sh failed without a checksum message:"; sed 's/^/        /' "$work/go1.log"
fi
if GO_ROOT_DIR="$work/goroot" GO_ZIP="$work/go.zip" GO_H1_AMD64="$fake_h1" GO_H1="$fake_h1" \
  "$AGX_SCRIPTS_DIR/install-go.sh" >"$work/go2.log" 2>&1 && [[ -x "$work/goroot/bin/go" ]] &&
  out="$(GO_ROOT_DIR="$work/goroot" GO_ZIP=/nonexistent GO_H1_AMD64="$fake_h1" GO_H1="$fake_h1" \
    "$AGX_SCRIPTS_DIR/install-go.sh" 2>&1)" && [[ -z "$out" ]]; then
  ok "install-go.sh installs a zip with the pinned h1: hash (computed independently), then is a no-op"
else
  bad "install-go.sh with a matching hash:"; sed 's/^/        /' "$work/go2.log"
fi

# 3. The smoke notebook through the temp kernel, from outside the checkout.
resource="$("$JUPYTER" kernelspec list --json 2>/dev/null |
  "$SYSTEM_PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["kernelspecs"].get(sys.argv[1], {}).get("resource_dir", ""))' "$AGX_KERNEL_NAME")"
if [[ "$resource" == "$JUPYTER_DATA_DIR/"* ]]; then
  ok "jupyter resolves $AGX_KERNEL_NAME to the temp kernelspec"
else
  bad "jupyter resolves $AGX_KERNEL_NAME to '$resource', not the one under $JUPYTER_DATA_DIR"
fi
mkdir -p "$work/nb"
cp "$AGX_ROOT/docker/smoke.ipynb" "$work/nb/"
if (cd "$work/nb" && "$JUPYTER" nbconvert --to notebook --execute \
  --ExecutePreprocessor.timeout=300 --ExecutePreprocessor.kernel_name="$AGX_KERNEL_NAME" \
  smoke.ipynb --output out.ipynb) >"$work/nb/log" 2>&1 &&
  problems="$("$SYSTEM_PYTHON" - "$work/nb/out.ipynb" <<'PY'
import json, sys
nb = json.load(open(sys.argv[1]))
text = []
for i, c in enumerate(nb["cells"]):
    for o in c.get("outputs", []):
        if o["output_type"] == "error" or (o["output_type"] == "stream" and o["name"] == "stderr"):
            print(f"cell {i}: {o.get('ename', 'stderr')}")
        text.append(json.dumps(o))
if "agx smoke: go" not in "".join(text):
    print("the expected output 'agx smoke: go' is missing")
PY
)" && [[ -z "$problems" ]]; then
  ok "docker/smoke.ipynb ran through the temp kernel with no errors"
else
  bad "smoke notebook through the temp kernel:"; { cat "$work/nb/log"; echo "${problems:-}"; } | tail -20 | sed 's/^/        /'
fi

# 4. AGX_CUDA in the kernel launcher (a stand-in gonb prints what it was given).
mkdir -p "$work/fakebin"
# shellcheck disable=SC2016  # expanded by the stand-in, not here
printf '#!/bin/sh\necho "GOFLAGS=$GOFLAGS"\n' >"$work/fakebin/gonb"
printf '#!/bin/sh\n' >"$work/fakebin/goimports"
chmod +x "$work/fakebin/gonb" "$work/fakebin/goimports"
with="$(AGX_BIN="$work/fakebin" AGX_CUDA=1 GOFLAGS='' "$AGX_SCRIPTS_DIR/agx-kernel" conn.json 2>&1)"
without="$(AGX_BIN="$work/fakebin" GOFLAGS='' "$AGX_SCRIPTS_DIR/agx-kernel" conn.json 2>&1)"
if [[ "$with" == "GOFLAGS=-tags=cuda" && "$without" == "GOFLAGS=" ]]; then
  ok "agx-kernel: AGX_CUDA=1 gives GOFLAGS=-tags=cuda, unset gives none"
else
  bad "agx-kernel GOFLAGS: with AGX_CUDA=1 '$with', without '$without'"
fi
blas="$(AGX_BIN="$work/fakebin" AGX_OPENBLAS=1 GOFLAGS='-mod=mod' "$AGX_SCRIPTS_DIR/agx-kernel" conn.json 2>&1)"
both="$(AGX_BIN="$work/fakebin" AGX_CUDA=1 AGX_OPENBLAS=1 GOFLAGS='' "$AGX_SCRIPTS_DIR/agx-kernel" conn.json 2>&1)"
if [[ "$blas" == "GOFLAGS=-mod=mod -tags=openblas" && "$both" == "GOFLAGS=-tags=cuda,openblas" ]]; then
  ok "agx-kernel: AGX_OPENBLAS=1 adds -tags=openblas (combined with cuda, after existing GOFLAGS)"
else
  bad "agx-kernel GOFLAGS: with AGX_OPENBLAS=1 '$blas', with both '$both'"
fi

mkdir -p "$work/fakebin-debug"
# shellcheck disable=SC2016  # expanded by the stand-in, not here
printf '#!/bin/sh\necho "GODEBUG=$GODEBUG"\n' >"$work/fakebin-debug/gonb"
cp "$work/fakebin/goimports" "$work/fakebin-debug/goimports"
chmod +x "$work/fakebin-debug/gonb"
dflt="$(env -u GODEBUG AGX_BIN="$work/fakebin-debug" "$AGX_SCRIPTS_DIR/agx-kernel" conn.json 2>&1)"
added="$(AGX_BIN="$work/fakebin-debug" GODEBUG=gctrace=0 "$AGX_SCRIPTS_DIR/agx-kernel" conn.json 2>&1)"
kept="$(AGX_BIN="$work/fakebin-debug" GODEBUG=madvdontneed=1 "$AGX_SCRIPTS_DIR/agx-kernel" conn.json 2>&1)"
both="$(AGX_BIN="$work/fakebin-debug" GODEBUG=memprofilerate=524288,madvdontneed=1 "$AGX_SCRIPTS_DIR/agx-kernel" conn.json 2>&1)"
if [[ "$dflt" == "GODEBUG=madvdontneed=0,memprofilerate=0" && "$added" == "GODEBUG=gctrace=0,madvdontneed=0,memprofilerate=0" &&
  "$kept" == "GODEBUG=madvdontneed=1,memprofilerate=0" && "$both" == "GODEBUG=memprofilerate=524288,madvdontneed=1" ]]; then
  ok "agx-kernel: cells get GODEBUG madvdontneed=0 and memprofilerate=0, each unless GODEBUG already sets it"
else
  bad "agx-kernel GODEBUG: unset '$dflt', with gctrace '$added', with madvdontneed=1 '$kept', with both '$both'"
fi

# 5. start-lab.sh as the image runs it (here as this user, on a free port).
mkdir -p "$work/seed/exercises" "$work/labdir"
cp "$AGX_ROOT/docker/smoke.ipynb" "$work/seed/smoke.ipynb"
echo '{"student": "edit"}' >"$work/seed/exercises/ex.ipynb"
mkdir -p "$work/labdir/exercises"
echo 'mine' >"$work/labdir/exercises/ex.ipynb"
token="file-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
printf '%s\n' "$token" >"$work/token"
port="$("$SYSTEM_PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
env -u JUPYTER_TOKEN -u AGX_CUDA LAB_IP=127.0.0.1 LAB_PORT="$port" LAB_DIR="$work/labdir" \
  JUPYTER_TOKEN_FILE="$work/token" AGX_NOTEBOOK_SEED="$work/seed" AGX_GPU_BUILD=1 \
  LD_LIBRARY_PATH="/usr/local/cuda/lib64/stubs:$work/lib" \
  "$AGX_SCRIPTS_DIR/start-lab.sh" >"$work/lab.log" 2>&1 &
lab_pid=$!
answer=""
for _ in $(seq 1 300); do
  if answer="$("$SYSTEM_PYTHON" - "$port" "$token" 2>/dev/null <<'PY'
import json, sys, urllib.request
port, token = sys.argv[1], sys.argv[2]
with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/kernelspecs?token={token}", timeout=1) as r:
    print(json.load(r).get("default"))
PY
  )"; then
    break
  fi
  kill -0 "$lab_pid" 2>/dev/null || break
  sleep 0.05
done
if [[ "$answer" == "$AGX_KERNEL_NAME" ]]; then
  ok "start-lab.sh serves /api with the token from JUPYTER_TOKEN_FILE (default kernel $AGX_KERNEL_NAME)"
else
  bad "start-lab.sh did not answer with the file token (got '$answer'):"; tail -20 "$work/lab.log" | sed 's/^/        /'
fi
if [[ -f "$work/labdir/smoke.ipynb" && "$(cat "$work/labdir/exercises/ex.ipynb")" == mine ]]; then
  ok "start-lab.sh seeded the missing notebook and kept the student's file"
else
  bad "start-lab.sh seeding: smoke.ipynb copied? $([[ -f "$work/labdir/smoke.ipynb" ]] && echo yes || echo no); ex.ipynb: $(cat "$work/labdir/exercises/ex.ipynb")"
fi
gpu=0
# start-lab.sh wants a GPU device and the driver's libcuda.so.1 both.
if { [[ -e /dev/nvidia0 ]] || { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; }; } &&
  /sbin/ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
  gpu=1
fi
if [[ -r "/proc/$lab_pid/environ" ]]; then
  envs="$(tr '\0' '\n' <"/proc/$lab_pid/environ")"
  if grep -qx "AGX_CUDA=$gpu" <<<"$envs" && grep -qx "LD_LIBRARY_PATH=$work/lib" <<<"$envs"; then
    ok "GPU visible: $gpu, so AGX_CUDA=$gpu in a CUDA build; stubs dropped from LD_LIBRARY_PATH"
  else
    bad "server environment: $(grep -E '^(AGX_CUDA|LD_LIBRARY_PATH)=' <<<"$envs" | tr '\n' ' ')"
  fi
fi

if ((fails > 0)); then
  echo "test-docker-install: $fails check(s) failed"
  exit 1
fi
echo "test-docker-install: all checks passed"
