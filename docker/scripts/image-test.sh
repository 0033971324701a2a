#!/usr/bin/env bash
# `make image-test` (part of `make test`): builds the lab and grader images with a
# real Docker engine and uses them as a course would.
#
#  1. Engine: the one `docker version` reaches (DOCKER_HOST or the default socket).
#     When none answers, as root, it installs Debian's docker.io (with services
#     kept from starting) and starts a private dockerd that leaves the host's
#     network alone (no iptables rules, no IP forwarding, no bridge; builds and
#     containers use the host's network or none), with its state in
#     $AGX_IMAGE_TEST_DIR (default /var/lib/agx-image-test, kept for the build
#     cache) and its sockets in /run/agx-image-test. That dockerd, and only that
#     one, is stopped at the end, by its process id. No engine: it fails, saying why.
#  2. Base image: BASE_IMAGE of docker/versions.env when it is present or can be
#     pulled; otherwise one of the same Debian release (trixie) built with mmdebstrap
#     from the mirror the host's apt uses (minbase + ca-certificates, the host's extra
#     CA certificates added) and imported as agx-image-test/base:<release> (reused by
#     later runs).
#  3. Builds the targets lab and grader (BuildKit, build cache kept).
#  4. Runs the lab on a free port of 127.0.0.1 with a known token, waits until
#     /api answers with that token (and refuses a request without it), then
#     executes docker/smoke.ipynb and one course notebook inside the container
#     with `agx run`.
#  5. Browser: headless Chromium (test-lab-browser.cjs, puppeteer-core) opens the
#     container's JupyterLab, runs test-lab-outputs.ipynb and checks that text, the
#     HTML tensor, the SVG graph and plot, the grade kit's table and a panic render;
#     then the image's own JupyterHub 5 (test-hub-config.py) spawns the image's
#     single-user server for a user who logs in, and the same notebook runs there.
#     Screenshots and results go to build/image-test/. Chromium, Node.js/npm and
#     puppeteer-core (into build/browser-check) are installed when missing.
#  6. The student image holds no file equal (sha256) to an instructor-only file
#     (any file under a path docker/instructor-only lists: the instructor
#     notebooks, the reference solutions in Go); the grader image holds every
#     instructor notebook.
#  7. Grading with the grader image: run as the image's user without the opt-in,
#     agx autograde must refuse; `agx autograde --docker` (a fresh container per
#     submission, no CAP_SYS_ADMIN) grades the attack class of internal/autograde
#     (TestAttacksInContainers: each attack caught or harmless); then
#     job-slices-test.sh: the grading Job's command in parallel containers, one per
#     slice, merged, equal to one container grading the whole class.
#
# With --cuda (`make image-cuda-test`, not part of `make test`): builds the CUDA
# variant (AGX_GPU=1) instead of lab and grader, checks that without a GPU it says
# so and runs the CPU lab (steps 4 and 6), and when the host has an NVIDIA GPU and
# Docker's nvidia runtime, runs it again with --gpus all and a CUDA notebook.
#
#   AGX_IMAGE_TEST_NOTEBOOK  the course notebook of step 4 (default 01-function-basics.ipynb)
#   AGX_IMAGE_TEST_EXERCISE  the exercise graded in step 7 (default gelu.ipynb)
#   AGX_IMAGE_TEST_BROWSER=0 leaves out step 5 (not in `make test`)
#   AGX_IMAGE_TEST_DIR       the private engine's state (data root, logs)
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cuda=0
case "${1:-}" in
--cuda) cuda=1 ;;
"") ;;
*) echo "usage: image-test.sh [--cuda]" >&2; exit 2 ;;
esac
course_nb="${AGX_IMAGE_TEST_NOTEBOOK:-01-function-basics.ipynb}"
browser="${AGX_IMAGE_TEST_BROWSER:-1}"
# puppeteer-core 24 is the newest line that runs on Debian 12's Node.js 18.
puppeteer_version=24.37.0
artifacts="$AGX_ROOT/build/image-test"
exercise="${AGX_IMAGE_TEST_EXERCISE:-gelu.ipynb}"
state="${AGX_IMAGE_TEST_DIR:-/var/lib/agx-image-test}"
rundir=/run/agx-image-test
lab_tag=agx-lab:image-test
grader_tag=agx-lab:image-test-grader
if ((cuda)); then
  lab_tag=agx-lab:image-test-cuda
  artifacts="$AGX_ROOT/build/image-test-cuda"
fi

t_start=$SECONDS
step() { printf '\n[image-test %3ds] %s\n' "$((SECONDS - t_start))" "$*" >&2; }
fail() { printf '[image-test] FAIL: %s\n' "$*" >&2; exit 1; }

work="$(mktemp -d "${TMPDIR:-/tmp}/agx-image-test-XXXXXX")"
dockerd_pid=""
private=0 # 1: the engine is this test's own (its data root holds nothing else)
containers=()
docker=(docker)
cleanup() {
  local rc=$? c
  set +e
  for c in "${containers[@]}"; do
    "${docker[@]}" rm -f "$c" >/dev/null 2>&1
  done
  if ((private)); then
    # Each run after a change leaves the previous images dangling; keep the private
    # data root from growing without bound (the newest build cache stays).
    "${docker[@]}" image prune -f >/dev/null 2>&1
    "${docker[@]}" builder prune -f --keep-storage 10GB >/dev/null 2>&1
  fi
  if [[ -n "$dockerd_pid" ]] && kill -0 "$dockerd_pid" 2>/dev/null; then
    step "stopping the dockerd this test started (pid $dockerd_pid)"
    kill -TERM "$dockerd_pid"
    for _ in $(seq 1 60); do kill -0 "$dockerd_pid" 2>/dev/null || break; sleep 0.5; done
    if kill -0 "$dockerd_pid" 2>/dev/null; then
      printf '[image-test] dockerd %s did not stop in 30 s; sending KILL\n' "$dockerd_pid" >&2
      kill -KILL "$dockerd_pid"
    fi
  fi
  rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- 1. The engine -------------------------------------------------------------
step "looking for a Docker engine"
if docker version --format '{{.Server.Version}}' >/dev/null 2>"$work/info.err"; then
  log "using the engine that 'docker version' reaches (${DOCKER_HOST:-the default socket})"
else
  reason="$(grep -m1 -v '^[[:space:]]*$' "$work/info.err" 2>/dev/null || true)"
  [[ "$(id -u)" == 0 ]] ||
    fail "no Docker engine answers (docker version: ${reason:-docker not found}), and starting one needs root.
  Start Docker (or set DOCKER_HOST), or run this test as root."
  mkdir -p "$state" "$rundir"
  # One test at a time per state directory: two dockerds cannot share a data root.
  exec 9>"$state/lock"
  flock -w 3600 9 || fail "another image-test holds $state/lock"
  if [[ ! -x /usr/sbin/dockerd || ! -x /usr/bin/docker ]]; then
    # Installing docker.io must not start Debian's own dockerd (default flags change the
    # host's firewall and IP forwarding): a policy-rc.d that refuses every start, unless
    # the host has one already.
    policy=""
    if [[ ! -e /usr/sbin/policy-rc.d ]]; then
      policy=/usr/sbin/policy-rc.d
      printf '#!/bin/sh\nexit 101\n' >"$policy"
      chmod 755 "$policy"
    fi
    ensure_debs docker.io || { [[ -z "$policy" ]] || rm -f "$policy"; fail "could not install docker.io"; }
    [[ -z "$policy" ]] || rm -f "$policy"
  fi
  docker=(/usr/bin/docker)
  export DOCKER_HOST="unix://$rundir/docker.sock"
  private=1
  if "${docker[@]}" info >/dev/null 2>&1; then
    log "a dockerd left by an earlier run answers on $DOCKER_HOST; using it (not stopping it)"
  else
    rm -f "$rundir/docker.sock"
    log "starting dockerd (state in $state, log in $state/dockerd.log)"
    /usr/sbin/dockerd --data-root "$state/data" --exec-root "$rundir/exec" \
      --pidfile "$rundir/dockerd.pid" -H "$DOCKER_HOST" \
      --iptables=false --ip-forward=false --ip-masq=false --bridge=none \
      >"$state/dockerd.log" 2>&1 &
    dockerd_pid=$!
    for _ in $(seq 1 120); do
      "${docker[@]}" info >/dev/null 2>&1 && break
      kill -0 "$dockerd_pid" 2>/dev/null || break
      sleep 0.5
    done
    if ! "${docker[@]}" info >/dev/null 2>"$work/info.err"; then
      tail -n 20 "$state/dockerd.log" >&2
      fail "dockerd did not start ($(tail -n1 "$work/info.err")); its log is above"
    fi
  fi
fi
export DOCKER_BUILDKIT=1
"${docker[@]}" version --format 'engine {{.Server.Version}}, client {{.Client.Version}}' >&2

# --- 2. The base image ---------------------------------------------------------
step "base image"
base="$BASE_IMAGE"
if "${docker[@]}" image inspect "$base" >/dev/null 2>&1; then
  log "$base is present"
elif timeout 120 "${docker[@]}" pull -q "$base" >/dev/null 2>"$work/pull.err"; then
  log "pulled $base"
else
  log "cannot pull $base ($(tail -n1 "$work/pull.err")); building one from the Debian archive"
  # The Debian release BASE_IMAGE names (debian:trixie-slim@... -> trixie), bootstrapped
  # from the mirror the host's apt uses, whatever release the host runs.
  ref="${BASE_IMAGE%%@*}"
  suite="${ref#*:}"
  suite="${suite%-slim}"
  [[ "${ref%%:*}" == debian && -n "$suite" && "$suite" != "$ref" ]] ||
    fail "BASE_IMAGE=$BASE_IMAGE is not a debian:<release>[-slim] image; cannot build a stand-in with mmdebstrap"
  host_suite="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"
  base="agx-image-test/base:$suite"
  if "${docker[@]}" image inspect "$base" >/dev/null 2>&1; then
    log "reusing $base (remove it to rebuild)"
  else
    [[ "$(id -u)" == 0 ]] || fail "building a base image with mmdebstrap needs root"
    [[ -n "$host_suite" ]] || fail "the host's Debian release has no codename in /etc/os-release"
    ensure_debs mmdebstrap
    # The host's Debian sources of its own release (updates and security included), as
    # one-line sources with the release replaced by BASE_IMAGE's: whatever mirror the
    # host is configured with.
    # shellcheck disable=SC2016  # apt's format fields, not shell expansions
    mapfile -t sources < <(apt-get indextargets --format '$(TARGET_OF) $(REPO_URI) $(RELEASE) $(COMPONENT)' \
      'Identifier: Packages' | awk -v h="$host_suite" -v s="$suite" '$1 == "deb" && $4 == "main" &&
        ($3 == h || $3 == h "-updates" || $3 == h "-security") { sub("^" h, s, $3); print }' | sort -u)
    ((${#sources[@]} > 0)) || fail "no Debian sources (main) for $host_suite in the host's apt configuration"
    printf '  %s\n' "${sources[@]}" >&2
    # The host's extra CA certificates (a proxy that re-signs HTTPS) go in too; mmdebstrap
    # gives the hook the root directory as $1.
    # shellcheck disable=SC2016
    hook='if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
      cp /usr/local/share/ca-certificates/*.crt "$1/usr/local/share/ca-certificates/" && chroot "$1" update-ca-certificates >/dev/null; fi'
    mmdebstrap --variant=minbase --include=ca-certificates \
      --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
      --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/info/*' \
      --customize-hook="$hook" \
      "$suite" "$work/rootfs.tar" "${sources[@]}" >"$work/mmdebstrap.log" 2>&1 ||
      { tail -n 20 "$work/mmdebstrap.log" >&2; fail "mmdebstrap failed"; }
    "${docker[@]}" import -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
      -c 'CMD ["bash"]' "$work/rootfs.tar" "$base" >/dev/null
    rm -f "$work/rootfs.tar"
    log "built $base"
  fi
fi

# --- 3. The images -------------------------------------------------------------
goproxy="$(go env GOPROXY 2>/dev/null || true)"
build() {
  local target="$1" tag="$2" t0=$SECONDS
  shift 2
  step "building target $target as $tag $*"
  if ! (cd "$AGX_ROOT" && "${docker[@]}" build --network host --progress plain \
    -f docker/Dockerfile --target "$target" -t "$tag" \
    --build-arg BASE_IMAGE="$base" --build-arg GOPROXY="$goproxy" "$@" .) >"$work/build-$target.log" 2>&1; then
    tail -n 40 "$work/build-$target.log" >&2
    fail "docker build --target $target failed"
  fi
  log "built $tag in $((SECONDS - t0)) s ($(grep -c ' CACHED$' "$work/build-$target.log" || true) steps cached)"
}
rm -rf "$artifacts"
mkdir -p "$artifacts"
if ((cuda)); then
  build lab "$lab_tag" --build-arg AGX_GPU=1
  grep -E '\[agx\] CUDA ' "$work/build-lab.log" | tail -n1 >&2 || true
else
  build lab "$lab_tag"
  build grader "$grader_tag"
fi

# --- 4. The lab ----------------------------------------------------------------
step "running the lab"
free_port() { "$SYSTEM_PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port="$(free_port)"
token="t$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
lab="agx-image-test-lab-$$"
containers+=("$lab")
# The image's command with one argument added for the browser check (window.jupyterapp).
"${docker[@]}" run -d --name "$lab" --network host \
  -e LAB_IP=127.0.0.1 -e LAB_PORT="$port" -e JUPYTER_TOKEN="$token" "$lab_tag" \
  /opt/agx/docker/scripts/start-lab.sh --LabApp.expose_app_in_browser=True >/dev/null
t0=$SECONDS
api="http://127.0.0.1:$port/api/kernelspecs"
ready=""
while ((SECONDS - t0 < 120)); do
  if out="$(curl -fsS -m 2 -H "Authorization: token $token" "$api" 2>/dev/null)"; then
    ready="$out"
    break
  fi
  [[ "$("${docker[@]}" inspect -f '{{.State.Running}}' "$lab" 2>/dev/null)" == true ]] || break
  sleep 0.5
done
if [[ -z "$ready" ]]; then
  "${docker[@]}" logs "$lab" 2>&1 | tail -n 20 >&2
  fail "the lab did not answer $api with its token within 120 s"
fi
default="$("$SYSTEM_PYTHON" -c 'import json,sys; print(json.load(sys.stdin).get("default"))' <<<"$ready")"
[[ "$default" == "$AGX_KERNEL_NAME" ]] || fail "the lab's default kernel is '$default', not $AGX_KERNEL_NAME"
log "the lab answered with its token after $((SECONDS - t0)) s (default kernel $default)"
code="$(curl -s -o /dev/null -w '%{http_code}' -m 5 "$api" || true)"
[[ "$code" == 403 || "$code" == 401 ]] || fail "$api without the token answered HTTP $code (want 403)"
log "without the token: HTTP $code"
if ((cuda)); then
  # No GPU here (or none given to the container): the CUDA image must say so and
  # run the CPU lab.
  msg="$("${docker[@]}" logs "$lab" 2>&1 | grep -m1 '^\[agx\] CUDA image, but' || true)"
  [[ -n "$msg" ]] || fail "the CUDA image without a GPU did not say it runs on the CPU; its log:
$("${docker[@]}" logs "$lab" 2>&1 | head -n 20)"
  log "start-up without a GPU: $msg"
  # The gpu backend links in the image: a cuda-tagged test binary of package gpu
  # needs, of the CUDA libraries, only the driver's libcuda.so.1 from the host.
  # shellcheck disable=SC2016  # expanded in the container
  if ! "${docker[@]}" exec "$lab" bash -c 'cd /opt/agx && go test -c -tags cuda -o /tmp/gpu.test ./gpu && ldd /tmp/gpu.test' \
    >"$work/ldd.log" 2>&1; then
    tail -n 20 "$work/ldd.log" >&2
    fail "go test -c -tags cuda ./gpu failed in the CUDA image"
  fi
  unresolved="$(awk '/=> not found/ {print $1}' "$work/ldd.log" | sort | tr '\n' ' ')"
  [[ "$unresolved" == "libcuda.so.1 " ]] ||
    fail "the cuda-tagged gpu test binary lacks '${unresolved:-nothing}' in the image (want only libcuda.so.1, the host driver's)"
  log "linked ./gpu with -tags cuda: $(grep -E -o 'lib(cublas|nvrtc)\.so\.[0-9]+ => [^ ]+' "$work/ldd.log" | tr '\n' ' ')and libcuda.so.1 from the host"
fi

step "executing docker/smoke.ipynb and notebooks/$course_nb in the container"
for nb in /opt/agx/docker/smoke.ipynb "/home/jovyan/work/$course_nb"; do
  t0=$SECONDS
  # shellcheck disable=SC2016  # expanded in the container
  if ! "${docker[@]}" exec "$lab" bash -c 'out="$(mktemp -d)" && agx run -o "$out" "$1"' _ "$nb" >"$work/run.log" 2>&1; then
    tail -n 30 "$work/run.log" >&2
    fail "agx run $nb failed in the container"
  fi
  log "agx run $nb: $((SECONDS - t0)) s"
  grep -E 'cell [0-9]+/|\bok\b|PASS|FAIL' "$work/run.log" | tail -n 8 | sed 's/^/    /' >&2 || true
done

# --- 5. JupyterLab 4 and JupyterHub 5 in a browser --------------------------------
browser_deps() {
  command -v chromium >/dev/null 2>&1 || ensure_debs chromium
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    ensure_debs nodejs npm
  fi
  local dir="$AGX_ROOT/build/browser-check" have=""
  have="$(node -p "require('$dir/node_modules/puppeteer-core/package.json').version" 2>/dev/null || true)"
  if [[ "$have" != "$puppeteer_version" ]]; then
    log "installing puppeteer-core $puppeteer_version into $dir (npm; no browser download)"
    mkdir -p "$dir"
    PUPPETEER_SKIP_DOWNLOAD=1 npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
      "puppeteer-core@$puppeteer_version" >&2 || fail "npm install puppeteer-core@$puppeteer_version failed"
  fi
  export NODE_PATH="$dir/node_modules"
}
# put_notebook CONTAINER: copies the browser check's notebook into the work directory, as jovyan.
put_notebook() {
  "${docker[@]}" exec -i "$1" bash -c 'cat >/home/jovyan/work/test-lab-outputs.ipynb' \
    <"$AGX_SCRIPTS_DIR/test-lab-outputs.ipynb" || fail "could not copy the browser notebook into $1"
}
if ((!cuda)) && [[ "$browser" != 1 ]]; then
  [[ "${AGX_TEST_REQUIRE_ALL:-0}" != 1 ]] || fail "AGX_IMAGE_TEST_BROWSER=$browser, but AGX_TEST_REQUIRE_ALL=1 (make test) requires the browser check"
  log "LEFT OUT: the browser and JupyterHub checks (AGX_IMAGE_TEST_BROWSER=$browser)"
fi
if ((!cuda)) && [[ "$browser" == 1 ]]; then
  step "JupyterLab in headless Chromium: outputs of test-lab-outputs.ipynb"
  browser_deps
  put_notebook "$lab"
  t0=$SECONDS
  node "$AGX_SCRIPTS_DIR/test-lab-browser.cjs" --url "http://127.0.0.1:$port/lab?token=$token" \
    --notebook test-lab-outputs.ipynb --out "$artifacts" --name lab ||
    fail "the browser check of JupyterLab failed (screenshots and lab-result.json in $artifacts)"
  log "browser check: $((SECONDS - t0)) s, screenshots in $artifacts"

  step "JupyterHub 5 in the image spawns the image's single-user server"
  hub_port="$(free_port)"
  hub_env=(-e AGX_HUB_STATE=/tmp/agx-hub -e AGX_HUB_PORT="$hub_port" -e AGX_HUB_API_PORT="$(free_port)"
    -e AGX_HUB_PROXY_API_PORT="$(free_port)" -e AGX_HUB_USER_PORT="$(free_port)")
  "${docker[@]}" exec "$lab" mkdir -p /tmp/agx-hub
  "${docker[@]}" exec -i "$lab" bash -c 'cat >/tmp/agx-hub/config.py' <"$AGX_SCRIPTS_DIR/test-hub-config.py"
  # shellcheck disable=SC2016  # expanded in the container
  "${docker[@]}" exec -d "${hub_env[@]}" "$lab" bash -c \
    'cd /tmp/agx-hub && exec jupyterhub -f /tmp/agx-hub/config.py >/tmp/agx-hub/hub.log 2>&1'
  hub_log() { "${docker[@]}" exec "$lab" tail -n "${1:-30}" /tmp/agx-hub/hub.log >&2 || true; }
  t0=$SECONDS
  hub_version=""
  while ((SECONDS - t0 < 90)); do
    if out="$(curl -fsS -m 2 "http://127.0.0.1:$hub_port/hub/api" 2>/dev/null)"; then
      hub_version="$("$SYSTEM_PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["version"])' <<<"$out")"
      break
    fi
    sleep 0.5
  done
  [[ -n "$hub_version" ]] || { hub_log; fail "the image's JupyterHub did not answer on port $hub_port within 90 s"; }
  [[ "$hub_version" == 5.* ]] || fail "the image's JupyterHub is $hub_version, not 5.x"
  log "JupyterHub $hub_version up after $((SECONDS - t0)) s"
  t0=$SECONDS
  node "$AGX_SCRIPTS_DIR/test-lab-browser.cjs" --url "http://127.0.0.1:$hub_port/hub/login" --hub-user alice \
    --notebook test-lab-outputs.ipynb --out "$artifacts" --name hub ||
    { hub_log 40; fail "the browser check through JupyterHub failed (screenshots and hub-result.json in $artifacts)"; }
  log "hub check: $((SECONDS - t0)) s"
  "${docker[@]}" exec "$lab" cat /tmp/agx-hub/hub.log >"$artifacts/hub.log" 2>/dev/null || true
fi

# --- 6. Instructor notebooks and reference solutions -----------------------------
step "instructor-only files in the images (sha256)"
declare -A want=() notebooks=()
sizes=()
mapfile -t only < <(grep -Ev '^[[:space:]]*(#|$)' "$AGX_ROOT/docker/instructor-only" | sed "s|^|$AGX_ROOT/|")
((${#only[@]} > 0)) || fail "docker/instructor-only lists no path"
while IFS= read -r -d '' f; do
  [[ -s "$f" ]] || continue # an empty file equals every other empty file
  sum="$(sha256sum "$f" | cut -c1-64)"
  want["$sum"]="${f#"$AGX_ROOT"/}"
  [[ "$f" != "$AGX_ROOT"/notebooks/exercises/* ]] || notebooks["$sum"]="${f#"$AGX_ROOT"/}"
  sizes+=(-o -size "$(stat -c %s "$f")c")
done < <(find "${only[@]}" -type f ! -name '*.executed.ipynb' ! -path '*/.ipynb_checkpoints/*' -print0 2>/dev/null)
((${#notebooks[@]} > 0)) || fail "no instructor notebooks under notebooks/exercises"
# scan IMAGE: "sha256  path" of every file in IMAGE with the size of an instructor file.
scan() {
  "${docker[@]}" run --rm --network none -u 0 --entrypoint find "$1" / -xdev -type f \
    \( -false "${sizes[@]}" \) -exec sha256sum {} +
}
scan "$lab_tag" >"$work/lab.sums" || fail "could not list the files of $lab_tag"
leaks=0
while read -r sum path; do
  if [[ -n "${want[$sum]:-}" ]]; then
    printf '  %s is %s\n' "$path" "${want[$sum]}" >&2
    leaks=$((leaks + 1))
  fi
done <"$work/lab.sums"
((leaks == 0)) || fail "the student image $lab_tag holds $leaks instructor file(s)"
log "student image: none of the ${#want[@]} instructor-only files ($(wc -l <"$work/lab.sums") files of those sizes checked)"
if ((!cuda)); then
  scan "$grader_tag" >"$work/grader.sums" || fail "could not list the files of $grader_tag"
  for sum in "${!notebooks[@]}"; do
    grep -q "^$sum " "$work/grader.sums" || fail "the grader image lacks ${notebooks[$sum]}"
  done
  log "grader image: all ${#notebooks[@]} instructor notebooks"
fi

# --- 7. Grading ----------------------------------------------------------------
if ((!cuda)); then
  step "grading $exercise with the grader image, no network"
  mkdir -p "$work/sub" "$work/gradebook"
  cp "$AGX_ROOT/notebooks/exercises/$exercise" "$work/sub/alice.ipynb"
  chmod 755 "$work" "$work/sub"
  chmod 644 "$work/sub/alice.ipynb"
  chown "$NB_UID:$NB_GID" "$work/gradebook" 2>/dev/null || chmod 777 "$work/gradebook"
  grader="agx-image-test-grader-$$"
  containers+=("$grader-strict")
  # The container gives no slot users and no namespaces: by default the grader
  # refuses, grading nobody, and says why.
  if "${docker[@]}" run --name "$grader-strict" --network none -e GOPROXY=off -e GOSUMDB=off \
    -v "$work/sub:/home/jovyan/submissions:ro" -v "$work/gradebook:/home/jovyan/gradebook" \
    "$grader_tag" agx autograde -j 1 --source "/opt/agx/notebooks/exercises/$exercise" \
    -o /home/jovyan/gradebook /home/jovyan/submissions/alice.ipynb >"$work/grade-strict.log" 2>&1; then
    fail "agx autograde graded in a container without the isolation it promises (no --isolation=best-effort)"
  fi
  if ! grep -q 'grading refused' "$work/grade-strict.log" || [[ -e "$work/gradebook/alice.json" ]]; then
    fail "agx autograde did not refuse clearly in the grader container: $(tail -n 5 "$work/grade-strict.log")"
  fi
  log "without the opt-in, the grader container refuses to grade: $(grep -m1 -- '  - ' "$work/grade-strict.log")"
  # The documented Docker path: agx autograde --docker on the host grades each
  # submission in a fresh container of the image, isolated without CAP_SYS_ADMIN.
  # The attack class of internal/autograde (every attack must end caught or
  # harmless, the honest solution with full marks, no container left).
  step "grading the attack class with agx autograde --docker (a container per submission)"
  t0=$SECONDS
  # The test's docker command is the one this script uses (first on PATH).
  if ! PATH="$(dirname "$(command -v "${docker[0]}")"):$PATH" AGX_TEST_GRADER_IMAGE="$grader_tag" go -C "$AGX_ROOT" test -count=1 -timeout 30m -run '^TestAttacksInContainers$' -v \
    ./internal/autograde >"$work/attacks.log" 2>&1; then
    grep -E -e '--- FAIL' -e 'attacks_test.go' "$work/attacks.log" | head -n 40 >&2
    fail "the attack class graded with --docker failed (log above)"
  fi
  grep -q -e '^--- PASS: TestAttacksInContainers ' "$work/attacks.log" ||
    fail "TestAttacksInContainers did not run: $(grep -m1 -e SKIP "$work/attacks.log")"
  log "$(grep -c -e '--- PASS: TestAttacksInContainers/' "$work/attacks.log") attacks graded with --docker, each caught or harmless, in $((SECONDS - t0)) s"
  step "the grading Job in slices (job-slices-test.sh)"
  AGX_GRADER_IMAGE="$grader_tag" "$AGX_SCRIPTS_DIR/job-slices-test.sh" || fail "job-slices-test.sh failed"
fi

# --- 8. The CUDA image on a GPU (--cuda) -------------------------------------------
if ((cuda)); then
  step "the CUDA image on a GPU"
  if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU ' &&
    "${docker[@]}" info --format '{{json .Runtimes}}' 2>/dev/null | grep -q nvidia; then
    gpu_lab="agx-image-test-gpu-$$"
    containers+=("$gpu_lab")
    "${docker[@]}" run -d --name "$gpu_lab" --gpus all --network host -e LAB_IP=127.0.0.1 \
      -e LAB_PORT="$(free_port)" -e JUPYTER_TOKEN="$token" "$lab_tag" >/dev/null
    for _ in $(seq 1 120); do
      "${docker[@]}" logs "$gpu_lab" 2>&1 | grep -q -e '^\[agx\] GPU found' -e '^\[agx\] CUDA image, but' && break
      sleep 0.5
    done
    "${docker[@]}" logs "$gpu_lab" 2>&1 | grep -q '^\[agx\] GPU found' ||
      fail "with --gpus all the CUDA image did not find the GPU; its log:
$("${docker[@]}" logs "$gpu_lab" 2>&1 | head -n 20)"
    # shellcheck disable=SC2016  # expanded in the container
    "${docker[@]}" exec -e AGX_CUDA=1 "$gpu_lab" bash -c 'out="$(mktemp -d)" && agx run -o "$out" /home/jovyan/work/12-cuda-kernels.ipynb' \
      >"$work/gpu.log" 2>&1 || { tail -n 30 "$work/gpu.log" >&2; fail "12-cuda-kernels.ipynb failed on the GPU"; }
    log "12-cuda-kernels.ipynb ran on the GPU: $(nvidia-smi -L | head -n1)"
  else
    log "NOT RUN: this host has no NVIDIA GPU with Docker's nvidia runtime (nvidia-smi and the NVIDIA Container Toolkit); the CUDA image was built and checked on the CPU only"
  fi
fi

step "image sizes"
"${docker[@]}" image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep -E '^(agx-lab|agx-image-test)' >&2 || true
step "all checks passed"
