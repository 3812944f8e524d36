# The two commands of the README, and the steps they stand on.
.PHONY: demo test deps binaries web

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

deps: node_modules/.installed

binaries:
	tools/kube/build.sh

web: deps
	npm run build:web

# Local control plane + operator + server, a platform installed until Running, the UI's address.
demo: deps binaries web
	bin/slipway dev demo

# Type-check, lint, unit tests, then integration and end-to-end tests on a real local control plane.
test: deps binaries
	npm run typecheck
	npm run lint
	npm test
