-- The function an import inside one binds its name in (NULL: the module). Python's
-- `from ._impl import raw_terminal as f` inside one function must not answer an `f` of
-- another function of the same file.
ALTER TABLE imports ADD COLUMN scope_id INTEGER;
