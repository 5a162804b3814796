-- Run evaluations ("run-dir -history", "merge -history"): per configuration
-- of a benchmark run, its trial counts, and per figure its statistics over
-- tasks (runs.ConfigSummary). A run may hold scenarios of check, configurations
-- of an evaluation, or both when they share a run key.

-- +goose Up
ALTER TABLE runs ADD COLUMN evaluated TEXT NOT NULL DEFAULT '';

CREATE TABLE configs (
    id             INTEGER PRIMARY KEY,
    run_id         INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    name           TEXT    NOT NULL,
    trials         INTEGER NOT NULL DEFAULT 0,
    tasks          INTEGER NOT NULL DEFAULT 0,
    computable     INTEGER NOT NULL DEFAULT 0,
    non_computable INTEGER NOT NULL DEFAULT 0,
    degraded       INTEGER NOT NULL DEFAULT 0,
    failed         INTEGER NOT NULL DEFAULT 0,
    UNIQUE (run_id, name)
);
CREATE INDEX configs_name ON configs (name);

CREATE TABLE config_figures (
    config_id   INTEGER NOT NULL REFERENCES configs (id) ON DELETE CASCADE,
    figure      TEXT    NOT NULL,
    n           INTEGER NOT NULL,
    mean        REAL    NOT NULL,
    median      REAL    NOT NULL,
    std         REAL    NOT NULL,
    ci_low      REAL    NOT NULL,
    ci_high     REAL    NOT NULL,
    wilson_low  REAL,
    wilson_high REAL,
    PRIMARY KEY (config_id, figure)
);

-- +goose Down
DROP TABLE config_figures;
DROP TABLE configs;
ALTER TABLE runs DROP COLUMN evaluated;
