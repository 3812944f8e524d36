package main

import (
	"context"
	"sync/atomic"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/manager"
)

type reconcileFigures struct {
	Seconds float64 `json:"seconds"`
	Writes  int64   `json:"writes"`
	Reads   int64   `json:"reads"`
}

// reconcileAll times the manager from Start until every object's status was written once, then waits a
// second (the writes' own watch events must not cause more requests) and reports the requests made.
func reconcileAll(kubeconfig string, objects, concurrency int) (*reconcileFigures, error) {
	requests := &requestCounter{}
	mgr, err := newManager(kubeconfig, requests)
	if err != nil {
		return nil, err
	}
	var written atomic.Int64
	done := make(chan struct{})
	reconciler := &echo{writes: true, onReconcile: func() {}, onWrite: func() {
		if written.Add(1) == int64(objects) {
			close(done)
		}
	}}
	if err := addEcho(mgr, concurrency, reconciler); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	seconds, err := startUntil(ctx, mgr, done)
	if err != nil {
		return nil, err
	}
	time.Sleep(time.Second)
	return &reconcileFigures{Seconds: seconds, Writes: requests.writes.Load(), Reads: requests.reads.Load()}, nil
}

// startUntil starts the manager and answers the seconds from its start until `done` is closed.
func startUntil(ctx context.Context, mgr manager.Manager, done <-chan struct{}) (float64, error) {
	failed := make(chan error, 1)
	start := time.Now()
	go func() { failed <- mgr.Start(ctx) }()
	select {
	case <-done:
		return time.Since(start).Seconds(), nil
	case err := <-failed:
		return 0, err
	}
}
