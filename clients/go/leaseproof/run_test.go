package leaseproof

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeTarget stands in for a library: its loop hands one job to the handler after go.
type fakeTarget struct {
	mu       sync.Mutex
	prepared int
	result   chan error
	stop     chan struct{}
	payload  string
	attempt  int
}

func (f *fakeTarget) Prepare(ctx context.Context, w *Worker) error {
	f.mu.Lock()
	f.prepared++
	f.mu.Unlock()
	return nil
}

func (f *fakeTarget) Run(ctx context.Context, w *Worker) error {
	f.result <- w.RunJob(ctx, "7", "1@w1", f.attempt, []byte(f.payload))
	<-f.stop
	return nil
}

func (f *fakeTarget) Stop(ctx context.Context, w *Worker) { close(f.stop) }

// session runs the program side against pipes: lines written go to its stdin, events come back.
type session struct {
	in     *io.PipeWriter
	events chan map[string]any
	exit   chan int
}

func start(t *testing.T, target Target) *session {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &session{in: inW, events: make(chan map[string]any, 100), exit: make(chan int, 1)}
	go func() {
		s.exit <- runNative(target, inR, outW)
		_ = outW.Close()
	}()
	go func() {
		scanner := bufio.NewScanner(outR)
		for scanner.Scan() {
			var message struct {
				Type   string           `json:"type"`
				Events []map[string]any `json:"events"`
			}
			if err := json.Unmarshal(scanner.Bytes(), &message); err != nil || message.Type != "events" {
				t.Errorf("not an events message: %s", scanner.Text())
				continue
			}
			for _, e := range message.Events {
				s.events <- e
			}
		}
		close(s.events)
	}()
	return s
}

func (s *session) send(t *testing.T, line string) {
	t.Helper()
	if _, err := s.in.Write([]byte(line + "\n")); err != nil {
		t.Fatal(err)
	}
}

func (s *session) next(t *testing.T, kind string) map[string]any {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case e, ok := <-s.events:
			if !ok {
				t.Fatalf("no %s event before the program ended", kind)
			}
			if e["kind"] == kind {
				return e
			}
		case <-timeout:
			t.Fatalf("no %s event within 5 s", kind)
		}
	}
}

const config = `{"type":"config","wireFormat":1,"config":{"workerId":"w1","databaseUrl":"postgres://x","effectsUrl":"postgres://x","lease":{"durationMs":800,"heartbeatMs":200,"extendByMs":800,"pollMs":50}}}`

func TestReadyGoAndAJobsEvents(t *testing.T) {
	target := &fakeTarget{result: make(chan error, 1), stop: make(chan struct{}), attempt: 1,
		payload: `{"units":[{"ms":20},{"ms":10,"sync":true}]}`}
	s := start(t, target)
	s.send(t, config)
	ready := s.next(t, "ready")
	if ready["wireFormat"] != float64(WireFormatVersion) || ready["startsOnGo"] != true {
		t.Fatalf("ready: %v", ready)
	}
	select {
	case <-target.result:
		t.Fatal("the loop ran before go")
	case <-time.After(50 * time.Millisecond):
	}
	before := MonotonicMs()
	s.send(t, `{"type":"go"}`)
	claim := s.next(t, "claim")
	if claim["outcome"] != "ok" || claim["jobId"] != "7" || claim["token"] != "1@w1" || claim["attempt"] != float64(1) {
		t.Fatalf("claim: %v", claim)
	}
	if at := claim["at"].(float64); at < before || at > MonotonicMs() {
		t.Fatalf("claim at %v is not CLOCK_MONOTONIC ms now (%v)", at, before)
	}
	for unit := 0; unit < 2; unit++ {
		if e := s.next(t, "unit"); e["unit"] != float64(unit) {
			t.Fatalf("unit %d: %v", unit, e)
		}
	}
	if err := <-target.result; err != nil {
		t.Fatalf("the plan fails nothing, got %v", err)
	}
	s.send(t, `{"type":"report-clock"}`)
	clock := s.next(t, "clock")
	if d := clock["workerNow"].(float64) - clock["realNow"].(float64); d < -0.001 || d > 0.001 {
		t.Fatalf("no skew set, yet workerNow - realNow = %v", d)
	}
	s.send(t, `{"type":"clock","skew":{"offsetMs":5000}}`)
	clock = s.next(t, "clock")
	if d := clock["workerNow"].(float64) - clock["realNow"].(float64); d < 4999.999 || d > 5000.001 {
		t.Fatalf("skew 5000 ms set, yet workerNow - realNow = %v", d)
	}
	close(target.stop)
	if e := s.next(t, "exit"); e["reason"] != "stopped" {
		t.Fatalf("exit: %v", e)
	}
	if code := <-s.exit; code != 0 {
		t.Fatalf("exit code %d", code)
	}
}

func TestAPlannedFailureAndACancelledHandler(t *testing.T) {
	w := &Worker{out: io.Discard}
	err := w.RunJob(context.Background(), "1", "1@w", 1, []byte(`{"units":[{"ms":1}],"failAttempts":1}`))
	if !errors.Is(err, ErrPlannedFailure) {
		t.Fatalf("attempt 1 of failAttempts 1: want a planned failure, got %v", err)
	}
	if err := w.RunJob(context.Background(), "1", "2@w", 2, []byte(`{"units":[{"ms":1}],"failAttempts":1}`)); err != nil {
		t.Fatalf("attempt 2 of failAttempts 1: want success, got %v", err)
	}
	var out strings.Builder
	w = &Worker{out: &out}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	err = w.RunJob(ctx, "1", "1@w", 1, []byte(`{"units":[{"ms":500},{"ms":500}]}`))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a handler cut by its context: want DeadlineExceeded, got %v", err)
	}
	if !strings.Contains(out.String(), `"kind":"abort"`) || !strings.Contains(out.String(), `"unit":1`) {
		t.Fatalf("no abort before unit 1 reported: %s", out.String())
	}
	if err := w.RunJob(context.Background(), "1", "1@w", 1, []byte(`{"nothing":1}`)); err == nil {
		t.Fatal("a payload without units must be refused")
	}
}

func TestAHandlerThatIgnoresCancellationRunsOn(t *testing.T) {
	var out strings.Builder
	w := &Worker{out: &out}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	err := w.RunJob(ctx, "1", "1@w", 1, []byte(`{"units":[{"ms":40},{"ms":10},{"ms":10}],"ignoresAbort":true}`))
	if err != nil {
		t.Fatalf("a handler deaf to its context ends as it would have: want nil, got %v", err)
	}
	events := out.String()
	if strings.Count(events, `"kind":"abort-ignored"`) != 1 || strings.Contains(events, `"kind":"abort"`) {
		t.Fatalf("want one abort-ignored (before unit 1) and no abort: %s", events)
	}
	if strings.Count(events, `"kind":"unit"`) != 3 {
		t.Fatalf("want all three units run: %s", events)
	}
}

func TestAStallHoldsTheHandler(t *testing.T) {
	w := &Worker{out: io.Discard}
	w.onMessage(control{Type: "stall", Ms: 120}, make(chan struct{}), &sync.Once{})
	started := time.Now()
	if err := w.RunJob(context.Background(), "1", "1@w", 1, []byte(`{"units":[{"ms":10}]}`)); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(started); took < 100*time.Millisecond {
		t.Fatalf("a 10 ms unit under a 120 ms stall ended after %v", took)
	}
}

func TestARefusedConfig(t *testing.T) {
	s := start(t, &fakeTarget{})
	s.send(t, `{"type":"config","wireFormat":2,"config":{"workerId":"w1"}}`)
	if code := <-s.exit; code != 2 {
		t.Fatalf("wire format 2: want exit 2, got %d", code)
	}
}
