-- Run once by the Virtuoso image of the `scale` profile at its first start (initdb.d): lets the
-- loader write versions through the Graph Store Protocol endpoint /sparql-graph-crud without a
-- login. The compose network is the only way to reach it: keep the store's ports unpublished, or
-- load through the bulk loader with isql instead (docs/scaling.md).
GRANT SPARQL_UPDATE TO "SPARQL";
