# The two commands of the README, and the steps they stand on.
.PHONY: demo test check deps binaries

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

deps: node_modules/.installed

binaries:
	tools/kube/build.sh

# Brings up the local control plane and shows it working.
demo: deps binaries
	bin/slipway dev demo

# Type-check, lint, unit tests, then integration and end-to-end tests on a real local control plane.
test: deps binaries
	npm run typecheck
	npm run lint
	npm test
