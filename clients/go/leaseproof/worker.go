package leaseproof

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// clockRefreshWait outlasts the clock overlay's re-read period (5 ms), with room.
const clockRefreshWait = 15 * time.Millisecond

// ErrPlannedFailure is what RunJob returns for an attempt the plan fails (failAttempts): a
// transient error, by design; the target returns it to its library as a handler error.
var ErrPlannedFailure = errors.New("planned failure")

// Worker is one native worker process: the wire format on stdin/stdout, the handler plan, the
// probes. Targets read its Config and call RunJob from their library's handler.
type Worker struct {
	// Config is the controller's config message, set before Target.Prepare is called.
	Config Config

	out      io.Writer
	outMu    sync.Mutex
	skewMu   sync.Mutex
	skew     Skew
	skewAt   float64
	effects  *pgx.Conn
	effectMu sync.Mutex
	// stallUntil is the monotonic ms until which handlers are held (a stall message).
	stallUntil atomic.Uint64
	// emitted counts the events sent, so that a loop failing again and again is reported once.
	emitted atomic.Uint64
}

// Emit sends one event, stamped now on the monotonic clock.
func (w *Worker) Emit(kind string, fields map[string]any) {
	event := map[string]any{"kind": kind, "at": MonotonicMs()}
	for k, v := range fields {
		event[k] = v
	}
	line, err := json.Marshal(map[string]any{"type": "events", "events": []any{event}})
	if err != nil {
		fmt.Fprintf(os.Stderr, "event not sent: %v\n", err)
		return
	}
	w.outMu.Lock()
	defer w.outMu.Unlock()
	w.emitted.Add(1)
	_, _ = w.out.Write(append(line, '\n'))
}

// RunJob runs leaseproof's handler plan for one job the library handed its handler.
//
// It reports the claim as the handler saw it (the library's own claim statement is not visible
// here; the audit has it) with token, the holder the audit will show; each unit; each effect
// (written to leaseproof_effects over the direct connection first); and, when ctx is cancelled
// between units (the library's job timeout, a stop that cancels), abort. It returns

// ErrPlannedFailure (wrapped) after the last unit of an attempt the plan fails.
func (w *Worker) RunJob(ctx context.Context, jobID, token string, attempt int, payload []byte) error {
	w.Emit("claim", map[string]any{"outcome": "ok", "jobId": jobID, "token": token, "attempt": attempt})
	var plan Plan
	if err := json.Unmarshal(payload, &plan); err != nil || plan.Units == nil {
		return fmt.Errorf("job %s: payload has no \"units\" array: %s", jobID, string(payload))
	}
	ignored := false
	for i, unit := range plan.Units {
		if ctx.Err() != nil && plan.IgnoresAbort {
			// Recorded by the harness, not seen by the handler: the history must show that the
			// library did cancel it, so that what follows is judged as the handler's doing.
			if !ignored {
				w.Emit("abort-ignored", map[string]any{"jobId": jobID, "token": token, "unit": i})
			}
			ignored = true
		} else if ctx.Err() != nil {
			w.Emit("abort", map[string]any{"jobId": jobID, "token": token, "unit": i})
			return ctx.Err()
		}
		w.Emit("unit", map[string]any{"jobId": jobID, "token": token, "unit": i, "effect": unit.Effect})
		end := MonotonicMs() + unit.Ms
		switch {
		case unit.Sync:
			// A synchronous unit: this goroutine computes, deaf to its context, to the end.
			for MonotonicMs() < end {
			}
		case plan.IgnoresAbort:
			// A handler deaf to its context waits its unit out.
			time.Sleep(time.Duration(unit.Ms * float64(time.Millisecond)))
		default:
			select {
			case <-time.After(time.Duration(unit.Ms * float64(time.Millisecond))):
			case <-ctx.Done():
				// The unit in hand is cut at its await, like a cancelled coroutine; the next
				// one never starts.
				w.Emit("abort", map[string]any{"jobId": jobID, "token": token, "unit": i + 1})
				return ctx.Err()
			}
		}
		w.waitStall()
		if unit.Effect {
			recorded := w.recordEffect(jobID, token, i)
			w.Emit("effect", map[string]any{"jobId": jobID, "token": token, "unit": i, "recorded": recorded})
		}
	}
	if attempt <= plan.FailAttempts {
		return fmt.Errorf("%w of attempt %d (failAttempts %d)", ErrPlannedFailure, attempt, plan.FailAttempts)
	}
	return nil
}

// waitStall holds a handler while a stall is in force: a Go program has no event loop to block,
// so a stall holds the handlers (what leaseproof's plan runs), and the library's own goroutines
// go on, as a Node worker's heartbeat thread does.
func (w *Worker) waitStall() {
	for {
		until := float64(w.stallUntil.Load()) / 1e3
		now := MonotonicMs()
		if now >= until {
			return
		}
		time.Sleep(time.Duration((until - now) * float64(time.Millisecond)))
	}
}

func (w *Worker) recordEffect(jobID, token string, unit int) bool {
	w.effectMu.Lock()
	defer w.effectMu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if w.effects == nil || w.effects.IsClosed() {
		config, err := pgx.ParseConfig(w.Config.EffectsURL)
		if err != nil {
			fmt.Fprintf(os.Stderr, "effect not recorded: %v\n", err)
			return false
		}
		config.RuntimeParams["application_name"] = w.Config.WorkerID
		conn, err := pgx.ConnectConfig(ctx, config)
		if err != nil {
			fmt.Fprintf(os.Stderr, "effect not recorded: %v\n", err)
			return false
		}
		w.effects = conn
	}
	_, err := w.effects.Exec(ctx,
		"INSERT INTO leaseproof_effects (job_id, worker_id, token, unit) VALUES ($1, $2, $3, $4)",
		jobID, w.Config.WorkerID, token, unit)
	if err != nil {
		fmt.Fprintf(os.Stderr, "effect not recorded: %v\n", err)
		_ = w.effects.Close(ctx)
		w.effects = nil
		return false
	}
	return true
}

// skewNow is the skew in force now (offset plus drift since it was set), in ms.
func (w *Worker) skewNow() float64 {
	w.skewMu.Lock()
	defer w.skewMu.Unlock()
	return w.skew.OffsetMs + w.skew.DriftPpm*(MonotonicMs()-w.skewAt)/1e6
}

func (w *Worker) setSkew(skew Skew) {
	w.skewMu.Lock()
	w.skew, w.skewAt = skew, MonotonicMs()
	w.skewMu.Unlock()
}

// reportClock sends the wall clock this program reads (skewed from outside, see clock/) and
// the real time it should be.
func (w *Worker) reportClock() {
	workerNow := float64(time.Now().UnixNano()) / 1e6
	w.Emit("clock", map[string]any{"workerNow": workerNow, "realNow": workerNow - w.skewNow()})
}

// onMessage handles a control message after config.
func (w *Worker) onMessage(message control, goCh chan struct{}, goOnce *sync.Once) {
	switch message.Type {
	case "go":
		goOnce.Do(func() { close(goCh) })
	case "clock":
		if message.Skew != nil {
			w.setSkew(*message.Skew)
		}
		// The controller rewrote the clock's offset file before sending this; the build's clock
		// (clock/skew_now.go.txt) reads it every 5 ms: report once it has.
		go func() {
			time.Sleep(clockRefreshWait)
			w.reportClock()
		}()
	case "report-clock":
		w.reportClock()
	case "stall":
		w.Emit("stall", map[string]any{"ms": message.Ms})
		w.stallUntil.Store(uint64((MonotonicMs() + message.Ms) * 1e3))
	}
}

// probe reports ticks that came late past the threshold: this program kept from running by
// the machine's load (not by a fault), so timing verdicts become unknown, not false alarms.
func (w *Worker) probe(ctx context.Context, periodMs, thresholdMs float64) {
	period := time.Duration(periodMs * float64(time.Millisecond))
	expected := MonotonicMs() + periodMs
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(period):
		}
		now := MonotonicMs()
		late := now - expected
		if late < 0 {
			late = 0
		}
		expected = now + periodMs
		if late > thresholdMs {
			w.Emit("starved", map[string]any{"thread": "main", "ms": int(late), "lateMs": int(late)})
		}
	}
}
