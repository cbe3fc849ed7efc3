-- Calls whose arguments resolution reads (route registrations, router mounts, command
-- registrations: see repolens.parse.callsites), with their arguments rendered as JSON.
-- Framework rules compose routes from them across files, so the composed routes of the
-- whole project are rebuilt from these rows after every resolve, incremental or full.
CREATE TABLE call_sites (
    file_id     INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    source_id   INTEGER NOT NULL,          -- enclosing symbol (the file symbol at top level)
    name        TEXT NOT NULL,
    line        INTEGER NOT NULL,
    col         INTEGER NOT NULL DEFAULT 0,
    start_byte  INTEGER NOT NULL,
    end_byte    INTEGER NOT NULL,
    target      TEXT NOT NULL DEFAULT '',  -- the name its result is assigned to
    args        TEXT NOT NULL              -- [receiver, [arguments]] as rendered values
);
CREATE INDEX call_sites_file ON call_sites(file_id);
