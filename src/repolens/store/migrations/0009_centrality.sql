-- A symbol's centrality in the code graph (PageRank over calls, instantiations, imports,
-- inheritance and references; see repolens.resolve.centrality), scaled so the average
-- symbol has 1.0. Rewritten whole after each resolve; search and context read it as a
-- ranking signal. A symbol without a row has not been ranked yet (neutral).
CREATE TABLE centrality (
    symbol_id   INTEGER PRIMARY KEY,
    value       REAL NOT NULL
);
