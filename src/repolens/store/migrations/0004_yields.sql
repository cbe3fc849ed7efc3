-- What one iteration over a function's result gives, from its stated return type
-- (`-> list[Node]` yields `Node`, `[]*Command` yields `*Command`): a loop over a call
-- into another file (`for n in tree.nodes()`) types its variable with it at resolve time.
ALTER TABLE symbols ADD COLUMN yields TEXT NOT NULL DEFAULT '';
