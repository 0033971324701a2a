#!/usr/bin/env bash
# The CUDA variant's toolkit (docker/Dockerfile with AGX_GPU=1), from Debian's own
# CUDA packages (non-free), into an image of Debian 13. What the gpu backend
# (gorgonia.org/cu with -tags cuda) needs, and nothing of the GPU driver:
#
#   - at run time: cuBLAS and NVRTC (libcublas12, libnvrtc12 and its builtins),
#     installed as packages. libcuda.so.1 is NOT installed: it belongs to the host's
#     driver, and the NVIDIA Container Toolkit mounts it (with nvidia-smi) when the
#     container is started with --gpus;
#   - at build time: the CUDA headers and the link-time stub libraries (libcuda.so,
#     libcublas.so, ...) taken out of the nvidia-cuda-dev package without installing
#     it (installed, it and its dependencies take over 5 GB and pull in libcuda1, the
#     driver's library). The headers go where that package puts them, /usr/include
#     (gcc's default; gorgonia.org/cu/nvrtc's cgo flags name no include directory that
#     applies on Linux), with libcu++-dev (<nv/target>, which cuda_fp16.h includes) and
#     the unversioned libnvrtc.so; the stubs go to $AGX_CUDA_PREFIX/lib64 (default
#     /usr/local/cuda/lib64), where gorgonia.org/cu's -L flags look. The stubs are for
#     the linker only; nothing puts that directory on the loader's path.
#
# It adds the contrib and non-free components to the image's Debian sources (the
# same mirror and suites), so it is meant for an image build, as root.
set -euo pipefail

prefix="${AGX_CUDA_PREFIX:-/usr/local/cuda}"
# The CUDA release of Debian 13's non-free archive; its NVRTC builtins package is
# named after it.
cuda="${AGX_CUDA_DEBIAN:-12.4}"
say() { printf '[agx] %s\n' "$*" >&2; }
die() { printf '[agx] error: %s\n' "$*" >&2; exit 1; }

[[ "$(id -u)" == 0 ]] || die "install-cuda.sh changes the apt sources and installs packages: run it as root (it is meant for docker/Dockerfile)"
multiarch="$(gcc -dumpmachine 2>/dev/null)" || die "gcc is needed (cgo links the gpu backend)"

# contrib and non-free next to main, in both source formats (deb822 .sources files,
# one-line sources.list files).
shopt -s nullglob
changed=0
for f in /etc/apt/sources.list.d/*.sources; do
  sed -i -E '/^Components:/{/ contrib( |$)/! s/$/ contrib/; / non-free( |$)/! s/$/ non-free/}' "$f"
  changed=1
done
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
  [[ -f "$f" ]] || continue
  sed -i -E '/^deb /{/ contrib( |$)/! s/$/ contrib/; / non-free( |$)/! s/$/ non-free/}' "$f"
  changed=1
done
shopt -u nullglob
((changed)) || die "no apt sources found to add the non-free component to"

apt-get update -q
runtime=(libcublas12 libnvrtc12 "libnvrtc-builtins$cuda" libcu++-dev)
apt-get install -y -q --no-install-recommends "${runtime[@]}" ||
  die "could not install ${runtime[*]} (is the base image Debian 13, whose non-free archive has CUDA $cuda?)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
chown _apt "$work" 2>/dev/null || true # apt downloads as _apt where it can
(cd "$work" && apt-get download -q nvidia-cuda-dev) || die "could not download nvidia-cuda-dev"
deb=("$work"/nvidia-cuda-dev_*.deb)
[[ -f "${deb[0]}" ]] || die "apt-get download left no nvidia-cuda-dev .deb"
version="$(dpkg-deb -f "${deb[0]}" Version)"
[[ "$version" == "$cuda".* ]] || die "nvidia-cuda-dev is $version, not CUDA $cuda (set AGX_CUDA_DEBIAN to match the archive)"
mkdir -p "$work/root"
dpkg-deb --fsys-tarfile "${deb[0]}" |
  tar -x -C "$work/root" --wildcards './usr/include/*' "./usr/lib/$multiarch/stubs/*"
rm -f "${deb[0]}"

mkdir -p "$prefix/lib64"
cp -a --no-clobber "$work/root/usr/include/." /usr/include/
cp -a "$work/root/usr/lib/$multiarch/stubs/." "$prefix/lib64/"
# -lnvrtc at link time: the real library (NVRTC has no stub), through the
# unversioned name that only the -dev package would provide, in the linker's
# default directory.
ln -sfn "libnvrtc.so.12" "/usr/lib/$multiarch/libnvrtc.so"
for h in cuda.h cublas_v2.h nvrtc.h nv/target; do
  [[ -f "/usr/include/$h" ]] || die "no /usr/include/$h after unpacking nvidia-cuda-dev $version"
done
for l in "$prefix/lib64/libcuda.so" "$prefix/lib64/libcublas.so" "/usr/lib/$multiarch/libnvrtc.so"; do
  [[ -e "$l" ]] || die "no $l after unpacking nvidia-cuda-dev $version"
done
# What the gpu backend's cgo compiles against: the three headers, preprocessed.
printf '#include <cuda.h>\n#include <cublas_v2.h>\n#include <nvrtc.h>\n' |
  gcc -E -x c - -o /dev/null || die "the CUDA headers do not preprocess"
rm -rf /var/lib/apt/lists/*
say "CUDA $version from Debian: headers in /usr/include, link stubs in $prefix/lib64, cuBLAS and NVRTC installed; the driver (libcuda.so.1) comes from the host at run time"
