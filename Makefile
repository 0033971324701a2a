# agx: `make test` installs what the checks need and runs them; `make lab` starts
# Jupyter with the Go (agx) kernel on notebooks/. Both install only what is
# missing (see docker/scripts/ and docs/lab.md).
SHELL := /bin/bash
SCRIPTS := docker/scripts
SHELL_SCRIPTS := $(wildcard $(SCRIPTS)/*.sh) $(SCRIPTS)/agx-kernel $(SCRIPTS)/kernel-bin/go .ci/run $(wildcard gpu/scripts/*.sh)

.PHONY: openblas class-test gpu-test test deps deps-test lab shellcheck test-install test-docker-install docker-lint fmt-check race fuzz notebooks bench image image-cuda image-grader

# Packages with fuzz targets, and how long each target runs in `make test`.
FUZZ_PKGS := ./tensor
# A count, not a duration: a time-limited fuzz run can end with a spurious
# "context deadline exceeded" failure when the deadline hits mid-input.
FUZZTIME ?= 60000x
# Executed copies of the notebooks go here (outside the source tree).
NB_OUT ?= $(shell mktemp -d -t agx-notebooks-XXXXXX)

test: deps-test
	$(MAKE) fmt-check
	go vet ./...
	go test ./...
	$(MAKE) race
	$(MAKE) openblas
	$(MAKE) fuzz
	shellcheck $(SHELL_SCRIPTS)
	$(SCRIPTS)/test-install.sh
	$(SCRIPTS)/test-docker-install.sh
	$(MAKE) docker-lint
	$(MAKE) gpu-test
	$(MAKE) class-test
	$(MAKE) notebooks

fmt-check:
	@out="$$(gofmt -l $$(git ls-files '*.go'))"; if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# The engine and the tensor package under the race detector.
race:
	go test -race ./tensor/... ./agx/...

# Every fuzz target briefly (its seed corpus also runs in plain `go test`).
fuzz:
	@set -e; for pkg in $(FUZZ_PKGS); do \
	  for f in $$(go test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "fuzz $$pkg $$f ($(FUZZTIME))"; \
	    go test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

# Every course notebook, headless through the Go (agx) kernel, with its checks.
notebooks:
	go run ./cmd/agx run -o $(NB_OUT) $$(ls notebooks/*.ipynb notebooks/exercises/*.ipynb 2>/dev/null | grep -v '\.executed\.ipynb$$')

# Benchmarks (not part of `make test`); see bench/README.md.
bench:
	go test -run '^$$' -bench . -benchmem ./tensor/ ./agx/ ./functions/

# Jupyter, GoNB + goimports, the kernelspec.
deps:
	$(SCRIPTS)/install-all.sh

# deps + PyTorch/NumPy/OpenBLAS (reference checks) + shellcheck.
deps-test:
	AGX_WITH_TEST_DEPS=1 $(SCRIPTS)/install-all.sh

# LAB_IP, LAB_PORT, JUPYTER_TOKEN are read from the environment.
lab:
	$(SCRIPTS)/lab.sh

shellcheck:
	shellcheck $(SHELL_SCRIPTS)

test-install:
	$(SCRIPTS)/test-install.sh

# The lab image's install steps rehearsed on the host, into a temporary prefix.
# (The Dockerfile itself is checked statically by internal/dockercheck in `go test`.)
test-docker-install:
	$(SCRIPTS)/test-docker-install.sh

# BuildKit's own Dockerfile checks (`docker build --check` rules), offline, every
# target, CPU and CUDA base (docker/lint is a separate module: BuildKit stays out of go.mod).
docker-lint:
	cd docker/lint && go run . ../Dockerfile ../versions.env

# The lab images (need a Docker engine; see docs/docker.md). IMAGE sets the name.
IMAGE ?= agx-lab
CUDA_BASE_IMAGE = $(shell sed -n 's/^CUDA_BASE_IMAGE=//p' docker/versions.env)

image:
	docker build -f docker/Dockerfile --target lab -t $(IMAGE):cpu .

image-cuda:
	docker build -f docker/Dockerfile --target lab -t $(IMAGE):cuda \
	  --build-arg BASE_IMAGE=$(CUDA_BASE_IMAGE) --build-arg AGX_GPU=1 .

image-grader:
	docker build -f docker/Dockerfile --target grader -t $(IMAGE):grader .

# CUDA backend checks without a GPU (docs/gpu.md): build/vet with -tags cuda against
# Debian's CUDA headers and stubs, kernels through NVRTC for compute_80/90, the host
# emulator running the conformance suite, TSan/ASan. AGX_GPU_SKIP_SDK=1 skips the
# steps that need the CUDA packages.
gpu-test:
	gpu/scripts/test-gpu.sh

# The grading bar: a class of 30 copies of the GELU exercise graded in one
# command, in parallel, twice, with identical gradebooks (docs/grading.md).
class-test:
	AGX_TEST_FULL_CLASS=1 go test -count=1 -run TestAutogradeFullClass -timeout 20m ./cmd/agx/

# The OpenBLAS build (cgo to Debian's libopenblas through gonum.org/v1/netlib;
# docs/performance.md). The default build stays pure Go.
openblas:
	go vet -tags openblas ./...
	go test -tags openblas ./tensor/
