#!/bin/sh
# The image's entry point. On the first start with an empty volume it writes the bundled
# dataset's snapshot to DATASET before the server starts, as database images initialise theirs:
# the server itself refuses a DATASET that is set but missing, rather than serving test data in
# place of an operator's snapshot that went missing. Then it runs the command (the server).
set -eu
if [ "${1:-}" = "node" ] && [ "${2:-}" = "dist/src/main.js" ]; then
  node dist/cli/initDataset.js
fi
exec "$@"
