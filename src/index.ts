/**
 * leaseproof: proves or disproves the lease safety of database-backed job queues.
 *
 * The model, Jepsen's applied to leases. A **queue adapter** (the system under test) offers
 * claim / extend / ack / fail over SQL and says where its lease lives. **Workers** are real OS
 * processes that claim jobs, run a **handler** of timed units (some with an **effect** that must
 * not happen twice), heartbeat from their own thread and acknowledge; each reaches PostgreSQL
 * through its own Toxiproxy proxy. A **nemesis** injects faults (partitions, pauses, crashes,
 * skewed clocks, stalls, database restarts). Everything lands in a **history** on the database's
 * clock, and **checkers** judge it against the lease invariants.
 *
 * Every export is listed here by name; nothing else is public.
 */

// Errors: misuse and bad input, each with a stable code.
export {
  LeaseproofError,
  ConfigError,
  EnvironmentError,
  UnsafeDatabaseError,
  describeError,
} from './errors.js';
export { AdapterError } from './queue/adapter-error.js';

// Environments: where PostgreSQL and Toxiproxy come from.
export type {
  ProviderName,
  EnvironmentProvider,
  StartedEnvironment,
  EnvironmentDescription,
  RunDatabase,
  DatabaseProxy,
  ToxicSpec,
  ToxicType,
  ToxicStream,
} from './env/types.js';
export {
  EmbeddedEnvironmentProvider,
  type EmbeddedEnvironmentOptions,
} from './env/embedded-env.js';
export {
  ExternalEnvironmentProvider,
  externalOptionsFromEnv,
  type ExternalEnvironmentOptions,
} from './env/external-env.js';
export {
  ContainersEnvironmentProvider,
  type ContainersEnvironmentOptions,
} from './env/containers-env.js';
export { selectEnvironment, type SelectEnvironmentOptions } from './env/select-env.js';
export { checkEnvironment, type CheckResult, type CheckStep } from './env/check-environment.js';
export { redactUrl } from './env/database-url.js';
export { reapLeftovers } from './env/process-registry.js';
export { ensureToxiproxyServer, TOXIPROXY_VERSION } from './env/toxiproxy-install.js';

// Queues: the adapter contract, the reference queue and the known-bad variants.
export type {
  QueueAdapter,
  SqlClient,
  LeaseSettings,
  QueueContext,
  JobSpec,
  Claim,
  AuditDescription,
  WorkerBehaviour,
  LeaseTolerance,
} from './queue/types.js';
export {
  referenceQueue,
  createReferenceQueue,
  REFERENCE_RETRY_BACKOFF,
  type ReferenceQueueOptions,
  type RetryBackoff,
} from './queue/reference-queue.js';
export {
  unconditionalAckQueue,
  workerClockLeaseQueue,
  mainThreadHeartbeatQueue,
  noWatchdogQueue,
} from './queue/known-bad-queues.js';
export { builtInQueues, queueNames, builtInQueue } from './libraries/registry.js';
export {
  loadQueueAdapter,
  ADAPTER_FILE_EXTENSIONS,
  type LoadQueueAdapterOptions,
} from './libraries/load-adapter.js';
export { adapterProblems, assertQueueAdapter } from './queue/validate-adapter.js';
// Queues in other languages: a program answering the primitives protocol (docs/worker-protocol.md).
export {
  programQueue,
  PRIMITIVES_PROTOCOL_VERSION,
  type ProgramQueueOptions,
} from './libraries/program/program-queue.js';
export { pythonQueue, type PythonQueueOptions } from './libraries/program/python-queue.js';
export {
  ensurePythonEnvironment,
  PYTHON_CLIENT_DIR,
  type PythonInstallOptions,
} from './env/python-install.js';
export { workerBehaviourOf, REFERENCE_WORKER_BEHAVIOUR } from './queue/worker-behaviour.js';

// Workers: real processes, controlled from here.
export type {
  UnitPlan,
  HandlerPlan,
  ClockSkew,
  WorkerConfig,
  WorkerEvent,
  Outcome,
} from './worker/types.js';
export { WorkerPool, type WorkerPoolOptions } from './pool/worker-pool.js';
export { StartedWorker, type ReceivedEvent } from './pool/worker-process.js';
export {
  prepareQueue,
  waitForDrain,
  unfinishedJobs,
  type PrepareQueueOptions,
} from './pool/queue-database.js';

// Workloads: seeded randomness and handler-duration distributions.
export { Random } from './random.js';
export {
  drawDuration,
  drawHandlerPlans,
  type DurationDistribution,
  type HandlerShape,
} from './scenario/durations.js';

// History: one ordered record of a run on the database's clock.
export { HISTORY_VERSION } from './history/types.js';
export type {
  LeaseState,
  HistoryHeader,
  LeaseImage,
  AuditEvent,
  EffectEvent,
  WorkerHistoryEvent,
  FaultKind,
  NemesisEvent,
  JobEvent,
  EndEvent,
  HistoryEvent,
  History,
} from './history/types.js';
export { installAuditTrigger, AUDIT_TRIGGER } from './history/audit-trigger.js';
export { AUDIT_TABLE } from './history/audit-table.js';
export { prepareAuditedQueue } from './history/audited-queue.js';
export { measureClockOffset, type ClockOffset } from './history/clock-offset.js';
export { HistoryRecorder } from './history/recorder.js';
export type { HistoryRecorderOptions, NemesisRecord } from './history/recorder-options.js';
export { writeHistory, readHistory, historyEnd } from './history/jsonl.js';
export {
  AuditDescriptionError,
  AuditDataError,
  HistoryFileError,
} from './history/history-errors.js';
export { deriveHistory } from './history/derive.js';
export type {
  DerivedHistory,
  DerivedJob,
  DerivedClaim,
  DerivedCompletion,
  DerivedFault,
  DerivedWorker,
  ClaimEnd,
  ClaimCloser,
} from './history/derive-types.js';

// Checkers: one per lease invariant, composed invalid > unknown > valid.
export type {
  Verdict,
  InvariantId,
  CheckOptions,
  Checker,
  CheckResult as CheckerResult,
  CompositeResult,
  Evidence,
  EvidenceClaim,
  EvidenceEvent,
  EvidenceFault,
  Distribution,
} from './checker/types.js';
export {
  ALL_CHECKERS,
  CHECKER_NAMES,
  checkerByName,
  checkHistory,
  noStaleAck,
  singleCompletion,
  noLostJob,
  exclusiveClaim,
  atLeastOnceBound,
  leaseHonored,
  boundedZombie,
  timelyRecovery,
  explainedExpiry,
} from './checker/index.js';
export { runCheckers, runChecker, composeVerdicts } from './checker/compose.js';
export { DEFAULT_CHECK_OPTIONS } from './checker/options.js';
export { formatVerdictTable } from './checker/verdict-table.js';

// Faults and runs.
export {
  FAULT_KIND_TABLE,
  FAULT_KINDS,
  faultKind,
  type FaultKindRow,
} from './faults/fault-kinds.js';
export type { Fault, FaultRecord, NemesisContext, TimedFault } from './nemesis/types.js';
export { PauseFault } from './nemesis/pause-fault.js';
export {
  PartitionFault,
  type PartitionMode,
  type PartitionDirection,
} from './nemesis/partition-fault.js';
export { ClockFault } from './nemesis/clock-fault.js';
export { StallFault } from './nemesis/stall-fault.js';
export { CrashFault } from './nemesis/crash-fault.js';
export type { FaultSpec } from './nemesis/fault-spec.js';
export { executeRun, type RunPlan, type RunOutcome } from './scenario/execute-run.js';
export { runAndCheck, type RunAndCheckOptions, type CheckedRun } from './scenario/run-and-check.js';

// Reports: verdict.json, summary.md, junit.xml, HTML timelines, reports/index.html.
export {
  writeRunReport,
  updateReportIndex,
  VERDICT_VERSION,
  buildVerdict,
  renderVerdictJson,
  renderSummary,
  renderJunit,
  buildTimelineData,
  renderTimelineHtml,
  type RunReport,
  type ScenarioRun,
  type RunEnvironment,
  type RunReportPaths,
  type ScenarioReportPaths,
  type VerdictFile,
  type ScenarioVerdict,
  type CheckerVerdict,
  type VerdictEnvironment,
  type ScenarioFiles,
  type TimelineData,
} from './report/index.js';
