-- The last line a binding holds on (NULL: to the end of its scope). Python's
-- `if isinstance(x, Repo):` types `x` in that block only: after it, `x` is what it was.
ALTER TABLE bindings ADD COLUMN end_line INTEGER;
