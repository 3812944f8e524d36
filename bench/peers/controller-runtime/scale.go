package main

import (
	"context"
	"net/http"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// The kinds bench/scale.ts creates in every namespace whose peer work is a status write (observe); Runs
// (submit, runs.go) and ImageBuilds (reuse, builds.go) do what Slipway does for them.
var observedKinds = []schema.GroupVersionKind{
	{Group: "pipelines.slipway.dev", Version: "v1beta1", Kind: "Provider"},
	pipelineKind,
	{Group: "pipelines.slipway.dev", Version: "v1beta1", Kind: "RunSchedule"},
}

// observe is the peer's minimal work on the kinds whose Slipway work on kwok is a status write: an object whose status.observedGeneration is not its
// generation gets one status write (server-side apply of status.observedGeneration); any other object
// costs nothing but the read from the cache. Every status Slipway wrote carries observedGeneration, so
// the peer writes nothing for what Slipway already reconciled and once for each new object.
type observe struct {
	client client.Client
	kind   schema.GroupVersionKind
	writes *atomic.Int64
}

func (o *observe) object() *unstructured.Unstructured {
	object := &unstructured.Unstructured{}
	object.SetGroupVersionKind(o.kind)
	return object
}

func (o *observe) Reconcile(ctx context.Context, request reconcile.Request) (reconcile.Result, error) {
	object := o.object()
	if err := o.client.Get(ctx, request.NamespacedName, object); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	observed, found, _ := unstructured.NestedInt64(object.Object, "status", "observedGeneration")
	if found && observed == object.GetGeneration() {
		return reconcile.Result{}, nil
	}
	status := o.object()
	status.SetName(request.Name)
	status.SetNamespace(request.Namespace)
	status.Object["status"] = map[string]any{"observedGeneration": object.GetGeneration()}
	if err := o.client.Status().Patch(ctx, status, client.Apply, client.FieldOwner("bench-peer"), client.ForceOwnership); err != nil {
		return reconcile.Result{}, err
	}
	o.writes.Add(1)
	return reconcile.Result{}, nil
}

type scaleFigures struct {
	Writes int64 `json:"writes"`
}

// scale runs one controller per kind (`concurrency` workers each, objects read from the cache) with
// controller-runtime's metrics on `metricsAddress` (the bench scrapes them as it scrapes Slipway's),
// until SIGTERM; then prints the writes it made (status writes and Workflow applies). ImageBuilds' images
// are looked up in `registry` without credentials, as the bench's Slipway is configured.
func scale(kubeconfig, metricsAddress, registry string, concurrency int) (*scaleFigures, error) {
	config, err := restConfig(kubeconfig, &requestCounter{})
	if err != nil {
		return nil, err
	}
	mgr, err := ctrl.NewManager(config, manager.Options{
		Metrics:                metricsserver.Options{BindAddress: metricsAddress},
		HealthProbeBindAddress: "0",
		Client:                 client.Options{Cache: &client.CacheOptions{Unstructured: true}},
		Cache:                  cache.Options{ByObject: map[client.Object]cache.ByObject{unstructuredOf(workflowKind): {Transform: withoutSpec}}},
	})
	if err != nil {
		return nil, err
	}
	var writes atomic.Int64
	// 50,000 Workflows and Runs take longer to list than controller-runtime's default 2 minutes on a
	// busy two-core machine; Slipway's informers wait for their lists as long as they take
	options := controller.Options{MaxConcurrentReconciles: concurrency, CacheSyncTimeout: 15 * time.Minute}
	runs := &submit{client: mgr.GetClient(), writes: &writes}
	err = ctrl.NewControllerManagedBy(mgr).Named("scale-Run").For(unstructuredOf(runKind)).
		Watches(unstructuredOf(workflowKind), handler.EnqueueRequestsFromMapFunc(runOfWorkflow)).
		WithOptions(options).Complete(runs)
	if err != nil {
		return nil, err
	}
	builds := &reuse{client: mgr.GetClient(), registry: registry, anonymous: true, http: &http.Client{}, onWrite: func() { writes.Add(1) }}
	err = ctrl.NewControllerManagedBy(mgr).Named("scale-ImageBuild").For(newImageBuild()).WithOptions(options).Complete(builds)
	if err != nil {
		return nil, err
	}
	for _, kind := range observedKinds {
		reconciler := &observe{client: mgr.GetClient(), kind: kind, writes: &writes}
		err := ctrl.NewControllerManagedBy(mgr).
			Named("scale-" + kind.Kind).
			For(reconciler.object()).
			WithOptions(options).
			Complete(reconciler)
		if err != nil {
			return nil, err
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := mgr.Start(ctx); err != nil {
		return nil, err
	}
	return &scaleFigures{Writes: writes.Load()}, nil
}
