package main

import (
	"context"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

type idleFigures struct {
	RSSBeforeStart float64 `json:"rss_mb_before_start"`
	RSS            float64 `json:"rss_mb"`
	IdleCPUSeconds float64 `json:"idle_cpu_seconds"`
	Reconciled     int64   `json:"reconciled"`
}

// idle caches every Widget and reconciles each once without writing, then measures resident memory and
// the CPU spent over `rest` doing nothing — as bench/runtime.ts's idle child does for Slipway.
func idle(kubeconfig string, objects int, rest time.Duration) (*idleFigures, error) {
	debug.FreeOSMemory()
	before, err := residentMB()
	if err != nil {
		return nil, err
	}
	mgr, err := newManager(kubeconfig, &requestCounter{})
	if err != nil {
		return nil, err
	}
	var reconciled atomic.Int64
	reconciler := &echo{writes: false, onWrite: func() {}, onReconcile: func() { reconciled.Add(1) }}
	if err := addEcho(mgr, 8, reconciler); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = mgr.Start(ctx) }()
	for reconciled.Load() < int64(objects) {
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(2 * time.Second)
	debug.FreeOSMemory()
	cpuBefore := cpuSeconds()
	time.Sleep(rest)
	cpu := cpuSeconds() - cpuBefore
	debug.FreeOSMemory()
	after, err := residentMB()
	if err != nil {
		return nil, err
	}
	return &idleFigures{RSSBeforeStart: before, RSS: after, IdleCPUSeconds: cpu, Reconciled: reconciled.Load()}, nil
}

// residentMB reads VmRSS (kB) from /proc/self/status: the same figure as Node's process.memoryUsage().rss.
func residentMB() (float64, error) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		if fields := strings.Fields(line); len(fields) >= 2 && fields[0] == "VmRSS:" {
			kb, err := strconv.ParseFloat(fields[1], 64)
			return kb / 1024, err
		}
	}
	return 0, os.ErrNotExist
}

func cpuSeconds() float64 {
	var usage syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &usage)
	return float64(usage.Utime.Nano()+usage.Stime.Nano()) / 1e9
}
