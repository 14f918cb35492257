/**
 * A test's own small record of every change to the reference table, made by the database
 * (a trigger, `clock_timestamp()`, the writing connection's `application_name`): the truth
 * about which worker's statement committed what, whatever the workers believe. (The harness's
 * general audit trigger, built from an adapter's audit description, comes with the history.)
 */
export const TRANSITIONS_SQL = `
CREATE TABLE test_transitions (
  seq bigserial PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT clock_timestamp(),
  app text NOT NULL DEFAULT current_setting('application_name'),
  job_id bigint, old_status text, new_status text, old_token uuid, new_token uuid,
  new_deadline timestamptz
);
CREATE FUNCTION test_transition() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO test_transitions (job_id, old_status, new_status, old_token, new_token, new_deadline)
  VALUES (NEW.id, OLD.status, NEW.status, OLD.claim_token, NEW.claim_token, NEW.lease_expires_at);
  RETURN NEW;
END $$;
CREATE TRIGGER test_transition AFTER UPDATE ON leaseproof_jobs
  FOR EACH ROW EXECUTE FUNCTION test_transition();
`;

/** A row of `test_transitions`. */
export interface Transition extends Record<string, unknown> {
  seq: string;
  at: Date;
  app: string;
  job_id: string;
  old_status: string;
  new_status: string;
  old_token: string | null;
  new_token: string | null;
  new_deadline: Date | null;
}
