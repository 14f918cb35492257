// Command river-native runs River's own client as a leaseproof native worker: River's fetch
// loop (its producer), its batched completer, its leader election and, on the leader, its job
// rescuer and scheduler, all on the worker's own proxied connection pool. The handler is
// leaseproof's plan (clients/go/leaseproof).
//
// River has no heartbeat: a job runs under JobTimeout (a context deadline on this process's
// monotonic clock), and the leader's rescuer sets a running job whose attempted_at (the
// database's now() at fetch) is older than RescueStuckJobsAfter — measured against the leader's
// own wall clock — back to retryable.
//
// Every setting comes from the config's `settings`, by River's names (ms for a duration), as
// leaseproof settled them for the run (src/libraries/river/settings.ts): River's defaults — or
// the user's — compressed by one time factor, the scenario's lease being JobTimeout. That covers
// River's Config fields, the retry backoff's unit (DefaultClientRetryPolicy's 1 s) and, through
// the build's overlay (rescale.json), the rescuer and scheduler intervals and the leader
// election's interval, jitter, TTL padding and trust margin. This program derives nothing from
// the lease. TestOnly removes the maintenance services' random 0–1 s start-up stagger.
//
// `river-native --print-sql` prints River's migrations (its schema) as JSON for the controller.
//
// Built only by leaseproof (src/env/go-install.ts), with the overlay: river.LeaseproofRescale
// exists only there.
package main

import (
	"context"
	"encoding/json"
	"errors"
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

// scaledRetry is River's default retry policy (attempt⁴ s, ±10 % jitter) with its 1 s unit
// replaced by the run's.
type scaledRetry struct {
	unit time.Duration
}

func (s scaledRetry) NextRetry(job *rivertype.JobRow) time.Time {
	now := time.Now()
	delay := (&river.DefaultClientRetryPolicy{}).NextRetry(job).Sub(now)
	return now.Add(time.Duration(float64(delay) * float64(s.unit) / float64(time.Second)))
}

// settings reads the run's River settings by name from the config (ms for a duration): every
// one leaseproof sends must be there, or the run is refused rather than run on other values.
type settings map[string]float64

func (s settings) duration(name string) (time.Duration, error) {
	v, ok := s[name]
	if !ok || !(v > 0) {
		return 0, fmt.Errorf("the config's settings have no positive %s (got %v)", name, s[name])
	}
	return time.Duration(v * float64(time.Millisecond)), nil
}

func (s settings) count(name string) (int, error) {
	v, ok := s[name]
	if !ok || v < 1 || v != float64(int(v)) {
		return 0, fmt.Errorf("the config's settings have no whole %s of at least 1 (got %v)", name, s[name])
	}
	return int(v), nil
}

// riverConfig is the run's River timing: Config fields, the backoff unit and the constants.
type riverConfig struct {
	jobTimeout, rescueAfter, poll, cooldown, stuckThreshold, backoffUnit time.Duration
	maxWorkers                                                           int
	constants                                                            river.LeaseproofConstants
}

func readSettings(s settings) (riverConfig, error) {
	var c riverConfig
	var errs []error
	d := func(name string, into *time.Duration) {
		v, err := s.duration(name)
		errs = append(errs, err)
		*into = v
	}
	d("JobTimeout", &c.jobTimeout)
	d("RescueStuckJobsAfter", &c.rescueAfter)
	d("FetchPollInterval", &c.poll)
	d("FetchCooldown", &c.cooldown)
	d("JobStuckThreshold", &c.stuckThreshold)
	d("DefaultClientRetryPolicy", &c.backoffUnit)
	d("JobRescuerIntervalDefault", &c.constants.JobRescuerIntervalDefault)
	d("JobSchedulerIntervalDefault", &c.constants.JobSchedulerIntervalDefault)
	d("electIntervalDefault", &c.constants.ElectIntervalDefault)
	d("electIntervalJitterDefault", &c.constants.ElectIntervalJitterDefault)
	d("electIntervalTTLPaddingDefault", &c.constants.ElectIntervalTTLPaddingDefault)
	d("leaderLocalDeadlineSafetyMargin", &c.constants.LeaderLocalDeadlineSafetyMargin)
	n, err := s.count("MaxWorkers")
	errs = append(errs, err)
	c.maxWorkers = n
	return c, errors.Join(errs...)
}

type riverTarget struct {
	pool   *pgxpool.Pool
	client *river.Client[pgx.Tx]
}

func (t *riverTarget) Prepare(ctx context.Context, w *leaseproof.Worker) error {
	t.close()
	timing, err := readSettings(w.Config.Settings)
	if err != nil {
		return err
	}
	river.LeaseproofSet(timing.constants)

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
		JobTimeout:           timing.jobTimeout,
		RescueStuckJobsAfter: timing.rescueAfter,
		FetchPollInterval:    timing.poll,
		FetchCooldown:        timing.cooldown,
		JobStuckThreshold:    timing.stuckThreshold,
		RetryPolicy:          scaledRetry{unit: timing.backoffUnit},
		Queues:               map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: timing.maxWorkers}},
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
