-- repolens index, schema version 2: search chunks, their BM25 index and embeddings.

-- AUTOINCREMENT: a chunk id is never reused, so an id held by the FTS index, the
-- deletion log or a memory-mapped vector matrix can never point at a different chunk.
CREATE TABLE chunks (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    file_id     INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    ordinal     INTEGER NOT NULL,
    start_line  INTEGER NOT NULL,
    end_line    INTEGER NOT NULL,
    kind        TEXT NOT NULL,
    symbol_id   INTEGER,                   -- innermost enclosing symbol (symbols.id)
    symbol      TEXT NOT NULL DEFAULT '',  -- its qualified name
    names       TEXT NOT NULL DEFAULT '',  -- qualified names shown, newline-separated
    role        TEXT NOT NULL DEFAULT '',  -- '' | test | vendored | generated
    path_terms  TEXT NOT NULL DEFAULT '',  -- the FTS path column exactly as inserted
    parts       TEXT NOT NULL DEFAULT '',  -- first lines of merged neighbours, space-separated
    text        TEXT NOT NULL,
    text_hash   TEXT NOT NULL
);
CREATE INDEX chunks_file ON chunks(file_id);
CREATE INDEX chunks_kind ON chunks(kind);

-- Token streams are computed in Python (code-aware splitting); FTS5 only stems and
-- indexes them. Contentless: the chunk text is stored once, in `chunks`.
CREATE VIRTUAL TABLE chunks_fts USING fts5(
    body, names, path,
    content = '',
    tokenize = "porter unicode61 remove_diacritics 2 tokenchars '_'"
);
CREATE VIRTUAL TABLE chunks_fts_vocab USING fts5vocab(chunks_fts, 'row');

-- A contentless FTS5 row can only be deleted with the tokens it was inserted with, which
-- SQL cannot compute. Deleted chunks (also by cascade from `files`) are logged here with
-- what is needed to recompute them, and removed from the index by the next writer.
CREATE TABLE chunks_fts_gone (
    id          INTEGER PRIMARY KEY,
    names       TEXT NOT NULL,
    path_terms  TEXT NOT NULL,
    text        TEXT NOT NULL
);
CREATE TRIGGER chunks_log_delete AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts_gone(id, names, path_terms, text)
    VALUES (old.id, old.names, old.path_terms, old.text);
END;

-- Embedding windows of each chunk under the effective embedding profile. A chunk has
-- rows here only once all its windows have vectors (written in one transaction).
CREATE TABLE chunk_windows (
    chunk_id   INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    ordinal    INTEGER NOT NULL,  -- window number within the chunk
    text_hash  TEXT NOT NULL,
    PRIMARY KEY (chunk_id, ordinal)
) WITHOUT ROWID;

-- The embedding cache: a text embedded once under a model is never embedded again,
-- wherever it moves and across branches. Vectors are L2-normalised float16.
CREATE TABLE embeddings (
    text_hash  TEXT NOT NULL,
    model_key  TEXT NOT NULL,
    vector     BLOB NOT NULL,
    PRIMARY KEY (text_hash, model_key)
) WITHOUT ROWID;
