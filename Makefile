# agx: `make test` installs what the checks need and runs them; `make lab` starts
# Jupyter with the Go (agx) kernel on notebooks/. Both install only what is
# missing (see docker/scripts/ and docs/lab.md).
SHELL := /bin/bash
SCRIPTS := docker/scripts
SHELL_SCRIPTS := $(wildcard $(SCRIPTS)/*.sh) $(SCRIPTS)/agx-kernel $(SCRIPTS)/kernel-bin/go .ci/run

.PHONY: test deps deps-test lab shellcheck test-install

test: deps-test
	go vet ./...
	go test ./...
	shellcheck $(SHELL_SCRIPTS)
	$(SCRIPTS)/test-install.sh

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
