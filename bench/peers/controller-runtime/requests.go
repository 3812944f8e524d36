package main

import (
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/go-logr/logr"
)

// requestCounter counts the requests the peer sends, split as bench/runtime.ts splits Slipway's:
// writes are every non-GET; reads are GETs other than the informers' lists and watches (paths ending
// in one of listSuffixes; none given: the Widget list).
type requestCounter struct {
	writes       atomic.Int64
	reads        atomic.Int64
	listSuffixes []string
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
	case !t.counter.isListOrWatch(request):
		t.counter.reads.Add(1)
	}
	return t.next.RoundTrip(request)
}

func (c *requestCounter) isListOrWatch(request *http.Request) bool {
	if request.URL.Query().Get("watch") != "" {
		return true
	}
	suffixes := c.listSuffixes
	if suffixes == nil {
		suffixes = []string{"/widgets"}
	}
	for _, suffix := range suffixes {
		if strings.HasSuffix(request.URL.Path, suffix) {
			return true
		}
	}
	return false
}

func discardLogger() logr.Logger { return logr.Discard() }
