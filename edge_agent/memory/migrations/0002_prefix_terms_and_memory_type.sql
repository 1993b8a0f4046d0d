-- Recall matches light word stems as prefixes ("calibrat"* finds calibrate, calibration) and pin or
-- part names exactly ('gpio1' must not find 'gpio17'); the porter stemmer of 0001 cannot be reproduced
-- outside SQLite, so the index switches to plain unicode61 tokens and the store applies the same
-- rule in Python when it scores a candidate. The index is rebuilt from `entries`.
DROP TRIGGER IF EXISTS entries_fts_insert;
DROP TRIGGER IF EXISTS entries_fts_delete;
DROP TRIGGER IF EXISTS entries_fts_update;
DROP TABLE IF EXISTS entries_fts;

CREATE VIRTUAL TABLE entries_fts USING fts5(
    key, title, content,
    content = 'entries', content_rowid = 'seq',
    tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO entries_fts(entries_fts) VALUES ('rebuild');

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

-- Per-term document counts: the IDF weights of recall.
CREATE VIRTUAL TABLE entries_vocab USING fts5vocab(entries_fts, 'row');

-- The Kumiho memory type of an entry written from a capture (decision, fact, sensor_anomaly, ...), so
-- a recall filtered by memory type finds captures whatever their category.
ALTER TABLE entries ADD COLUMN memory_type TEXT;
UPDATE entries SET memory_type = (SELECT type FROM captures WHERE captures.entry_id = entries.id);
