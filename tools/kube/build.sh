#!/usr/bin/env bash
# Builds the local control plane's binaries from the Go module proxy into a version-keyed cache:
#   $SLIPWAY_CACHE/bin/<tool>-<version>/<binary>   (SLIPWAY_CACHE defaults to ~/.cache/slipway)
# A tool whose binaries are already there is skipped, so a warm run builds nothing.
# Modules with relative `replace` directives (k8s.io/kubernetes, etcd's server) cannot be `go install`ed:
# for each, a throwaway wrapper module is generated whose replaces point at the published versions.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=versions.env
source "$here/versions.env"
cache=${SLIPWAY_CACHE:-$HOME/.cache/slipway}
only=${1:-all}
mkdir -p "$cache"
# one build at a time per cache (tests, CI and a developer may all ask at once)
exec 9>"$cache/.build.lock"
flock 9
export GOFLAGS=-mod=mod GOTOOLCHAIN=local CGO_ENABLED=0

log() { printf '[tools/kube] %s\n' "$*" >&2; }

# published_version MODULE_PATH MAIN_VERSION: the version a relative replace should map to.
published_version() {
  case "$1" in
    k8s.io/*) echo "v0.${2#v1.}" ;; # staging repos are published as v0.<minor>.<patch>
    *) echo "$2" ;;                 # etcd's sub-modules carry the same tag as the server
  esac
}

# build TOOL_DIR MODULE VERSION LDFLAGS BINARY=PACKAGE...
build() {
  local dir=$1 module=$2 version=$3 ldflags=$4; shift 4
  local out="$cache/bin/$dir" spec missing=()
  # only the binaries not yet in the cache (a binary added to a tool's list builds alone)
  for spec in "$@"; do [ -x "$out/${spec%%=*}" ] || missing+=("$spec"); done
  if [ ${#missing[@]} = 0 ]; then log "$dir: cached in $out"; return; fi
  set -- "${missing[@]}"
  local work="$cache/src/$dir"
  rm -rf "$work" && mkdir -p "$work" "$out"
  local modfile
  modfile=$(cd "$work" && go mod download -json "$module@$version" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  {
    echo "module slipway.local/tools/$dir"
    echo
    grep -m1 '^go ' "$modfile"
    echo
    echo "require $module $version"
    # Every relative replace of the upstream go.mod, mapped to the published module of that path.
    awk '/^replace \(/{inblock=1; next} inblock && /^\)/{inblock=0} inblock || /^replace /{print}' "$modfile" |
      sed -e 's/^replace //' | awk '$2 == "=>" && $3 ~ /^\.\.?\// {print $1}' | while read -r dep; do
        # only modules upstream requires (etcd also "replaces" forbidden paths it never requires)
        grep -qE "^[[:space:]]*(require )?$dep v" "$modfile" || continue
        echo "replace $dep => $dep $(published_version "$dep" "$version")"
      done
  } >"$work/go.mod"
  echo 'package tools' >"$work/tools.go"
  log "$dir: building $module@$version ($*)"
  (cd "$work" && go mod download "$module" >/dev/null 2>&1 || true)
  for spec in "$@"; do
    (cd "$work" && go build -trimpath -ldflags "-s -w $ldflags" -o "$out/${spec%%=*}" "${spec#*=}")
  done
  log "$dir: done"
}

kube_ldflags() {
  local minor=${KUBE_VERSION#v1.}; minor=${minor%%.*}
  local p
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    printf -- '-X %s.gitVersion=%s -X %s.gitMajor=1 -X %s.gitMinor=%s -X %s.gitTreeState=clean ' \
      "$p" "$KUBE_VERSION" "$p" "$p" "$minor" "$p"
  done
}

case $only in all|kube)
  build "kubernetes-$KUBE_VERSION" k8s.io/kubernetes "$KUBE_VERSION" "$(kube_ldflags)" \
    kube-apiserver=k8s.io/kubernetes/cmd/kube-apiserver \
    kube-controller-manager=k8s.io/kubernetes/cmd/kube-controller-manager \
    kube-scheduler=k8s.io/kubernetes/cmd/kube-scheduler \
    kubectl=k8s.io/kubernetes/cmd/kubectl \
    kubelet=k8s.io/kubernetes/cmd/kubelet \
    kube-proxy=k8s.io/kubernetes/cmd/kube-proxy ;;
esac
case $only in all|etcd)
  build "etcd-$ETCD_VERSION" go.etcd.io/etcd/server/v3 "$ETCD_VERSION" "" \
    etcd=go.etcd.io/etcd/server/v3 ;;
esac
case $only in all|kwok)
  build "kwok-$KWOK_VERSION" sigs.k8s.io/kwok "$KWOK_VERSION" \
    "-X sigs.k8s.io/kwok/pkg/consts.Version=$KWOK_VERSION" kwok=sigs.k8s.io/kwok/cmd/kwok ;;
esac
case $only in all|coredns)
  # the real node's cluster DNS (issue 13); its go.mod has no relative replaces
  build "coredns-$COREDNS_VERSION" github.com/coredns/coredns "$COREDNS_VERSION" \
    "-X github.com/coredns/coredns/coremain.GitCommit=$COREDNS_VERSION" coredns=github.com/coredns/coredns ;;
esac
case $only in all|helm)
  build "helm-$HELM_VERSION" helm.sh/helm/v3 "$HELM_VERSION" \
    "-X helm.sh/helm/v3/internal/version.version=$HELM_VERSION" helm=helm.sh/helm/v3/cmd/helm ;;
esac
