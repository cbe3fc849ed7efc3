-- repolens index, schema version 8: context artifacts (schemas, API specs, docs).

-- An artifact is what one [[artifacts]] table of .repolens.toml names. Its rows live apart
-- from `files` and `chunks`: an artifact is context for the code, not code (code search
-- does not return it), and it may lie where discovery does not look (a generated spec).
CREATE TABLE artifacts (
    name         TEXT PRIMARY KEY,
    path         TEXT NOT NULL,            -- as configured
    description  TEXT NOT NULL DEFAULT '',
    signature    TEXT NOT NULL,            -- path, description and parser version, hashed
    indexed_at   REAL NOT NULL,
    error        TEXT NOT NULL DEFAULT ''  -- why it could not be read (missing path...)
);

-- The files an artifact holds (one, or those of its folder), each stale by its own hash.
CREATE TABLE artifact_files (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    artifact      TEXT NOT NULL REFERENCES artifacts(name) ON DELETE CASCADE,
    path          TEXT NOT NULL,           -- root-relative, POSIX
    kind          TEXT NOT NULL,           -- sql | openapi | graphql | protobuf | markdown
    content_hash  TEXT NOT NULL,
    error         TEXT NOT NULL DEFAULT '',
    UNIQUE (artifact, path)
);

-- What an artifact defines: tables, columns, foreign keys, operations, types, messages,
-- services, rpcs, sections. ``detail`` is its one-line summary (a column's type, an
-- operation's operationId, an rpc's request and reply, a foreign key's target).
CREATE TABLE artifact_symbols (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    file_id         INTEGER NOT NULL REFERENCES artifact_files(id) ON DELETE CASCADE,
    parent_id       INTEGER,
    kind            TEXT NOT NULL,
    name            TEXT NOT NULL,
    qualified_name  TEXT NOT NULL,
    start_line      INTEGER NOT NULL,
    end_line        INTEGER NOT NULL,
    detail          TEXT NOT NULL DEFAULT ''
);
CREATE INDEX artifact_symbols_file ON artifact_symbols(file_id);
CREATE INDEX artifact_symbols_name ON artifact_symbols(name COLLATE NOCASE);

-- Search chunks of artifacts, cut and tokenized as code chunks are; their windows'
-- vectors live in the shared `embeddings` cache.
CREATE TABLE artifact_chunks (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    file_id     INTEGER NOT NULL REFERENCES artifact_files(id) ON DELETE CASCADE,
    start_line  INTEGER NOT NULL,
    end_line    INTEGER NOT NULL,
    kind        TEXT NOT NULL,
    names       TEXT NOT NULL DEFAULT '',
    text        TEXT NOT NULL
);
CREATE INDEX artifact_chunks_file ON artifact_chunks(file_id);

CREATE TABLE artifact_windows (
    chunk_id   INTEGER NOT NULL REFERENCES artifact_chunks(id) ON DELETE CASCADE,
    ordinal    INTEGER NOT NULL,
    text_hash  TEXT NOT NULL,
    PRIMARY KEY (chunk_id, ordinal)
) WITHOUT ROWID;

-- Unlike chunks_fts this one keeps its tokens (artifacts are small), so a deleted chunk
-- leaves the index by a plain delete.
CREATE VIRTUAL TABLE artifact_fts USING fts5(
    body, names, path,
    tokenize = "porter unicode61 remove_diacritics 2 tokenchars '_'"
);
CREATE TRIGGER artifact_chunks_unindex AFTER DELETE ON artifact_chunks BEGIN
    DELETE FROM artifact_fts WHERE rowid = old.id;
END;
