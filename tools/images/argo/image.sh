# shellcheck shell=bash
# quay.io/argoproj/workflow-controller:<version> and quay.io/argoproj/argoexec:<version>: Argo Workflows'
# controller and executor from its Go module github.com/argoproj/argo-workflows/v4 (no `replace`
# directives, so `go install module/cmd/...@version` builds them as published), with the version
# variables its Makefile sets. Each image holds what Argo's Dockerfile puts on distroless/static:
# CA certificates, /etc/passwd (root, nonroot), /tmp, tzdata, /etc/nsswitch.conf and
# /etc/ssh/ssh_known_hosts from the module's hack/, /etc/mime.types, the binary in /bin as
# the entrypoint; the controller runs as uid 8737, argoexec as root (the `argoexec` target, not
# `argoexec-nonroot`). argoexec needs nothing else: its init container copies it into the step
# container's /var/run/argo as the emissary, which runs the step and saves its outputs.
# The binaries are cached by version in $SLIPWAY_CACHE/bin/argo-<version>/.
ARGO_MODULE=github.com/argoproj/argo-workflows/v4
# the commit of the v4.0.5 tag (the module proxy serves the tag's time, not its commit)
declare -A ARGO_COMMITS=([v4.0.5]=0ab1452144d8f4d57c50b37ce50dad218868e950)

argo_version() {
  local version
  # shellcheck source=../../setup/argo-workflows.env
  version=$(source "$root/tools/setup/argo-workflows.env" && printf '%s' "$ARGO_WORKFLOWS_VERSION")
  [ -n "${ARGO_COMMITS[$version]:-}" ] || fail "argo: no commit known for $version (ARGO_COMMITS in tools/images/argo/image.sh)"
  printf '%s' "$version"
}

# argo_binaries VERSION: builds workflow-controller and argoexec unless cached; prints their directory
argo_binaries() {
  local version=$1 out="$cache/bin/argo-$1" module_dir built_at flags
  if [ ! -x "$out/workflow-controller" ] || [ ! -x "$out/argoexec" ]; then
    module_dir=$(go mod download -json "$ARGO_MODULE@$version" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
    built_at=$(go mod download -json "$ARGO_MODULE@$version" | sed -n 's/.*"Time": "\(.*\)".*/\1/p')
    [ -n "$module_dir" ] || fail "argo: go mod download $ARGO_MODULE@$version gave no directory"
    ! grep -q '^replace' "$module_dir/go.mod" || fail "argo: $ARGO_MODULE@$version has replace directives: go install cannot build it"
    flags="-s -w -X $ARGO_MODULE.version=$version -X $ARGO_MODULE.buildDate=${built_at:-1970-01-01T00:00:00Z}"
    flags+=" -X $ARGO_MODULE.gitCommit=${ARGO_COMMITS[$version]} -X $ARGO_MODULE.gitTag=$version"
    flags+=" -X $ARGO_MODULE.gitTreeState=clean"
    log "argo: building workflow-controller and argoexec $version (several minutes on two cores)"
    mkdir -p "$out.tmp"
    GOBIN="$out.tmp" go install -trimpath -ldflags "$flags" \
      "$ARGO_MODULE/cmd/workflow-controller@$version" "$ARGO_MODULE/cmd/argoexec@$version" >&2
    rm -rf "$out" && mv "$out.tmp" "$out"
  fi
  printf '%s' "$out"
}

# argo_image NAME REF USER: the image of one of the binaries
argo_image() {
  local name=$1 image=$2 user=$3 version binaries module_dir hash dir
  version=$(argo_version)
  require_tag "$name" "$image" "$version"
  binaries=$(argo_binaries "$version")
  module_dir=$(go mod download -json "$ARGO_MODULE@$version" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  hash=$( (files_digest tools/images/lib.sh tools/images/argo/image.sh
    host_digest "$binaries/$name" /etc/ssl/certs/ca-certificates.crt /etc/mime.types "$module_dir/hack/nsswitch.conf" \
      "$module_dir/hack/ssh_known_hosts"; dpkg-query -W tzdata) | digest)
  if ! cached "$name" "$hash"; then
    log "$name: building $image"
    dir=$(staging "$name")
    base_files "$dir" nonroot:65532:65532:/home/nonroot
    copy_host "$dir" /etc/ssl/certs/ca-certificates.crt /usr/share/zoneinfo /etc/mime.types
    mkdir -p "$dir/bin" "$dir/etc/ssh"
    cp "$module_dir/hack/nsswitch.conf" "$dir/etc/nsswitch.conf"
    cp "$module_dir/hack/ssh_known_hosts" "$dir/etc/ssh/ssh_known_hosts"
    cp "$binaries/$name" "$dir/bin/$name"
    chmod -R u+w "$dir/etc"
    commit_scratch "$image" "$ARCHIVE" "$dir" --entrypoint "[\"$name\"]" --user "$user" \
      --env PATH=/usr/local/bin:/usr/bin:/bin --env SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
  fi
  echo "$image $ARCHIVE"
}

workflow_controller_image() { argo_image workflow-controller "$1" 8737; }
argoexec_image() { argo_image argoexec "$1" 0; }
