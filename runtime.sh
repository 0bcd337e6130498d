#!/bin/sh
# The runtime's settings beneath the service's own, in this one file: `npm start`, `npm run load`,
# the image's entry point and every bench run node through it (`sh runtime.sh node …`), and
# test/bench/drivers.ts reads its figures from here. A value already in the environment is kept.
# Two malloc arenas, not one per thread: threads that compress and write (the dumps', zlib's)
# leave freed memory in arenas of their own that glibc keeps (docs/benchmark.md,
# "MALLOC_ARENA_MAX=2 against glibc's default").
: "${MALLOC_ARENA_MAX:=2}"
# Blocks of 128 KiB and more mapped on their own, so that what a staff worker frees when it ends
# goes back to the system (docs/operations.md, "Under load").
: "${MALLOC_MMAP_THRESHOLD_:=131072}"
export MALLOC_ARENA_MAX MALLOC_MMAP_THRESHOLD_
exec "$@"
