-- repolens index, schema version 1: files, the code graph, and bookkeeping.
-- Paths are relative to the project root with '/' separators.

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE files (
    id            INTEGER PRIMARY KEY,
    path          TEXT NOT NULL UNIQUE,
    language      TEXT NOT NULL,
    size          INTEGER NOT NULL,
    mtime_ns      INTEGER NOT NULL,
    content_hash  TEXT NOT NULL,
    parse_status  TEXT NOT NULL,           -- ok | partial | failed | text
    parse_error   TEXT NOT NULL DEFAULT '',
    module        TEXT NOT NULL DEFAULT '', -- module name given by the language's layout
    line_count    INTEGER NOT NULL DEFAULT 0,
    exports       TEXT NOT NULL DEFAULT '',  -- explicit export list (`__all__`), newline-separated
    indexed_at    REAL NOT NULL
);
CREATE INDEX files_language ON files(language);

-- Stable ids: a 63-bit hash of (file, kind, qualified_name, ordinal among same-named
-- siblings), so editing code above a symbol does not change its id.
CREATE TABLE symbols (
    id              INTEGER PRIMARY KEY,
    file_id         INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    parent_id       INTEGER,
    kind            TEXT NOT NULL,
    name            TEXT NOT NULL,
    qualified_name  TEXT NOT NULL,
    start_line      INTEGER NOT NULL,
    end_line        INTEGER NOT NULL,
    start_col       INTEGER NOT NULL DEFAULT 0,
    end_col         INTEGER NOT NULL DEFAULT 0,
    signature       TEXT NOT NULL DEFAULT '',
    docstring       TEXT NOT NULL DEFAULT '',
    visibility      TEXT NOT NULL DEFAULT 'public',
    is_exported     INTEGER NOT NULL DEFAULT 1,
    is_async        INTEGER NOT NULL DEFAULT 0,
    is_static       INTEGER NOT NULL DEFAULT 0,
    decorators      TEXT NOT NULL DEFAULT '',  -- newline-separated, as written
    return_type     TEXT NOT NULL DEFAULT ''
);
CREATE INDEX symbols_file ON symbols(file_id);
CREATE INDEX symbols_name ON symbols(name);
CREATE INDEX symbols_qualified ON symbols(qualified_name);
CREATE INDEX symbols_parent ON symbols(parent_id);

-- Every reference as extracted, resolved or not: kept so that later changes (a new file
-- defining a missing name, a deleted target) can be re-resolved without re-parsing.
CREATE TABLE refs (
    id         INTEGER PRIMARY KEY,
    file_id    INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    source_id  INTEGER,                 -- enclosing symbol; NULL = module level
    kind       TEXT NOT NULL,
    name       TEXT NOT NULL,
    receiver   TEXT,
    line       INTEGER NOT NULL,
    col        INTEGER NOT NULL DEFAULT 0,
    resolved   INTEGER NOT NULL DEFAULT 0, -- 1 when an edge was made from it
    reason     TEXT NOT NULL DEFAULT ''    -- why unresolved: external, builtin, unknown, ambiguous
);
CREATE INDEX refs_file ON refs(file_id);
CREATE INDEX refs_name ON refs(name) WHERE resolved = 0;

CREATE TABLE imports (
    id                 INTEGER PRIMARY KEY,
    file_id            INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    module             TEXT NOT NULL,
    name               TEXT,
    alias              TEXT,
    level              INTEGER NOT NULL DEFAULT 0,
    line               INTEGER NOT NULL,
    is_wildcard        INTEGER NOT NULL DEFAULT 0,
    is_reexport        INTEGER NOT NULL DEFAULT 0,
    target_file_id     INTEGER,  -- the file the module resolved to (NULL: external/unknown)
    target_symbol_id   INTEGER   -- the symbol the name resolved to, when it names one
);
CREATE INDEX imports_file ON imports(file_id);
CREATE INDEX imports_target_file ON imports(target_file_id);

-- Resolved relationships. file_id is the file the edge was written in (the file whose
-- re-index must drop it); edges of kind 'contains' belong to the child's file.
CREATE TABLE edges (
    id          INTEGER PRIMARY KEY,
    source_id   INTEGER NOT NULL,
    target_id   INTEGER NOT NULL,
    kind        TEXT NOT NULL,
    file_id     INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    line        INTEGER NOT NULL DEFAULT 0,
    col         INTEGER NOT NULL DEFAULT 0,
    confidence  REAL NOT NULL DEFAULT 1.0,
    provenance  TEXT NOT NULL DEFAULT 'parsed',
    metadata    TEXT NOT NULL DEFAULT ''
);
CREATE INDEX edges_source ON edges(source_id, kind);
CREATE INDEX edges_target ON edges(target_id, kind);
CREATE INDEX edges_file ON edges(file_id);

-- Names whose type the code states (annotations, constructor assignments); they feed
-- receiver-type resolution and are kept so a file can be re-resolved without re-parsing.
CREATE TABLE bindings (
    file_id    INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    scope_id   INTEGER,               -- enclosing symbol; NULL = module level
    name       TEXT NOT NULL,
    type_name  TEXT NOT NULL,
    line       INTEGER NOT NULL,
    from_call  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX bindings_file ON bindings(file_id);
