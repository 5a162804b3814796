-- The history of check runs: one row per run, per scenario of a run and per
-- expectation of a scenario. Times are Unix milliseconds (UTC); figures are
-- a JSON object of metric name to value, a figure with no value absent.

-- +goose Up
CREATE TABLE runs (
    id          INTEGER PRIMARY KEY,
    run_key     TEXT    NOT NULL UNIQUE,
    recorded_at INTEGER NOT NULL,
    commit_sha  TEXT    NOT NULL DEFAULT '',
    branch      TEXT    NOT NULL DEFAULT '',
    ci          TEXT    NOT NULL DEFAULT '',
    url         TEXT    NOT NULL DEFAULT '',
    report_url  TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX runs_branch_time ON runs (branch, recorded_at);
CREATE INDEX runs_commit ON runs (commit_sha);

CREATE TABLE scenarios (
    id           INTEGER PRIMARY KEY,
    run_id       INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    name         TEXT    NOT NULL,
    file         TEXT    NOT NULL DEFAULT '',
    status       TEXT    NOT NULL,
    trace_digest TEXT    NOT NULL DEFAULT '',
    figures      TEXT    NOT NULL DEFAULT '{}',
    UNIQUE (run_id, name)
);
CREATE INDEX scenarios_name ON scenarios (name);

CREATE TABLE expectations (
    scenario_id     INTEGER NOT NULL REFERENCES scenarios (id) ON DELETE CASCADE,
    position        INTEGER NOT NULL,
    type            TEXT    NOT NULL,
    description     TEXT    NOT NULL DEFAULT '',
    status          TEXT    NOT NULL,
    flaky_marked    INTEGER NOT NULL DEFAULT 0,
    measured        TEXT    NOT NULL DEFAULT '',
    threshold       TEXT    NOT NULL DEFAULT '',
    runs_passed     INTEGER NOT NULL DEFAULT 0,
    runs_judged     INTEGER NOT NULL DEFAULT 0,
    settings_digest TEXT    NOT NULL DEFAULT '',
    PRIMARY KEY (scenario_id, position)
);

-- +goose Down
DROP TABLE expectations;
DROP TABLE scenarios;
DROP TABLE runs;
