package main

import (
	"sort"
	"sync"
	"time"
)

// latencies collects the durations of one kind of request (the registry HEADs, the status writes), for
// their median and their sum in milliseconds: where a build's time goes, measured the same way as
// Slipway's in bench/builds.ts.
type latencies struct {
	mu     sync.Mutex
	values []time.Duration
}

func (l *latencies) since(start time.Time) {
	l.mu.Lock()
	l.values = append(l.values, time.Since(start))
	l.mu.Unlock()
}

type latencyFigures struct {
	MedianMs float64 `json:"p50_ms"`
	SumMs    float64 `json:"sum_ms"`
}

func (l *latencies) figures() latencyFigures {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.values) == 0 {
		return latencyFigures{}
	}
	sorted := append([]time.Duration(nil), l.values...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	var sum time.Duration
	for _, value := range sorted {
		sum += value
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return latencyFigures{MedianMs: ms(sorted[len(sorted)/2]), SumMs: ms(sum)}
}
