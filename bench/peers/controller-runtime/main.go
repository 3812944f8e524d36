// The controller-runtime peer of bench/runtime.ts: the same reconciler (status.size := spec.size,
// written only when it differs) over the benchmark's Widget kind, written the way a Go operator
// would be, so `npm run bench -- runtime` can time Slipway's runtime against it in the same run.
//
//	peer reconcile KUBECONFIG OBJECTS CONCURRENCY   writes every Widget's status once; prints seconds, writes, reads
//	peer idle KUBECONFIG OBJECTS SECONDS            caches every Widget, reconciles each (no writes), idles; prints RSS and CPU
//	peer builds KUBECONFIG NAMESPACE REGISTRY BUILDS CONCURRENCY
//	                                                the ImageBuild reuse path (builds.go) until BUILDS statuses are written
//	peer scale KUBECONFIG METRICS_ADDRESS REGISTRY CONCURRENCY
//	                                                bench/scale.ts's kinds, Slipway's minimal work per new object (scale.go), until SIGTERM
//
// Each prints one JSON line on stdout.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

var widgetKind = schema.GroupVersionKind{Group: "bench.slipway.dev", Version: "v1", Kind: "Widget"}

func main() {
	log.SetLogger(discardLogger())
	if len(os.Args) == 7 && os.Args[1] == "builds" {
		builds, err := strconv.Atoi(os.Args[5])
		if err != nil {
			fail(err)
		}
		concurrency, err := strconv.Atoi(os.Args[6])
		if err != nil {
			fail(err)
		}
		figures, err := reuseAll(os.Args[2], os.Args[3], os.Args[4], builds, concurrency)
		if err != nil {
			fail(err)
		}
		printJSON(figures)
		return
	}
	if len(os.Args) == 6 && os.Args[1] == "scale" {
		concurrency, err := strconv.Atoi(os.Args[5])
		if err != nil {
			fail(err)
		}
		figures, err := scale(os.Args[2], os.Args[3], os.Args[4], concurrency)
		if err != nil {
			fail(err)
		}
		printJSON(figures)
		return
	}
	if len(os.Args) != 5 {
		fail(fmt.Errorf("usage: peer reconcile|idle KUBECONFIG N M"))
	}
	objects, err := strconv.Atoi(os.Args[3])
	if err != nil {
		fail(err)
	}
	last, err := strconv.Atoi(os.Args[4])
	if err != nil {
		fail(err)
	}
	var figures any
	switch os.Args[1] {
	case "reconcile":
		figures, err = reconcileAll(os.Args[2], objects, last)
	case "idle":
		figures, err = idle(os.Args[2], objects, time.Duration(last)*time.Second)
	default:
		err = fmt.Errorf("unknown mode %q", os.Args[1])
	}
	if err != nil {
		fail(err)
	}
	printJSON(figures)
}

func printJSON(figures any) {
	line, _ := json.Marshal(figures)
	fmt.Println(string(line))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "peer:", err)
	os.Exit(1)
}

// echo is the reconciler under test. onReconcile counts every call; onWrite every status write.
type echo struct {
	client      client.Client
	writes      bool
	onReconcile func()
	onWrite     func()
}

func newWidget() *unstructured.Unstructured {
	widget := &unstructured.Unstructured{}
	widget.SetGroupVersionKind(widgetKind)
	return widget
}

func (e *echo) Reconcile(ctx context.Context, request reconcile.Request) (reconcile.Result, error) {
	e.onReconcile()
	widget := newWidget()
	if err := e.client.Get(ctx, request.NamespacedName, widget); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	size, _, _ := unstructured.NestedInt64(widget.Object, "spec", "size")
	current, found, _ := unstructured.NestedInt64(widget.Object, "status", "size")
	if !e.writes || (found && current == size) {
		return reconcile.Result{}, nil
	}
	// the same write as Slipway's applyStatus: server-side apply of the status subresource, forced
	status := newWidget()
	status.SetName(request.Name)
	status.SetNamespace(request.Namespace)
	if err := unstructured.SetNestedField(status.Object, size, "status", "size"); err != nil {
		return reconcile.Result{}, err
	}
	if err := e.client.Status().Patch(ctx, status, client.Apply, client.FieldOwner("bench-peer"), client.ForceOwnership); err != nil {
		return reconcile.Result{}, err
	}
	e.onWrite()
	return reconcile.Result{}, nil
}

// newManager builds a manager whose every request is counted. The client-side rate limiter is off
// (QPS < 0), as the bench turns off Slipway's (clientRateLimit: false); metrics and health servers are off, as in the bench's
// Slipway Manager; reads of Widgets come from the informer cache, as Slipway's do (controller-runtime
// reads unstructured objects from the API server unless told to cache them).
func newManager(kubeconfig string, requests *requestCounter) (manager.Manager, error) {
	config, err := restConfig(kubeconfig, requests)
	if err != nil {
		return nil, err
	}
	return ctrl.NewManager(config, manager.Options{
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Client:                 client.Options{Cache: &client.CacheOptions{Unstructured: true}},
	})
}

// restConfig is the kubeconfig's REST config with every request counted and no client-side rate limit.
func restConfig(kubeconfig string, requests *requestCounter) (*rest.Config, error) {
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	config.QPS = -1
	config.Wrap(requests.wrap)
	return config, nil
}

func addEcho(mgr manager.Manager, concurrency int, reconciler *echo) error {
	reconciler.client = mgr.GetClient()
	return ctrl.NewControllerManagedBy(mgr).
		Named("widget-echo").
		For(newWidget()).
		WithOptions(controller.Options{MaxConcurrentReconciles: concurrency}).
		Complete(reconciler)
}
