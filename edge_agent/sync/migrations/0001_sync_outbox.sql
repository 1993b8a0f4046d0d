-- Upstream sync tables, in the memory store's database file so that a capture and its outbox row
-- commit in one transaction. Applied by the memory store's migration runner after its own files.

-- One row per capture waiting for upload. `seq` is the upload order.
CREATE TABLE IF NOT EXISTS sync_outbox (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    capture_id      TEXT    NOT NULL UNIQUE,
    entry_id        TEXT,
    importance      REAL    NOT NULL DEFAULT 0.5,
    payload         TEXT    NOT NULL,            -- screened capture + provenance, JSON
    bytes           INTEGER NOT NULL,            -- accounted size (payload + row overhead)
    enqueued_at     REAL    NOT NULL,            -- unix seconds
    attempts        INTEGER NOT NULL DEFAULT 0,  -- answered failures (offline time never counts)
    next_attempt_at REAL    NOT NULL DEFAULT 0,
    last_error      TEXT,
    -- Exactly-once bookkeeping. Once a row is assigned to an upload batch it is only ever re-sent
    -- in that batch, at that position, with that idempotency prefix, until the server answers.
    batch_id        TEXT,
    batch_index     INTEGER,
    solo            INTEGER NOT NULL DEFAULT 0,  -- re-batch alone (after a whole-batch rejection)
    revision_kref   TEXT                         -- known once the batch call answered
);
CREATE INDEX IF NOT EXISTS sync_outbox_batch ON sync_outbox (batch_id, batch_index);
CREATE INDEX IF NOT EXISTS sync_outbox_entry ON sync_outbox (entry_id);

-- Upload batches whose outcome is not known yet: prefix and rows are fixed at creation.
CREATE TABLE IF NOT EXISTS sync_batches (
    batch_id   TEXT PRIMARY KEY,
    prefix     TEXT NOT NULL,
    rows       INTEGER NOT NULL,
    created_at REAL NOT NULL,
    dead       INTEGER NOT NULL DEFAULT 0        -- its rows were dead-lettered together
);

-- Captures the server refused for good (or that ran out of attempts): visible, retryable.
CREATE TABLE IF NOT EXISTS sync_dead (
    seq           INTEGER PRIMARY KEY,           -- the outbox seq, kept for ordering on retry
    capture_id    TEXT    NOT NULL UNIQUE,
    entry_id      TEXT,
    importance    REAL    NOT NULL,
    payload       TEXT    NOT NULL,
    bytes         INTEGER NOT NULL,
    enqueued_at   REAL    NOT NULL,
    attempts      INTEGER NOT NULL,
    batch_id      TEXT,
    batch_index   INTEGER,
    revision_kref TEXT,
    code          TEXT    NOT NULL,              -- gRPC status name or local reason code
    reason        TEXT    NOT NULL,
    dead_at       REAL    NOT NULL
);

-- Synced captures whose revision kref has not been written onto the memory entry yet.
CREATE TABLE IF NOT EXISTS sync_krefs (
    capture_id    TEXT PRIMARY KEY,
    entry_id      TEXT,
    revision_kref TEXT NOT NULL,
    synced_at     REAL NOT NULL
);

-- Counters and last-known state (last success/error, auth pause, screening counts).
CREATE TABLE IF NOT EXISTS sync_state (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- Row and byte totals kept by triggers, so the outbox bound is checked in O(1) per capture.
CREATE TABLE IF NOT EXISTS sync_usage (
    id    INTEGER PRIMARY KEY CHECK (id = 1),
    rows  INTEGER NOT NULL,
    bytes INTEGER NOT NULL
);
INSERT OR IGNORE INTO sync_usage (id, rows, bytes) VALUES (1, 0, 0);

CREATE TRIGGER IF NOT EXISTS sync_outbox_ins AFTER INSERT ON sync_outbox BEGIN
    UPDATE sync_usage SET rows = rows + 1, bytes = bytes + NEW.bytes WHERE id = 1;
END;
CREATE TRIGGER IF NOT EXISTS sync_outbox_del AFTER DELETE ON sync_outbox BEGIN
    UPDATE sync_usage SET rows = rows - 1, bytes = bytes - OLD.bytes WHERE id = 1;
END;
CREATE TRIGGER IF NOT EXISTS sync_dead_ins AFTER INSERT ON sync_dead BEGIN
    UPDATE sync_usage SET rows = rows + 1, bytes = bytes + NEW.bytes WHERE id = 1;
END;
CREATE TRIGGER IF NOT EXISTS sync_dead_del AFTER DELETE ON sync_dead BEGIN
    UPDATE sync_usage SET rows = rows - 1, bytes = bytes - OLD.bytes WHERE id = 1;
END;
