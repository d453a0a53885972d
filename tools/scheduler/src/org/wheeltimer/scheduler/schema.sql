-- SPDX-License-Identifier: LGPL-2.1 OR MIT
--
-- The cluster scheduler's tables (tools/scheduler/README.md says why they
-- are so). Safe to run again: it creates what is missing.

-- The jobs. Clients insert, update and delete rows (directly or through
-- org.wheeltimer.scheduler.Jobs); nodes only read them, and delete those
-- that are finished. mode and period_ms are not checked here on purpose:
-- a node reports a row it cannot schedule and skips it (a client, or a
-- newer version of the scheduler, may write what a node does not know).
CREATE TABLE IF NOT EXISTS wt_job (
    job_id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- The job's place on the ring (Ring.java): Job.SLOTS slots.
    slot      int GENERATED ALWAYS AS ((job_id % 4096)::int) STORED,
    handler   text NOT NULL,
    payload   text,
    mode      text NOT NULL,          -- once, fixed_rate or fixed_delay
    start_at  timestamptz NOT NULL,   -- the first occurrence
    period_ms bigint,                 -- fixed_rate, fixed_delay: the period
    end_at    timestamptz,            -- no occurrence after this (NULL: none)
    version   bigint NOT NULL DEFAULT 1
);
CREATE INDEX IF NOT EXISTS wt_job_slot ON wt_job (slot, start_at);

-- The run log: one row per run, and the commit point of each. Its key
-- makes each (job, scheduled time) run at most once, whichever nodes race.
CREATE TABLE IF NOT EXISTS wt_run (
    job_id       bigint NOT NULL,
    scheduled_at timestamptz NOT NULL,
    version      bigint NOT NULL,      -- the job's version it ran under
    node         text NOT NULL,
    generation   bigint NOT NULL,      -- the node's lease it ran under
    fired_at     timestamptz NOT NULL, -- the node's clock when its wheel fired it
    recorded_at  timestamptz NOT NULL DEFAULT clock_timestamp(),  -- the database's
    error        text,                 -- the handler's failure, if it failed
    PRIMARY KEY (job_id, scheduled_at)
);

-- The nodes and their leases. A node renews its row; a row whose lease
-- has lapsed is a dead node, and generation fences its late runs.
CREATE TABLE IF NOT EXISTS wt_node (
    node       text PRIMARY KEY,
    generation bigint NOT NULL,
    expires_at timestamptz NOT NULL
);
-- When the node took its current generation (joined or rejoined), by the
-- database's clock.
ALTER TABLE wt_node ADD COLUMN IF NOT EXISTS
    registered_at timestamptz NOT NULL DEFAULT clock_timestamp();

-- Any change of a job's row is a new version of it: a node that loaded
-- an older one can no longer record a run of it.
CREATE OR REPLACE FUNCTION wt_job_new_version() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.version := OLD.version + 1;
    RETURN NEW;
END $$;
CREATE OR REPLACE TRIGGER wt_job_new_version BEFORE UPDATE ON wt_job
    FOR EACH ROW EXECUTE FUNCTION wt_job_new_version();

-- Every change of a job is heard by the nodes at its commit (LISTEN
-- wt_job, the job's id as payload), but the nodes' own deletions of
-- finished jobs, which they make with wt.quiet set.
CREATE OR REPLACE FUNCTION wt_job_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('wt.quiet', true) IS DISTINCT FROM 'on' THEN
        PERFORM pg_notify('wt_job', (CASE TG_OP WHEN 'DELETE' THEN OLD.job_id
                                                ELSE NEW.job_id END)::text);
    END IF;
    RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER wt_job_notify AFTER INSERT OR UPDATE OR DELETE ON wt_job
    FOR EACH ROW EXECUTE FUNCTION wt_job_notify();

-- A node that joins, rejoins or leaves is heard at once (LISTEN wt_node);
-- renewals, which change only expires_at, are not.
CREATE OR REPLACE FUNCTION wt_node_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('wt_node', (CASE TG_OP WHEN 'DELETE' THEN OLD.node
                                             ELSE NEW.node END));
    RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER wt_node_notify AFTER INSERT OR DELETE OR UPDATE OF generation
    ON wt_node FOR EACH ROW EXECUTE FUNCTION wt_node_notify();
