// Tests of the clock overlay (skew_now.go.txt). They mean something only in a build with the
// overlay, which leaseproof's test suite makes (test/env/go-install.test.ts):
// LEASEPROOF_CLOCK_OVERLAY=1 go test -overlay <file> ./clock. Without it they skip.
package clock_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestTheOffsetFileMovesTheWallClockLiveAndNotTheMonotonicOne(t *testing.T) {
	file := os.Getenv("LEASEPROOF_CLOCK_FILE")
	if os.Getenv("LEASEPROOF_CLOCK_OVERLAY") != "1" || file == "" {
		t.Skip("not built with leaseproof's clock overlay")
	}
	write := func(text string) {
		next := filepath.Join(filepath.Dir(file), "next")
		if err := os.WriteFile(next, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(next, file); err != nil {
			t.Fatal(err)
		}
		time.Sleep(30 * time.Millisecond) // the overlay re-reads every 5 ms
	}
	ahead := func() time.Duration {
		// Round(0) strips the monotonic reading: the difference is the wall clocks'.
		now := time.Now()
		return now.Round(0).Sub(time.Unix(0, 0)) - time.Duration(realUnixNano())
	}
	write("+0.0000\n")
	if d := ahead(); d < -time.Second || d > time.Second {
		t.Fatalf("offset 0: the clock is %v ahead", d)
	}
	started := time.Now()
	write("+3600.5000\n")
	if d := ahead(); d < 3600*time.Second || d > 3601*time.Second+500*time.Millisecond {
		t.Fatalf("offset +3600.5 s: the clock is %v ahead", d)
	}
	// The monotonic clock did not jump: durations stay real.
	if elapsed := time.Since(started); elapsed > 5*time.Second || elapsed < 0 {
		t.Fatalf("time.Since across the jump: %v", elapsed)
	}
	if wall := time.Now().Round(0).Sub(started.Round(0)); wall < 3600*time.Second {
		t.Fatalf("the wall clock across the jump moved only %v", wall)
	}
	write("-0.2500\n")
	if d := ahead(); d < -300*time.Millisecond || d > -200*time.Millisecond {
		t.Fatalf("offset -0.25 s: the clock is %v ahead", d)
	}
	write("not a number\n")
	if d := ahead(); d < -300*time.Millisecond || d > -200*time.Millisecond {
		t.Fatalf("an unreadable file must keep the last offset; the clock is %v ahead", d)
	}
}
