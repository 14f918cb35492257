// Command river-native runs River's own client as a leaseproof native worker: River's fetch
// loop (its producer), its batched completer, its leader election and, on the leader, its job
// rescuer and scheduler, all on the worker's own proxied connection pool. The handler is
// leaseproof's plan (clients/go/leaseproof).
//
// River has no heartbeat: a job runs under JobTimeout (a context deadline on this process's
// monotonic clock), and the leader's rescuer sets a running job whose attempted_at (the
// database's now() at fetch) is older than RescueStuckJobsAfter — measured against the leader's
// own wall clock — back to retryable. The run's lease is both: JobTimeout = RescueStuckJobsAfter
// = the lease (River refuses a rescue sooner than the timeout).
//
// Time compression: River's timing constants are scaled by k = the run's poll interval / River's
// default poll interval (1 s): the fetch cooldown, the retry backoff, and — through the build's
// overlay (rescale.json) — the rescuer and scheduler intervals and the leader election's
// interval, jitter, TTL padding and trust margin. TestOnly removes the maintenance services'
// random 0–1 s start-up stagger. leaseproof states each of these in the run's lease terms.
//
// `river-native --print-sql` prints River's migrations (its schema) as JSON for the controller.
//
// Built only by leaseproof (src/env/go-install.ts), with the overlay: river.LeaseproofRescale
// exists only there.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"leaseproof/client/leaseproof"
)

// Kind is the River job kind leaseproof enqueues.
const Kind = "leaseproof"

// riverDefaultPoll is River's FetchPollIntervalDefault: the time base of the compression.
const riverDefaultPoll = time.Second

// PlanArgs is a job's args: leaseproof's handler plan.
type PlanArgs struct {
	Units        []leaseproof.Unit `json:"units"`
	FailAttempts int               `json:"failAttempts"`
}

// Kind names the job kind for River.
func (PlanArgs) Kind() string { return Kind }

type planWorker struct {
	river.WorkerDefaults[PlanArgs]
	w *leaseproof.Worker
}

func (p *planWorker) Work(ctx context.Context, job *river.Job[PlanArgs]) error {
	return p.w.RunJob(ctx, strconv.FormatInt(job.ID, 10), Token(job.JobRow), job.Attempt, job.EncodedArgs)
}

// Token is the holder the audit shows for a running job: its attempt and the client that
// fetched it (the last of attempted_by), as `attempt@client`.
func Token(job *rivertype.JobRow) string {
	client := ""
	if n := len(job.AttemptedBy); n > 0 {
		client = job.AttemptedBy[n-1]
	}
	return fmt.Sprintf("%d@%s", job.Attempt, client)
}

// scaledRetry is River's default retry policy (attempt⁴ s, ±10 % jitter) compressed by k.
type scaledRetry struct {
	k float64
}

func (s scaledRetry) NextRetry(job *rivertype.JobRow) time.Time {
	now := time.Now()
	delay := (&river.DefaultClientRetryPolicy{}).NextRetry(job).Sub(now)
	return now.Add(time.Duration(float64(delay) * s.k))
}

type riverTarget struct {
	pool   *pgxpool.Pool
	client *river.Client[pgx.Tx]
}

func scale(d time.Duration, k float64) time.Duration {
	return max(time.Millisecond, time.Duration(float64(d)*k))
}

func (t *riverTarget) Prepare(ctx context.Context, w *leaseproof.Worker) error {
	t.close()
	lease := w.Config.Lease
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	poll := ms(lease.PollMs)
	k := float64(poll) / float64(riverDefaultPoll)
	river.LeaseproofRescale(k)

	config, err := pgxpool.ParseConfig(w.Config.DatabaseURL)
	if err != nil {
		return err
	}
	config.ConnConfig.RuntimeParams["application_name"] = w.Config.WorkerID
	// River's listener takes one connection for good; the producer, completer and leader
	// share the rest.
	config.MaxConns = 4
	pool, err := pgxpool.NewWithConfig(ctx, config)
	if err != nil {
		return err
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, &planWorker{w: w})
	// A new identity per start, as a restarted process would have: River's client IDs must be
	// unique among running clients.
	id := fmt.Sprintf("%s-%08x", w.Config.WorkerID, rand.Uint32())
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		ID:                   id,
		JobTimeout:           ms(lease.DurationMs),
		RescueStuckJobsAfter: ms(lease.DurationMs),
		FetchPollInterval:    poll,
		FetchCooldown:        min(poll, scale(river.FetchCooldownDefault, k)),
		RetryPolicy:          scaledRetry{k: k},
		Queues:               map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 1}},
		Workers:              workers,
		TestOnly:             true,
		Logger:               slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		pool.Close()
		return err
	}
	t.pool, t.client = pool, client
	return nil
}

func (t *riverTarget) Run(ctx context.Context, w *leaseproof.Worker) error {
	if err := t.client.Start(ctx); err != nil {
		return err
	}
	<-t.client.Stopped()
	t.close()
	return nil
}

func (t *riverTarget) Stop(ctx context.Context, w *leaseproof.Worker) {
	if t.client != nil {
		// River's graceful stop: fetch nothing more, let the job in hand finish, flush the
		// completer, resign leadership.
		_ = t.client.Stop(ctx)
	}
}

func (t *riverTarget) close() {
	if t.pool != nil {
		t.pool.Close()
		t.pool = nil
	}
}

func printSQL() error {
	migrator, err := rivermigrate.New(riverpgxv5.New(nil), nil)
	if err != nil {
		return err
	}
	var install []string
	for _, migration := range migrator.AllVersions() {
		// What River's own migrator does to a migration's text when no schema is configured.
		install = append(install, strings.ReplaceAll(migration.SQLUp, "/* TEMPLATE: schema */", ""))
	}
	return json.NewEncoder(os.Stdout).Encode(map[string]any{
		"version": riverVersion(),
		"install": strings.Join(install, "\n"),
		"kind":    Kind,
	})
}

// riverVersion is the River module this program was built with.
func riverVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "github.com/riverqueue/river" {
				return dep.Version
			}
		}
	}
	return "unknown"
}

func main() {
	if len(os.Args) == 2 && os.Args[1] == "--print-sql" {
		if err := printSQL(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	leaseproof.RunNative(&riverTarget{})
}
