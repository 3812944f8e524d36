package main

import (
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/go-logr/logr"
)

// requestCounter counts the requests the peer sends, split as bench/runtime.ts splits Slipway's:
// writes are every non-GET; reads are GETs other than the informer's Widget list and watch.
type requestCounter struct {
	writes atomic.Int64
	reads  atomic.Int64
}

type countingTransport struct {
	counter *requestCounter
	next    http.RoundTripper
}

func (c *requestCounter) wrap(next http.RoundTripper) http.RoundTripper {
	return &countingTransport{counter: c, next: next}
}

func (t *countingTransport) RoundTrip(request *http.Request) (*http.Response, error) {
	switch {
	case request.Method != http.MethodGet:
		t.counter.writes.Add(1)
	case !isWidgetListOrWatch(request):
		t.counter.reads.Add(1)
	}
	return t.next.RoundTrip(request)
}

func isWidgetListOrWatch(request *http.Request) bool {
	return strings.HasSuffix(request.URL.Path, "/widgets") || request.URL.Query().Get("watch") != ""
}

func discardLogger() logr.Logger { return logr.Discard() }
