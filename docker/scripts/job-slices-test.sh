#!/usr/bin/env bash
# The grading Job of docker/jupyterhub/grader-job.yaml, short of a cluster: its
# grader container's command, taken from the manifest as written, runs in K
# parallel containers of the grader image (JOB_COMPLETION_INDEX=0..K-1, SLICES=K,
# the Job's securityContext: root, CAP_SYS_ADMIN), all sharing one host directory
# as the grading volume, on a class of 4 (the exercise's solution as alice and bob,
# its released student version as carol and frank: two per slice for K=2). Then
# `agx gradebook merge` of this checkout merges their gradebooks, and the result
# must equal grading the same class in one container: grades.csv byte for byte,
# each student's status, points and flags.
#
# Run by `make image-test` (part of `make test`) after it builds the images, with its
# engine; alone: `make job-slices-test` with an engine (DOCKER_HOST) that has the image.
#
#   AGX_GRADER_IMAGE  the grader image (default agx-lab:image-test-grader)
#   AGX_JOB_SLICES    K (default 2)
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

image="${AGX_GRADER_IMAGE:-agx-lab:image-test-grader}"
k="${AGX_JOB_SLICES:-2}"
job="$AGX_ROOT/docker/jupyterhub/grader-job.yaml"
fail() { printf '[job-slices-test] FAIL: %s\n' "$*" >&2; exit 1; }

docker version >/dev/null 2>&1 || fail "no Docker engine answers (set DOCKER_HOST); make image-test starts one"
docker image inspect "$image" >/dev/null 2>&1 || fail "no image $image: make image-test builds it"
work="$(mktemp -d "${TMPDIR:-/tmp}/agx-job-slices-XXXXXX")"
names=()
cleanup() {
  local rc=$?
  ((${#names[@]} == 0)) || docker rm -f -v "${names[@]}" >/dev/null 2>&1 || true
  rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT

# The grader container's command and env, as the manifest has them (PyYAML, as
# Kubernetes would read them; docker/jupyterhub/check checks the manifest itself).
mapfile -d '' -t cmd < <("$SYSTEM_PYTHON" - "$job" <<'PY'
import sys, yaml
job = yaml.safe_load(open(sys.argv[1]))
c = next(c for c in job["spec"]["template"]["spec"]["containers"] if c["name"] == "grader")
sc = c.get("securityContext") or {}
caps = (sc.get("capabilities") or {}).get("add", [])
if (sc.get("appArmorProfile") or {}).get("type") == "Unconfined":
    caps.append("apparmor=unconfined")
vols = {v["name"]: v for v in job["spec"]["template"]["spec"].get("volumes", [])}
mounts = [("pvc:" if "persistentVolumeClaim" in vols[m["name"]] else "emptyDir:" if "emptyDir" in vols[m["name"]] else "other:") + m["mountPath"]
          for m in c.get("volumeMounts", [])]
for a in (c["command"] + c.get("args", []) + ["--env"] + [e["name"] + "=" + e["value"] for e in c.get("env", [])] +
          ["--caps"] + caps + ["--mounts"] + mounts):
    sys.stdout.write(a + "\0")
PY
)
# Sections: the command line, then after --env the environment, after --caps the
# capabilities to add, after --mounts the volumes: the claim (the grading volume) as
# one host directory shared by every container, an emptyDir as a volume of each one's.
argv=() envs=() caps=() mounts=() section=argv
for a in "${cmd[@]}"; do
  case "$section:$a" in
  *:--env) section=environment ;;
  *:--caps) section=caps ;;
  *:--mounts) section=mounts ;;
  mounts:pvc:*) mounts+=(-v "$work/grading:${a#pvc:}") ;;
  mounts:emptyDir:*) mounts+=(--mount "type=volume,dst=${a#emptyDir:}") ;;
  mounts:*) fail "a volume this test cannot stand in for: $a" ;;
  argv:*) argv+=("$a") ;;
  environment:SLICES=*) ;; # SLICES=K below
  environment:*) envs+=(-e "$a") ;;
  caps:apparmor=*) caps+=(--security-opt "$a") ;;
  caps:*) caps+=(--cap-add "$a") ;;
  esac
done
((${#argv[@]} == 3)) || fail "the grader's command is not /bin/bash -c SCRIPT: ${argv[*]}"
log "the Job's command: ${argv[*]:0:2} <its script, $(wc -l <<<"${argv[2]}") lines>, in $k containers, SLICES=$k, ${caps[*]}"

# This checkout's agx (the merge), and a class of 4 from the image's own exercise.
go build -o "$work/agx" "$AGX_ROOT/cmd/agx"
docker run --rm --network none "$image" cat /opt/agx/notebooks/exercises/gelu.ipynb >"$work/gelu.ipynb"
"$work/agx" assign -o "$work/released" "$work/gelu.ipynb" >/dev/null
for s in alice bob carol frank; do
  mkdir -p "$work/grading/submitted/$s/gelu"
  case "$s" in alice | bob) src="$work/gelu.ipynb" ;; *) src="$work/released/gelu.ipynb" ;; esac
  cp "$src" "$work/grading/submitted/$s/gelu/gelu.ipynb"
done

# The Job's pod: root, the container's capabilities and AppArmor profile, Docker's
# default seccomp profile (it allows the sandbox's unshare and mounts with SYS_ADMIN).
run=(docker run --user 0 --network none "${caps[@]}" -e GOPROXY=off -e GOSUMDB=off "${mounts[@]}" "${envs[@]}")
# grade_slices SCRIPT: the K containers at once; each one's log in $work/slice-I.log.
grade_slices() {
  local i pids=() rc=0
  for ((i = 0; i < k; i++)); do
    names+=("agx-job-slice-$$-$i")
    "${run[@]}" --name "agx-job-slice-$$-$i" -e JOB_COMPLETION_INDEX="$i" -e SLICES="$k" "$image" \
      "${argv[0]}" "${argv[1]}" "$1" >"$work/slice-$i.log" 2>&1 &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do wait "${pids[i]}" || rc=1; done
  docker rm -f -v "${names[@]}" >/dev/null 2>&1 || true
  names=()
  return "$rc"
}
script="${argv[2]}"
mode=strict
t0=$SECONDS
if ! grade_slices "$script"; then
  grep -q 'grading refused' "$work"/slice-*.log || { tail -n 20 "$work"/slice-*.log >&2; fail "a slice failed"; }
  log "strict isolation cannot be set up in these containers: $(grep -h -m1 -- '  - ' "$work"/slice-*.log | head -n1)"
  log "so BOTH runs below grade with --isolation=best-effort (added to the Job's command here only)"
  mode=best-effort
  script="${script//agx autograde /agx autograde --isolation=best-effort }"
  rm -rf "$work"/grading/gradebook-*
  grade_slices "$script" || { tail -n 20 "$work"/slice-*.log >&2; fail "a slice failed"; }
fi
log "$k slices graded in parallel in $((SECONDS - t0)) s ($mode isolation)"
"$work/agx" gradebook merge -o "$work/grading/merged" "$work"/grading/gradebook-* >"$work/merge.log" 2>&1 ||
  { cat "$work/merge.log" >&2; fail "agx gradebook merge failed"; }

# One machine: the same image, flags and isolation, the whole class in one run.
t0=$SECONDS
iso=()
[[ "$mode" == strict ]] || iso=(--isolation=best-effort)
names+=("agx-job-one-$$")
"${run[@]}" --name "agx-job-one-$$" "$image" agx autograde "${iso[@]}" --source /opt/agx/notebooks/exercises/gelu.ipynb \
  --assignment gelu -j 2 -o /grading/one /grading/submitted >"$work/one.log" 2>&1 ||
  { tail -n 20 "$work/one.log" >&2; fail "grading the class in one container failed"; }
log "the class graded in one container in $((SECONDS - t0)) s"

cmp -s "$work/grading/merged/grades.csv" "$work/grading/one/grades.csv" ||
  fail "grades.csv differs: merged slices
$(cat "$work/grading/merged/grades.csv")
one container
$(cat "$work/grading/one/grades.csv")"
"$SYSTEM_PYTHON" - "$work/grading/merged" "$work/grading/one" <<'PY' || fail "the merged entries differ from one run's"
import glob, json, os, sys
def load(d):
    out = {}
    for p in sorted(glob.glob(os.path.join(d, "*.json"))):
        e = json.load(open(p))
        out[e["student"]] = (e["status"], e["score"], e["max_score"], e["run"].get("isolation_mode"),
                             [(c["grade_id"], c["points"], c["status"]) for c in e["cells"]], sorted(f["kind"] for f in e["flags"]))
    return out
m, o = load(sys.argv[1]), load(sys.argv[2])
for s in sorted(set(m) | set(o)):
    print(f"  {s:6} merged {m.get(s, '-')[:3]}  one run {o.get(s, '-')[:3]}", file=sys.stderr)
sys.exit(0 if m == o and sorted(m) == ["alice", "bob", "carol", "frank"] else 1)
PY
[[ "$(awk -F, '$1 == "alice" || $1 == "bob" {print ($3 >= $4)}' "$work/grading/one/grades.csv")" == $'1\n1' ]] ||
  fail "the solution did not get full marks: $(cat "$work/grading/one/grades.csv")"
log "PASS: $k slices, merged, equal the one-container run (grades.csv byte for byte; $mode isolation)"
