package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

var imageBuildKind = schema.GroupVersionKind{Group: "builds.slipway.dev", Version: "v1beta1", Kind: "ImageBuild"}

// reuse is the peer of the ImageBuild controller's reuse path: an ImageBuild whose image already exists
// costs one registry HEAD (basic auth from the namespace's docker config Secret, read from the cache) and
// one status write (server-side apply: Succeeded, reused, the digest). It writes nothing for a build that
// already has a phase.
type reuse struct {
	client   client.Client
	registry string
	// no registry credentials: the HEAD is sent without them (the scale bench's registry takes none)
	anonymous bool
	http      *http.Client
	onWrite   func()
	heads     atomic.Int64
	// how long each registry HEAD and each status write took
	headTimes, writeTimes latencies
}

func newImageBuild() *unstructured.Unstructured {
	build := &unstructured.Unstructured{}
	build.SetGroupVersionKind(imageBuildKind)
	return build
}

func (r *reuse) Reconcile(ctx context.Context, request reconcile.Request) (reconcile.Result, error) {
	build := newImageBuild()
	if err := r.client.Get(ctx, request.NamespacedName, build); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if phase, _, _ := unstructured.NestedString(build.Object, "status", "phase"); phase != "" {
		return reconcile.Result{}, nil
	}
	project, _, _ := unstructured.NestedString(build.Object, "spec", "project")
	name, _, _ := unstructured.NestedString(build.Object, "spec", "name")
	version, _, _ := unstructured.NestedString(build.Object, "spec", "version")
	auth := ""
	if !r.anonymous {
		var err error
		if auth, err = r.registryAuth(ctx, request.Namespace); err != nil {
			return reconcile.Result{}, err
		}
	}
	repository := project + "-" + name
	digest, err := r.manifestDigest(ctx, auth, repository, version)
	if err != nil {
		return reconcile.Result{}, err
	}
	image := fmt.Sprintf("%s/%s:%s", r.registry, repository, version)
	if err := r.writeSucceeded(ctx, request, build.GetGeneration(), image, digest); err != nil {
		return reconcile.Result{}, err
	}
	r.onWrite()
	return reconcile.Result{}, nil
}

// registryAuth is the registry's basic auth from the namespace's registry-creds Secret (a docker config).
func (r *reuse) registryAuth(ctx context.Context, namespace string) (string, error) {
	secret := &corev1.Secret{}
	if err := r.client.Get(ctx, types.NamespacedName{Namespace: namespace, Name: "registry-creds"}, secret); err != nil {
		return "", err
	}
	var config struct {
		Auths map[string]struct {
			Auth string `json:"auth"`
		} `json:"auths"`
	}
	if err := json.Unmarshal(secret.Data[corev1.DockerConfigJsonKey], &config); err != nil {
		return "", err
	}
	entry, found := config.Auths[r.registry]
	if !found {
		return "", fmt.Errorf("registry-creds has no auth for %s", r.registry)
	}
	if _, err := base64.StdEncoding.DecodeString(entry.Auth); err != nil {
		return "", err
	}
	return "Basic " + entry.Auth, nil
}

func (r *reuse) manifestDigest(ctx context.Context, auth, repository, version string) (string, error) {
	url := fmt.Sprintf("http://%s/v2/%s/manifests/%s", r.registry, repository, version)
	request, err := http.NewRequestWithContext(ctx, http.MethodHead, url, nil)
	if err != nil {
		return "", err
	}
	if auth != "" {
		request.Header.Set("Authorization", auth)
	}
	request.Header.Set("Accept", "application/vnd.oci.image.manifest.v1+json")
	r.heads.Add(1)
	start := time.Now()
	response, err := r.http.Do(request)
	r.headTimes.since(start)
	if err != nil {
		return "", err
	}
	_ = response.Body.Close()
	digest := response.Header.Get("Docker-Content-Digest")
	if response.StatusCode != http.StatusOK || digest == "" {
		return "", fmt.Errorf("HEAD %s: %d, no digest", url, response.StatusCode)
	}
	return digest, nil
}

func (r *reuse) writeSucceeded(ctx context.Context, request reconcile.Request, generation int64, image, digest string) error {
	now := time.Now().UTC().Format(time.RFC3339)
	status := newImageBuild()
	status.SetName(request.Name)
	status.SetNamespace(request.Namespace)
	status.Object["status"] = map[string]any{
		"phase": "Succeeded", "image": image, "digest": digest, "reused": true,
		"message": "already exists", "observedGeneration": generation, "completedAt": now,
		"conditions": []any{map[string]any{
			"type": "Succeeded", "status": "True", "reason": "Reused", "message": "already exists",
			"observedGeneration": generation, "lastTransitionTime": now,
		}},
	}
	start := time.Now()
	defer r.writeTimes.since(start)
	return r.client.Status().Patch(ctx, status, client.Apply, client.FieldOwner("bench-peer"), client.ForceOwnership)
}

// buildsFigures: seconds from the manager's start to the last status written; the API requests it
// made meanwhile (writes: every non-GET; reads: GETs other than the informers' lists and watches); the
// registry HEADs; the process's CPU seconds (user + system) until then; how long the HEADs and the
// status writes took (median and sum).
type buildsFigures struct {
	Seconds       float64        `json:"seconds"`
	CPUSeconds    float64        `json:"cpu_seconds"`
	Writes        int64          `json:"writes"`
	Reads         int64          `json:"reads"`
	RegistryHeads int64          `json:"registry_heads"`
	Heads         latencyFigures `json:"head"`
	StatusWrites  latencyFigures `json:"status_write"`
}

// reuseAll runs the reuse controller on one namespace from Start until `builds` statuses are written.
func reuseAll(kubeconfig, namespace, registry string, builds, concurrency int) (*buildsFigures, error) {
	requests := &requestCounter{listSuffixes: []string{"/imagebuilds", "/secrets"}}
	config, err := restConfig(kubeconfig, requests)
	if err != nil {
		return nil, err
	}
	mgr, err := ctrl.NewManager(config, manager.Options{
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{namespace: {}}},
		Client:                 client.Options{Cache: &client.CacheOptions{Unstructured: true}},
	})
	if err != nil {
		return nil, err
	}
	var written atomic.Int64
	done := make(chan struct{})
	reconciler := &reuse{client: mgr.GetClient(), registry: registry, http: &http.Client{}, onWrite: func() {
		if written.Add(1) == int64(builds) {
			close(done)
		}
	}}
	err = ctrl.NewControllerManagedBy(mgr).Named("imagebuild-reuse").For(newImageBuild()).
		WithOptions(controller.Options{MaxConcurrentReconciles: concurrency}).Complete(reconciler)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	seconds, err := startUntil(ctx, mgr, done)
	if err != nil {
		return nil, err
	}
	return &buildsFigures{
		Seconds: seconds, CPUSeconds: cpuSeconds(), Writes: requests.writes.Load(), Reads: requests.reads.Load(), RegistryHeads: reconciler.heads.Load(),
		Heads: reconciler.headTimes.figures(), StatusWrites: reconciler.writeTimes.figures(),
	}, nil
}
