-- Memory cache schema. Times are RFC 3339 UTC, fixed width ("2026-01-31T12:00:00.000000Z"), so
-- text order is time order. `seq` is the stable rowid the full-text index points at (a TEXT
-- primary key alone would let VACUUM renumber rowids under the external-content index).
CREATE TABLE entries (
    seq            INTEGER PRIMARY KEY,
    id             TEXT NOT NULL UNIQUE,
    key            TEXT NOT NULL,
    title          TEXT NOT NULL DEFAULT '',
    content        TEXT NOT NULL,
    category       TEXT NOT NULL DEFAULT 'core',
    timestamp      TEXT NOT NULL,
    session_id     TEXT,
    namespace      TEXT NOT NULL,
    importance     REAL NOT NULL DEFAULT 0.5 CHECK (importance >= 0 AND importance <= 1),
    score          REAL,
    superseded_by  TEXT REFERENCES entries(id) ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED,
    content_sha256 TEXT NOT NULL,
    access_count   INTEGER NOT NULL DEFAULT 0,
    last_access    TEXT,
    metadata       TEXT NOT NULL DEFAULT '{}',
    kref           TEXT,
    archived       INTEGER NOT NULL DEFAULT 0
);

-- Identical content is stored once per namespace (among live, non-superseded entries).
CREATE UNIQUE INDEX entries_live_content ON entries(namespace, content_sha256) WHERE superseded_by IS NULL;
-- One live entry per key and namespace; older versions point at their successor.
CREATE UNIQUE INDEX entries_live_key ON entries(namespace, key) WHERE superseded_by IS NULL;
CREATE INDEX entries_key ON entries(namespace, key);
CREATE INDEX entries_category_time ON entries(category, timestamp);
CREATE INDEX entries_namespace_time ON entries(namespace, timestamp);
CREATE INDEX entries_session ON entries(session_id) WHERE session_id IS NOT NULL;
CREATE INDEX entries_kref ON entries(kref) WHERE kref IS NOT NULL;
CREATE INDEX entries_superseded_by ON entries(superseded_by) WHERE superseded_by IS NOT NULL;

CREATE VIRTUAL TABLE entries_fts USING fts5(
    key, title, content,
    content = 'entries', content_rowid = 'seq',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER entries_fts_insert AFTER INSERT ON entries BEGIN
    INSERT INTO entries_fts(rowid, key, title, content) VALUES (new.seq, new.key, new.title, new.content);
END;
CREATE TRIGGER entries_fts_delete AFTER DELETE ON entries BEGIN
    INSERT INTO entries_fts(entries_fts, rowid, key, title, content)
        VALUES ('delete', old.seq, old.key, old.title, old.content);
END;
CREATE TRIGGER entries_fts_update AFTER UPDATE OF key, title, content ON entries BEGIN
    INSERT INTO entries_fts(entries_fts, rowid, key, title, content)
        VALUES ('delete', old.seq, old.key, old.title, old.content);
    INSERT INTO entries_fts(rowid, key, title, content) VALUES (new.seq, new.key, new.title, new.content);
END;

-- Captures written by reflect / record_capture, one per entry.
CREATE TABLE captures (
    id          TEXT PRIMARY KEY,
    entry_id    TEXT NOT NULL UNIQUE REFERENCES entries(id) ON DELETE CASCADE,
    type        TEXT NOT NULL,
    title       TEXT NOT NULL,
    tags        TEXT NOT NULL DEFAULT '[]',
    space_hint  TEXT NOT NULL DEFAULT '',
    source_refs TEXT NOT NULL DEFAULT '[]',
    session_id  TEXT,
    importance  REAL NOT NULL,
    created_at  TEXT NOT NULL,
    metadata    TEXT NOT NULL DEFAULT '{}'
);

-- Provenance: which sources an entry was derived from (kref, or mem://<entry_id> resolved locally).
CREATE TABLE provenance (
    entry_id        TEXT NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
    source_ref      TEXT NOT NULL,
    source_entry_id TEXT,
    PRIMARY KEY (entry_id, source_ref)
);
CREATE INDEX provenance_source ON provenance(source_entry_id) WHERE source_entry_id IS NOT NULL;

-- Audit trail of writes and deletes ([memory] audit_enabled).
CREATE TABLE audit (
    seq       INTEGER PRIMARY KEY,
    at        TEXT NOT NULL,
    operation TEXT NOT NULL,
    entry_id  TEXT,
    key       TEXT,
    namespace TEXT,
    detail    TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_at ON audit(at);

-- Counters that survive restarts (policy evictions, hygiene runs).
CREATE TABLE counters (
    name  TEXT PRIMARY KEY,
    value INTEGER NOT NULL DEFAULT 0
);
