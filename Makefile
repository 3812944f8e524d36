# The two commands of the README. Both start with the whole set-up (tools/setup/all.sh: Debian
# packages, npm packages, the Go-built tools, Argo's CRDs), which skips what is already there.
.PHONY: setup demo test web

setup:
	tools/setup/all.sh

web: setup
	npm run build:web

# Local control plane + operator + server. With the real node (the default; SLIPWAY_REAL_NODE=0 for
# kwok only): the newest release installed for real until Running, an image built by a buildah Job into the
# platform's registry, a pipeline run by Argo, then the UI's and MLflow's addresses. Without it (kwok
# only): the catalog's oldest release installed until Running, the UI's address and how to update.
demo: setup web
	bin/slipway dev demo

# Set-up, lint, type-check, unit tests, then integration and end-to-end tests on a real local control
# plane. The type-check runs while vitest's global setup starts the shared plane
# (SLIPWAY_TEST_BESIDE_START, test/support/global-setup.ts); its failure stops the run before the first
# test. Set-up, lint and the type-check are timed (tools/test/timed.sh) into $(phases); the summary
# reporter merges them into .slipway/test-report.json and prints them beside vitest's own wall time.
phases := .slipway/test-phases.jsonl
test: export SLIPWAY_TEST_PHASES := $(phases)
test:
	@mkdir -p $(dir $(phases)) && rm -f $(phases)
	tools/test/timed.sh set-up tools/setup/all.sh
	tools/test/timed.sh lint npm run lint
	SLIPWAY_TEST_BESIDE_START="tools/test/timed.sh typecheck npm run typecheck" npm test
