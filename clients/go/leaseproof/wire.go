// Package leaseproof is the program side of leaseproof's worker wire format over JSON lines
// (docs/worker-wire-format.md, "Over JSON lines"): what a Go program needs to run a queue
// library's own worker loop as a leaseproof native worker. A target implements Target; main
// calls RunNative(target). The database audit stays the ground truth: what this package
// reports is the handler's word (claims seen, units, effects), as leaseproof's own worker
// reports it.
package leaseproof

import (
	"golang.org/x/sys/unix"
)

// WireFormatVersion is the wire format this client speaks; the controller sends its own in
// the config message and a mismatch ends the program before it claims anything.
const WireFormatVersion = 1

// MonotonicMs is CLOCK_MONOTONIC in milliseconds: the time base of every event this program
// sends. One monotonic clock serves every process on a host; leaseproof moves these times onto
// its own clock. (Go's time.Now carries a monotonic reading, but not one comparable across
// processes.)
func MonotonicMs() float64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		panic(err)
	}
	return float64(ts.Sec)*1e3 + float64(ts.Nsec)/1e6
}

// Lease is the run's lease, as the controller sends it (milliseconds).
type Lease struct {
	DurationMs  float64 `json:"durationMs"`
	HeartbeatMs float64 `json:"heartbeatMs"`
	ExtendByMs  float64 `json:"extendByMs"`
	PollMs      float64 `json:"pollMs"`
}

// Skew is a clock skew: offset from real time, plus drift in parts per million.
type Skew struct {
	OffsetMs float64 `json:"offsetMs"`
	DriftPpm float64 `json:"driftPpm"`
}

// Starvation configures the starvation probe.
type Starvation struct {
	PeriodMs    float64 `json:"periodMs"`
	ThresholdMs float64 `json:"thresholdMs"`
}

// Config is the config message's body: who this worker is and where its database is.
type Config struct {
	WorkerID    string      `json:"workerId"`
	DatabaseURL string      `json:"databaseUrl"`
	EffectsURL  string      `json:"effectsUrl"`
	Lease       Lease       `json:"lease"`
	Clock       *Skew       `json:"clock,omitempty"`
	Starvation  *Starvation `json:"starvation,omitempty"`
	// Settings is the library's own settings as the run uses them, by the library's names (ms
	// for a duration, already compressed by the run's time factor); absent for a library that
	// declares none.
	Settings map[string]float64 `json:"settings,omitempty"`
}

// control is one message from the controller.
type control struct {
	Type       string  `json:"type"`
	WireFormat int     `json:"wireFormat"`
	Config     *Config `json:"config"`
	Skew       *Skew   `json:"skew"`
	Ms         float64 `json:"ms"`
}

// Unit is one step of leaseproof's handler plan.
type Unit struct {
	Ms     float64 `json:"ms"`
	Sync   bool    `json:"sync"`
	Effect bool    `json:"effect"`
}

// Plan is a job payload: the handler plan leaseproof enqueued.
type Plan struct {
	Units        []Unit `json:"units"`
	FailAttempts int    `json:"failAttempts"`
	// IgnoresAbort: the handler never looks at its context (River #1258's workers): cancelled,
	// it runs on to its end; the worker reports once that it did cancel it (abort-ignored).
	IgnoresAbort bool `json:"ignoresAbort"`
}
