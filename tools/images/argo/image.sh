# shellcheck shell=bash
# quay.io/argoproj/workflow-controller:<version> and quay.io/argoproj/argoexec:<version>: Argo Workflows'
# controller and executor from its Go module github.com/argoproj/argo-workflows/v4 (no `replace`
# directives; built in a copy of the downloaded module, see argo_source), with the version variables its
# Makefile sets. Each image holds what Argo's Dockerfile puts on distroless/static:
# CA certificates, /etc/passwd (root, nonroot), /tmp, tzdata, /etc/nsswitch.conf and
# /etc/ssh/ssh_known_hosts from the module's hack/, /etc/mime.types, the binary in /bin as
# the entrypoint (the CA bundle, tzdata and mime.types from Debian's ca-certificates, tzdata and media-types
# at the versions of tools/images/debian.lock); the controller runs as uid 8737, argoexec as root (the `argoexec` target, not
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

# The module as the proxy serves it lacks workflow/executor/osspecific/signal_linux.go: in the repository
# it is a symlink to signal_darwin.go, and module zips leave symlinks out, so argoexec does not compile
# for Linux from it (and go refuses an -overlay of the module cache). A writable copy of the module gets
# the file back with the content the symlink points at; its dependencies come from the module cache.
argo_source() {
  local module_dir=$1 work=$2 file=workflow/executor/osspecific/signal
  cp -r "$module_dir/." "$work"
  chmod -R u+w "$work"
  [ -e "$work/${file}_linux.go" ] || cp "$work/${file}_darwin.go" "$work/${file}_linux.go"
}

# argo_binaries VERSION: builds workflow-controller and argoexec unless cached; prints their directory
argo_binaries() {
  local version=$1 out="$cache/bin/argo-$1" module_dir built_at flags name
  if [ ! -x "$out/workflow-controller" ] || [ ! -x "$out/argoexec" ]; then
    module_dir=$(argo_module_dir "$version")
    built_at=$(go list -m -f '{{.Time.UTC.Format "2006-01-02T15:04:05Z"}}' "$ARGO_MODULE@$version")
    ! grep -q '^replace' "$module_dir/go.mod" || fail "argo: $ARGO_MODULE@$version has replace directives"
    flags="-s -w -X $ARGO_MODULE.version=$version -X $ARGO_MODULE.buildDate=${built_at:-1970-01-01T00:00:00Z}"
    flags+=" -X $ARGO_MODULE.gitCommit=${ARGO_COMMITS[$version]} -X $ARGO_MODULE.gitTag=$version"
    flags+=" -X $ARGO_MODULE.gitTreeState=clean"
    log "argo: building workflow-controller and argoexec $version (several minutes on two cores)"
    rm -rf "$out.tmp" && mkdir -p "$out.tmp/src"
    argo_source "$module_dir" "$out.tmp/src"
    for name in workflow-controller argoexec; do
      (cd "$out.tmp/src" && go build -trimpath -ldflags "$flags" -o "$out.tmp/$name" "./cmd/$name") >&2
    done
    rm -rf "$out.tmp/src" "$out" && mv "$out.tmp" "$out"
  fi
  printf '%s' "$out"
}

argo_module_dir() {
  local dir
  dir=$(go mod download -json "$ARGO_MODULE@$1" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  [ -d "$dir" ] || fail "argo: go mod download $ARGO_MODULE@$1 gave no directory"
  printf '%s' "$dir"
}

# argo_image NAME REF USER: the image of one of the binaries
argo_image() {
  local name=$1 image=$2 user=$3 version binaries module_dir hash dir
  version=$(argo_version)
  require_tag "$name" "$image" "$version"
  binaries=$(argo_binaries "$version")
  module_dir=$(argo_module_dir "$version")
  hash=$( (files_digest tools/images/lib.sh tools/images/debian.sh tools/images/argo/image.sh; lock_lines argo
    cat "$binaries/$name" "$module_dir/hack/nsswitch.conf" "$module_dir/hack/ssh_known_hosts" | digest) | digest)
  if ! cached "$name" "$hash"; then
    log "$name: building $image"
    dir=$(staging "$name")
    base_files "$dir" nonroot:65532:65532:/home/nonroot
    argo_debian_files "$dir" "$(staging "$name-debs")"
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

# argo_debian_files DIR SCRATCH: distroless/static's Debian files, from the lock's packages (`image argo:`
# in tools/setup/debian-packages.txt) unpacked in SCRATCH: the CA bundle, zoneinfo, mime.types
argo_debian_files() {
  local dir=$1 unpacked=$2
  debs_extract "$unpacked" argo
  ca_bundle "$unpacked"
  mkdir -p "$dir/etc/ssl/certs" "$dir/usr/share"
  cp "$unpacked/etc/ssl/certs/ca-certificates.crt" "$dir/etc/ssl/certs/"
  cp -a "$unpacked/usr/share/zoneinfo" "$dir/usr/share/"
  cp "$unpacked/etc/mime.types" "$dir/etc/"
  rm -rf "$unpacked"
}

workflow_controller_image() { argo_image workflow-controller "$1" 8737; }
argoexec_image() { argo_image argoexec "$1" 0; }
