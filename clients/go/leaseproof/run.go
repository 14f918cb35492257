package leaseproof

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// Target is a queue library's own worker loop, as RunNative drives it.
type Target interface {
	// Prepare connects the library to w.Config.DatabaseURL (the worker's own Toxiproxy proxy)
	// with application_name = w.Config.WorkerID on every connection; ready is sent after it.
	Prepare(ctx context.Context, w *Worker) error
	// Run runs the library's loop after go until Stop has taken effect; its handler calls
	// w.RunJob. An error return means the loop died (reported, then supervised: see RunNative).
	Run(ctx context.Context, w *Worker) error
	// Stop begins the library's graceful shutdown (on SIGTERM): finish the job in hand.
	Stop(ctx context.Context, w *Worker)
}

// RunNative runs a native worker program to its end and exits: config, ready, go, the
// library's loop, exit on SIGTERM or when the controller's stdin closes. A loop that returns an
// error is reported as a claim with outcome info and started afresh after Prepare, as a process
// supervisor would, unless LEASEPROOF_NATIVE_SUPERVISE=0.
func RunNative(target Target) {
	os.Exit(runNative(target, os.Stdin, os.Stdout))
}

func runNative(target Target, in io.Reader, out io.Writer) int {
	w := &Worker{out: out}
	messages := make(chan *control, 64)
	go readControl(in, messages)
	first, ok := <-messages
	if !ok || first == nil || first.Type != "config" || first.Config == nil {
		fmt.Fprintln(os.Stderr, "expected a config message first")
		return 2
	}
	if first.WireFormat != WireFormatVersion {
		fmt.Fprintf(os.Stderr, "wire format %d is not %d\n", first.WireFormat, WireFormatVersion)
		return 2
	}
	w.Config = *first.Config
	if w.Config.Clock != nil {
		w.setSkew(*w.Config.Clock)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	terms := make(chan os.Signal, 1)
	signal.Notify(terms, syscall.SIGTERM)
	if err := target.Prepare(ctx, w); err != nil {
		fmt.Fprintf(os.Stderr, "could not prepare the library: %v\n", err)
		return 1
	}
	// The library's loop sets itself up after go: at work from its first claim.
	w.Emit("ready", map[string]any{"pid": os.Getpid(), "wireFormat": WireFormatVersion, "startsOnGo": true})

	goCh := make(chan struct{})
	var goOnce sync.Once
	var stopOnce sync.Once
	exitReason := "stopped"
	stopping := make(chan struct{})
	stop := func(reason string) {
		stopOnce.Do(func() {
			exitReason = reason
			close(stopping)
			goOnce.Do(func() { close(goCh) })
			go target.Stop(ctx, w)
		})
	}
	go func() {
		for {
			select {
			case message, ok := <-messages:
				if !ok {
					// The controller went away: a worker never outlives it.
					os.Exit(0)
				}
				w.onMessage(*message, goCh, &goOnce)
			case <-terms:
				stop("SIGTERM")
			}
		}
	}()
	<-goCh
	starvation := Starvation{PeriodMs: 20, ThresholdMs: 10}
	if w.Config.Starvation != nil {
		starvation = *w.Config.Starvation
	}
	go w.probe(ctx, starvation.PeriodMs, starvation.ThresholdMs)
	supervise := os.Getenv("LEASEPROOF_NATIVE_SUPERVISE") != "0"
	pause := time.Duration(max(50, w.Config.Lease.PollMs) * float64(time.Millisecond))
	isStopping := func() bool {
		select {
		case <-stopping:
			return true
		default:
			return false
		}
	}
	var reportedAt uint64 = ^uint64(0)
	for !isStopping() {
		err := target.Run(ctx, w)
		if err == nil {
			break
		}
		if isStopping() {
			fmt.Fprintf(os.Stderr, "the library's loop ended while stopping: %v\n", err)
			break
		}
		if !supervise {
			fmt.Fprintf(os.Stderr, "the library's loop ended: %v\n", err)
			return 1
		}
		// Reported as leaseproof's own worker reports a fetch on a broken connection — a claim
		// whose outcome is unknown — so the history counts the worker as cut off until it works
		// again, not as a free worker while it restarts.
		// Once per outage: a loop that fails again before doing anything else is still cut off.
		if w.emitted.Load() != reportedAt {
			w.Emit("claim", map[string]any{"outcome": "info", "error": fmt.Sprintf("the library's loop ended: %v", err)})
			reportedAt = w.emitted.Load()
		} else {
			fmt.Fprintf(os.Stderr, "the library's loop ended again: %v\n", err)
		}
		for !isStopping() {
			time.Sleep(pause)
			err := target.Prepare(ctx, w)
			if err == nil {
				break
			}
			fmt.Fprintf(os.Stderr, "restarting the library's loop: %v\n", err)
		}
	}
	w.closeEffects()
	w.Emit("exit", map[string]any{"reason": exitReason})
	return 0
}

func (w *Worker) closeEffects() {
	w.effectMu.Lock()
	defer w.effectMu.Unlock()
	if w.effects != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = w.effects.Close(ctx)
		w.effects = nil
	}
}

// readControl reads control messages, one JSON object per line, until stdin closes.
func readControl(in io.Reader, messages chan<- *control) {
	scanner := bufio.NewScanner(in)
	scanner.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for scanner.Scan() {
		line := scanner.Bytes()
		if len(line) == 0 {
			continue
		}
		var message control
		if err := json.Unmarshal(line, &message); err != nil {
			fmt.Fprintf(os.Stderr, "not a control message: %.120s\n", string(line))
			continue
		}
		messages <- &message
	}
	close(messages)
}
